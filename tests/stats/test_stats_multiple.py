"""Bonferroni-simultaneous bounds and Holm adjustment."""

from __future__ import annotations

import numpy as np
import pytest

from kgcert.stats import (
    bonferroni_confidence,
    clopper_pearson,
    cp_limits,
    holm_adjust,
    simultaneous_bounds,
)


def test_bonferroni_split() -> None:
    assert bonferroni_confidence(0.95, 1) == pytest.approx(0.95)
    assert bonferroni_confidence(0.95, 10) == pytest.approx(0.995)
    assert bonferroni_confidence(0.9, 4) == pytest.approx(0.975)
    with pytest.raises(ValueError):
        bonferroni_confidence(0.95, 0)


def test_simultaneous_bounds_use_the_split_level() -> None:
    counts = {"spec-a": (90, 100), "spec-b": (40, 50), "spec-c": (5, 10), "spec-d": (0, 20)}
    family = simultaneous_bounds(counts, confidence=0.95)
    assert family.m == 4
    assert family.per_spec_confidence == pytest.approx(0.9875)
    assert [name for name, _ in family.bounds] == list(counts)
    for name, (k, n) in counts.items():
        assert family[name] == clopper_pearson(k, n, 0.9875)
        assert family[name].lower <= clopper_pearson(k, n, 0.95).lower
    with pytest.raises(KeyError):
        family["missing"]
    with pytest.raises(ValueError):
        simultaneous_bounds({})


def test_simultaneous_coverage_by_simulation() -> None:
    """With 10 specs at p = 0.5, n = 50, per-spec 95% intervals miss jointly far more often
    than 5%, and the Bonferroni intervals do not."""
    rng = np.random.default_rng(7)
    m, n, draws, p = 10, 50, 2000, 0.5
    ks = rng.binomial(n, p, size=(draws, m))
    all_k = np.arange(n + 1)
    for confidence, joint_ok in ((0.95, False), (bonferroni_confidence(0.95, m), True)):
        lower, upper = cp_limits(all_k, n, confidence)
        any_miss = np.any((lower[ks] > p) | (upper[ks] < p), axis=1).mean()
        assert bool(any_miss <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / draws)) is joint_ok


def test_holm_reference_values() -> None:
    adjusted = holm_adjust([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx((0.03, 0.06, 0.06, 0.02))
    assert holm_adjust([0.5, 0.6]) == pytest.approx((1.0, 1.0))
    assert holm_adjust([]) == ()
    with pytest.raises(ValueError):
        holm_adjust([1.2])
