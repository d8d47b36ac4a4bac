"""Exact McNemar tests and the Holm-corrected model hierarchy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kgcert.stats import NO_DECISION, hierarchy, mcnemar, mcnemar_counts, mcnemar_exact_p


def _sign_test_p(b: int, c: int) -> float:
    """Two-sided sign test from first principles: 2 * P(X <= min(b, c)), X ~ Bin(b + c, 1/2)."""
    n = b + c
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (5, 0, 2 / 32),  # 0.0625: five discordant wins are not enough at 0.05
        (6, 0, 2 / 64),  # 0.03125
        (8, 1, 2 * (1 + 9) / 512),  # 2 * P(X <= 1), X ~ Bin(9, 1/2): 20/512
        (7, 2, 2 * (1 + 9 + 36) / 512),  # 92/512 = 0.1796875
        (2, 7, 92 / 512),
        (3, 3, 1.0),
        (0, 0, 1.0),
    ],
)
def test_exact_p_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact_p(b, c) == pytest.approx(expected, rel=1e-12)


def test_p_values_match_first_principles() -> None:
    for b in range(0, 25):
        for c in range(0, 25):
            if b + c:
                assert mcnemar_exact_p(b, c) == pytest.approx(_sign_test_p(b, c), rel=1e-9)


def test_mcnemar_on_sequences() -> None:
    #          A right/B wrong x6, A wrong/B right x0, concordant x4
    a = [True] * 6 + [True, True, False, False]
    b = [False] * 6 + [True, True, False, False]
    result = mcnemar(a, b, names=("big", "small"))
    assert (result.n, result.b, result.c, result.discordant) == (10, 6, 0, 6)
    assert result.p_value == pytest.approx(1 / 32)
    assert result.better == "big" and result.decision == "big"
    assert mcnemar(b, a, names=("small", "big")).better == "big"
    # Same counts, stricter alpha: no decision.
    strict = mcnemar(a, b, alpha=0.01, names=("big", "small"))
    assert strict.better is None and strict.decision == NO_DECISION


def test_concordant_pairs_do_not_matter() -> None:
    base = mcnemar_counts(9, 2)
    assert mcnemar_counts(9, 2, n=10_000).p_value == base.p_value
    assert base.p_value == pytest.approx(2 * (1 + 11 + 55) / 2**11)


def test_bad_inputs() -> None:
    with pytest.raises(ValueError, match="aligned"):
        mcnemar([True, False], [True])
    with pytest.raises(ValueError):
        mcnemar([0, 2], [1, 1])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        mcnemar_counts(5, 5, n=3)
    with pytest.raises(ValueError):
        hierarchy({"only": [True]})
    with pytest.raises(ValueError, match="aligned"):
        hierarchy({"a": [True, False], "b": [True]})


def test_hierarchy_with_clear_differences() -> None:
    rng = np.random.default_rng(11)
    n = 400
    results = {
        "weak": rng.random(n) < 0.3,
        "strong": rng.random(n) < 0.9,
        "middle": rng.random(n) < 0.6,
    }
    ranked = hierarchy(results)
    assert ranked.ordering == ("strong", "middle", "weak")
    assert ranked.groups == (("strong",), ("middle",), ("weak",))
    assert [model.group for model in ranked.models] == [0, 1, 2]
    assert all(item.reject for item in ranked.comparisons)
    assert ranked.comparison("weak", "strong").better == "strong"
    assert ranked.models[0].accuracy == pytest.approx(results["strong"].mean())


def test_hierarchy_with_ties() -> None:
    rng = np.random.default_rng(5)
    n = 300
    good = rng.random(n) < 0.85
    results = {"copy-b": good.copy(), "copy-a": good.copy(), "poor": rng.random(n) < 0.4}
    ranked = hierarchy(results)
    # Equal accuracy: ties broken by name; identical outcomes give p = 1.
    assert ranked.groups == (("copy-a", "copy-b"), ("poor",))
    tie = ranked.comparison("copy-a", "copy-b")
    assert tie.test.p_value == 1.0 and not tie.reject and tie.better is None


def test_holm_correction_withholds_a_marginal_claim() -> None:
    """A beats B and C with 8 vs 1 discordant pairs each (raw p = 20/512 = 0.039), but with
    three comparisons Holm's smallest adjusted p is 3 * 0.039 > 0.05: one group."""
    a = [True] * 8 + [False] + [True] * 11
    b = [False] * 8 + [True] + [True] * 11
    assert mcnemar(a, b, names=("A", "B")).better == "A"
    ranked = hierarchy({"A": a, "B": b, "C": list(b)})
    assert ranked.groups == (("A", "B", "C"),)
    assert ranked.comparison("A", "B").adjusted_p == pytest.approx(3 * 20 / 512)


def test_grouping_is_not_adjacent_merging() -> None:
    """A ~ B and B ~ C (5 vs 0 discordant each, p = 0.0625) but A > C (10 vs 0): the rule
    keeps every group free of significant pairs, so C opens a new group."""
    n = 100
    a = np.ones(n, dtype=bool)
    a[10:20] = False  # samples 10..19 wrong for everyone
    b = a.copy()
    b[:5] = False
    c = b.copy()
    c[5:10] = False
    ranked = hierarchy({"A": a, "B": b, "C": c})
    assert ranked.ordering == ("A", "B", "C")
    assert not ranked.comparison("A", "B").reject
    assert not ranked.comparison("B", "C").reject
    assert ranked.comparison("A", "C").reject
    assert ranked.comparison("A", "C").adjusted_p == pytest.approx(3 * 2 / 1024)
    assert ranked.groups == (("A", "B"), ("C",))
