"""kgcert.util.rng: sorted_subsets gives the values and the stream Generator.choice gives, many
populations at once; sample_rng's streams are those of their documented seed words."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from kgcert.util.rng import SUBSETS_AT_ONCE_FROM, sample_rng, sorted_subsets


def _one_at_a_time(rng: np.random.Generator, sizes: list[int], count: int):
    return [np.sort(rng.choice(n, size=count, replace=False)) if n > count else None
            for n in sizes]


@pytest.mark.parametrize("trial", range(40))
def test_many_populations_at_once_match_choice_one_at_a_time(trial: int):
    meta = np.random.default_rng(trial)
    count = int(meta.integers(1, 60))
    populations = SUBSETS_AT_ONCE_FROM + int(meta.integers(0, 200))
    sizes = [int(n) for n in meta.integers(1, count + 3_000, populations)]
    sizes[:5] = [count + 1, count, 1, 2 ** 33, count + 2]  # barely, not, far from, above 32 bits
    seed = int(meta.integers(2 ** 63))
    expected_rng, rng = np.random.default_rng(seed), np.random.default_rng(seed)
    expected = _one_at_a_time(expected_rng, sizes, count)
    got = sorted_subsets(rng, sizes, count)
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert (mine is None and theirs is None) or mine.tolist() == theirs.tolist()
    assert rng.integers(2 ** 62) == expected_rng.integers(2 ** 62)  # the stream moved alike


def test_few_populations_or_choices_other_method_draw_one_at_a_time():
    for sizes, count in (([100] * 3, 10), ([20_000] * 100, 500), ([50] * 100, 0)):
        expected_rng, rng = np.random.default_rng(7), np.random.default_rng(7)
        expected = _one_at_a_time(expected_rng, sizes, count)
        got = sorted_subsets(rng, sizes, count)
        assert [g.tolist() for g in got] == [e.tolist() for e in expected]


@pytest.mark.parametrize("seed", [0, 7, 2 ** 32 + 5, 2 ** 63 - 1])
def test_a_sample_stream_is_the_seed_sequence_of_its_seed_key_and_index(seed: int):
    """sample_rng's stream, whatever form it hands SeedSequence its words in: the run seed's
    two low words, the key's sha256 first four (little-endian), the sample index as spawn
    key. Runs that stored prompts depend on it."""
    for key in ("abc/prompt/query", "spec/dag", ""):
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        words = [seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF,
                 *(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))]
        for index in (0, 1, 999):
            expected = np.random.default_rng(np.random.SeedSequence(words, spawn_key=(index,)))
            assert (sample_rng(seed, key, index).integers(0, 2 ** 62, size=8).tolist()
                    == expected.integers(0, 2 ** 62, size=8).tolist())


def test_a_sample_stream_starts_where_numpys_seed_sequence_starts_it():
    """sample_rng seeds PCG64 with SeedSequence's words worked out by its own code (a block
    of indices at once, or numpy's hashing without the error-state context): the generator's
    whole state equals numpy's own for random seeds, keys and indices, the largest ones
    included."""
    draw = np.random.default_rng(48)
    cases = [(2 ** 64 - 1, "k", 2 ** 63 - 1), (0, "", 0)]
    cases += [(int(draw.integers(0, 2 ** 63)), f"spec{int(draw.integers(10 ** 6))}/prompt",
               int(draw.integers(0, 2 ** 40))) for _ in range(300)]
    # Below 2**32 the seed words are worked out a block of indices at a time: its edges too.
    edges = [255, 256, 511, 2 ** 32 - 257, 2 ** 32 - 256, 2 ** 32 - 1, 2 ** 32]
    cases += [(int(draw.integers(0, 2 ** 64, dtype=np.uint64)),
               f"spec{int(draw.integers(10 ** 6))}/dag", int(index))
              for index in [*draw.integers(0, 5_000, size=300), *edges]]
    for seed, key, index in cases:
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        words = [seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF,
                 *(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))]
        numpys = np.random.default_rng(np.random.SeedSequence(words, spawn_key=(index,)))
        assert sample_rng(seed, key, index).bit_generator.state == numpys.bit_generator.state
