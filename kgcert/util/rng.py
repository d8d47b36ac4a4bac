"""Per-sample random streams: sample i depends only on (run seed, stream key, i).

Every random choice for one sample (which match, which template, which aliases, the
shuffle) comes from the generator for that sample, so resuming a run, running samples in
parallel or changing the batch size never changes a prompt. Keys name the consumer (a spec
hash plus a purpose such as "dag" or "prompt") so independent choices use independent
streams.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import cast

import numpy as np
import numpy.typing as npt
from numpy.random.bit_generator import ISeedSequence


@lru_cache(maxsize=1024)
def _entropy(seed: int, key: str) -> np.ndarray:
    """A stream's entropy words: the run seed's low two words, then the key's first four
    (kept: a run asks for a few keys in every prompt). As an array, SeedSequence takes them
    in a third of the time it takes to convert a list: the same words, the same stream."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    words = [seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF,
             *(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))]
    entropy = np.array(words, dtype=np.uint32)
    entropy.flags.writeable = False
    return entropy


class _SeedSequence(np.random.SeedSequence):
    """numpy's SeedSequence without the error-state context its `generate_state` enters on
    every call: the hashing is C arithmetic on uint32 words, which raises no floating-point
    flag, and entering and leaving the context was half of a stream's set-up (three streams
    per prompt). The same words, so the same generator: a test checks it against numpy's."""

    generate_state = getattr(np.random.SeedSequence.generate_state, "__wrapped__",
                             np.random.SeedSequence.generate_state)


# SeedSequence's hashing constants (numpy/random/bit_generator.pyx), on uint32 words.
_MASK32 = 0xFFFF_FFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4  # SeedSequence's default pool size, in words
_BLOCK = 256  # indices whose seed words are worked out at once (divides 2**32: no block passes it)


@lru_cache(maxsize=1024)
def _pool(seed: int, key: str) -> tuple[tuple[int, ...], int]:
    """SeedSequence's pool after mixing in the stream's entropy words (all but the sample
    index, which comes last): numpy's own, from a SeedSequence without the index. And the
    hash constant there, which depends only on how many words were hashed: each pool word
    once, each against every other, then each later entropy word into every pool word."""
    entropy = _entropy(seed, key)  # more words than the pool: no zero padding
    hashed = _POOL + _POOL * (_POOL - 1) + _POOL * (len(entropy) - _POOL)
    const = _INIT_A * pow(_MULT_A, hashed, _MASK32 + 1) & _MASK32
    return tuple(_SeedSequence(entropy).pool.tolist()), const


@lru_cache(maxsize=256)
def _seed_words(seed: int, key: str, block: int) -> np.ndarray:
    """The four uint64 words SeedSequence(entropy, spawn_key=(i,)) gives PCG64, for each
    sample index i of `block` (one row each): its hashing run on arrays of indices, from
    the pool `_pool` keeps. A test checks every generator against numpy's own."""
    pool, const = _pool(seed, key)
    index = np.arange(block * _BLOCK, (block + 1) * _BLOCK, dtype=np.uint32)
    mixed = []
    for target in range(_POOL):  # the index word mixed into each pool word
        value = index ^ np.uint32(const)
        const = const * _MULT_A & _MASK32
        value *= np.uint32(const)
        value ^= value >> np.uint32(16)
        result = np.uint32(_MIX_L * pool[target] & _MASK32) - value * np.uint32(_MIX_R)
        mixed.append(result ^ result >> np.uint32(16))
    const, state = _INIT_B, []
    for word in range(8):  # generate_state(4, uint64): eight uint32 words from the pool
        value = mixed[word % _POOL] ^ np.uint32(const)
        const = const * _MULT_B & _MASK32
        value = value * np.uint32(const)
        state.append(value ^ value >> np.uint32(16))
    words = np.stack(state, axis=1).astype("<u4").view("<u8").astype(np.uint64)
    words.flags.writeable = False
    return words


class _Words(ISeedSequence):
    """A seed sequence whose state is already worked out: what PCG64 asks of one."""

    __slots__ = ("words",)

    def __init__(self, words: np.ndarray) -> None:
        self.words = words

    def generate_state(self, n_words: int, dtype: npt.DTypeLike = np.uint32) -> np.ndarray:
        if n_words != len(self.words) or np.dtype(dtype) != np.uint64:
            raise ValueError("only the four uint64 words PCG64 takes are kept")
        return self.words


def sample_rng(seed: int, key: str, index: int) -> np.random.Generator:
    """The generator for sample `index` of stream `key` in a run seeded with `seed`: PCG64
    seeded by SeedSequence(the stream's words, spawn_key=(index,)). Below 2**32 its seed
    words come from `_seed_words`, a block of indices at a time: SeedSequence's own set-up
    took 9.7 us a stream against 1.9 us so, and a prompt makes three streams."""
    if seed < 0 or index < 0:
        raise ValueError("seed and sample index must be non-negative")
    if index <= _MASK32:  # one spawn-key word, as `_seed_words` hashes it
        block, row = divmod(index, _BLOCK)
        # numpy's bit generators take any ISeedSequence (its documented contract; the type
        # stubs name SeedSequence alone).
        words = cast(np.random.SeedSequence, _Words(_seed_words(seed, key, block)[row]))
        return np.random.Generator(np.random.PCG64(words))
    return np.random.Generator(np.random.PCG64(_SeedSequence(_entropy(seed, key),
                                                              spawn_key=(index,))))


# Below this many populations, one Generator.choice each costs less than the vectorised draw.
SUBSETS_AT_ONCE_FROM = 64


def sorted_subsets(rng: np.random.Generator, sizes: Sequence[int],
                   count: int) -> list[np.ndarray | None]:
    """Per population size n: `np.sort(rng.choice(n, size=count, replace=False))` when
    n > count, else None; the same values from the same stream, for many populations at once.

    Generator.choice draws such a sample with Floyd's algorithm (one bounded integer per
    place, the place's top when the value was taken) and then shuffles it (one bounded integer
    per place but the first). Those bounded integers, for all populations in order, are one
    `rng.integers` call with an array of bounds; Floyd's rule then runs across populations a
    place at a time. The shuffle's integers are drawn and dropped: the sample is sorted.
    A test checks this against Generator.choice."""
    drawing = [n for n in sizes if n > count]
    if (len(drawing) < SUBSETS_AT_ONCE_FROM or count < 1
            or any(n > 10_000 and count > n // 50 for n in drawing)):  # choice's other method
        return [np.sort(rng.choice(n, size=count, replace=False)) if n > count else None
                for n in sizes]
    tops = np.array(drawing, dtype=np.int64)[:, None] - count + np.arange(count)
    shuffle = np.broadcast_to(np.arange(count - 1, 0, -1), (len(drawing), count - 1))
    values = rng.integers(0, np.concatenate([tops, shuffle], axis=1), endpoint=True)
    picked = np.empty((len(drawing), count), dtype=np.int64)
    for place in range(count):
        value = values[:, place]
        taken = (picked[:, :place] == value[:, None]).any(axis=1)
        picked[:, place] = np.where(taken, tops[:, place], value)
    picked.sort(axis=1)
    rows = iter(picked)
    return [next(rows) if n > count else None for n in sizes]
