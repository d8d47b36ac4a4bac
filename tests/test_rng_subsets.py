"""sorted_subsets: the values and the stream Generator.choice gives, many populations at once."""

from __future__ import annotations

import numpy as np
import pytest

from kgcert.rng import SUBSETS_AT_ONCE_FROM, sorted_subsets


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
