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

import numpy as np


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


def sample_rng(seed: int, key: str, index: int) -> np.random.Generator:
    """The generator for sample `index` of stream `key` in a run seeded with `seed`."""
    if seed < 0 or index < 0:
        raise ValueError("seed and sample index must be non-negative")
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
