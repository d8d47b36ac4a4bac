"""Clopper-Pearson bounds: reference values, the defining tail equations, coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from kgcert.stats import Bounds, clopper_pearson, clopper_pearson_lower, cp_limits


def test_reference_values() -> None:
    zero = clopper_pearson(0, 10)
    assert zero.lower == 0.0
    assert zero.upper == pytest.approx(1 - 0.025 ** (1 / 10), abs=1e-15)
    assert zero.upper == pytest.approx(0.30850, abs=5e-6)

    half = clopper_pearson(5, 10)
    assert half.lower == pytest.approx(0.18709, abs=5e-6)
    assert half.upper == pytest.approx(0.81291, abs=5e-6)

    full = clopper_pearson(10, 10)
    assert full.lower == pytest.approx(0.025 ** (1 / 10), abs=1e-15)
    assert full.upper == 1.0

    # R: binom.test(1, 10)$conf.int
    one = clopper_pearson(1, 10)
    assert one.lower == pytest.approx(0.002528579, abs=1e-9)
    assert one.upper == pytest.approx(0.445016117, abs=1e-9)


def test_record_fields() -> None:
    bounds = clopper_pearson(7, 20, confidence=0.9)
    assert (bounds.k, bounds.n, bounds.confidence) == (7, 20, 0.9)
    assert bounds.method == "clopper-pearson"
    assert bounds.sided == "two-sided"
    assert bounds.estimate == pytest.approx(0.35)
    assert bounds.half_width == pytest.approx((bounds.upper - bounds.lower) / 2)
    assert bounds.contains(0.35) and not bounds.contains(0.99)
    with pytest.raises(AttributeError):
        bounds.lower = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(("k", "n"), [(1, 10), (3, 7), (50, 100), (99, 100), (1, 1000)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.999])
def test_limits_solve_the_defining_tail_equations(k: int, n: int, confidence: float) -> None:
    """P(X >= k | lower) = P(X <= k | upper) = (1 - confidence) / 2: the definition itself."""
    bounds = clopper_pearson(k, n, confidence)
    tail = (1 - confidence) / 2
    assert stats.binom.sf(k - 1, n, bounds.lower) == pytest.approx(tail, rel=1e-8)
    assert stats.binom.cdf(k, n, bounds.upper) == pytest.approx(tail, rel=1e-8)


def test_edges_stay_exact_for_large_n() -> None:
    n = 10**7
    assert clopper_pearson(0, n).upper == pytest.approx(-math.expm1(math.log(0.025) / n), rel=1e-12)
    assert clopper_pearson(n, n).lower == pytest.approx(math.exp(math.log(0.025) / n), rel=1e-15)
    assert clopper_pearson(0, n).upper == pytest.approx(3.6889e-7, rel=1e-4)


def test_no_data_is_vacuous() -> None:
    bounds = clopper_pearson(0, 0)
    assert (bounds.lower, bounds.upper) == (0.0, 1.0)
    assert math.isnan(bounds.estimate)


def test_one_sided_relationships() -> None:
    for k, n in [(0, 10), (3, 10), (80, 100), (100, 100)]:
        one = clopper_pearson_lower(k, n, 0.95)
        assert one.sided == "lower" and one.upper == 1.0
        # A one-sided bound at c is the two-sided limit at 2c - 1 ...
        assert one.lower == pytest.approx(clopper_pearson(k, n, 0.90).lower, abs=1e-14)
        # ... so it is tighter than the two-sided lower limit at the same c.
        assert one.lower >= clopper_pearson(k, n, 0.95).lower
        upper = clopper_pearson(k, n, 0.95, sided="upper")
        assert upper.lower == 0.0
        assert upper.upper == pytest.approx(clopper_pearson(k, n, 0.90).upper, abs=1e-14)
    assert clopper_pearson_lower(10, 10).lower == pytest.approx(0.05 ** (1 / 10))


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((11, 10), ValueError),
        ((-1, 10), ValueError),
        ((1.5, 10), TypeError),
        ((True, 10), TypeError),
    ],
)
def test_bad_counts(args: tuple[object, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        clopper_pearson(*args)  # type: ignore[arg-type]


def test_bad_levels_and_sides() -> None:
    for confidence in (0.0, 1.0, 1.5, float("nan")):
        with pytest.raises(ValueError):
            clopper_pearson(1, 2, confidence)
    with pytest.raises(ValueError):
        clopper_pearson(1, 2, sided="left")
    with pytest.raises(ValueError):
        cp_limits([0.5], [2])


def test_vectorised_matches_scalar() -> None:
    ns = np.array([1, 5, 10, 10, 10, 250, 1000])
    ks = np.array([0, 5, 0, 3, 10, 125, 999])
    for sided in ("two-sided", "lower", "upper"):
        lower, upper = cp_limits(ks, ns, 0.9, sided)
        for i, (k, n) in enumerate(zip(ks, ns, strict=True)):
            bounds = clopper_pearson(int(k), int(n), 0.9, sided)
            assert (lower[i], upper[i]) == (bounds.lower, bounds.upper)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=2000),
    frac=st.floats(min_value=0, max_value=1),
    confidence=st.floats(min_value=0.5, max_value=0.999),
)
def test_monotone_nested_and_symmetric(n: int, frac: float, confidence: float) -> None:
    k = min(n - 1, math.floor(frac * n))
    here = clopper_pearson(k, n, confidence)
    after = clopper_pearson(k + 1, n, confidence)
    assert 0.0 <= here.lower <= k / n <= here.upper <= 1.0
    # One more success moves both limits up (strictly: the intervals are distinct).
    assert here.lower < after.lower and here.upper < after.upper
    # A higher confidence gives a wider interval that contains the narrower one.
    wider = clopper_pearson(k, n, min(0.9999, confidence + 0.0005))
    assert wider.lower <= here.lower and wider.upper >= here.upper
    # Relabelling successes as failures mirrors the interval.
    mirror = clopper_pearson(n - k, n, confidence)
    assert mirror.lower == pytest.approx(1 - here.upper, abs=1e-12)
    assert mirror.upper == pytest.approx(1 - here.lower, abs=1e-12)
    # More trials with the same successes lowers the upper limit.
    assert clopper_pearson(k, n + 1, confidence).upper < here.upper


P_GRID = (0.05, 0.2, 0.5, 0.8, 0.95, 0.99)


def test_simulated_coverage_at_n_100() -> None:
    """Empirical coverage of the 95% interval over 2,000 binomial draws per p.

    The slack is three binomial standard errors of a coverage estimate at the nominal level,
    sqrt(0.95 * 0.05 / 2000) * 3 = 0.0146, so a correct interval fails this with probability
    about 0.1% per p; an interval with true coverage 0.93 fails it almost surely.
    """
    rng = np.random.default_rng(20240611)
    draws, n = 2000, 100
    all_k = np.arange(n + 1)
    lower, upper = cp_limits(all_k, n, 0.95)
    slack = 3 * math.sqrt(0.95 * 0.05 / draws)
    for p in P_GRID:
        ks = rng.binomial(n, p, size=draws)
        covered = (lower[ks] <= p) & (p <= upper[ks])
        assert covered.mean() >= 0.95 - slack, p


def test_exact_coverage_is_at_least_nominal() -> None:
    """Coverage computed exactly (sum of binomial pmf over covering k) on a fine grid of p."""
    for n in (10, 100):
        all_k = np.arange(n + 1)
        lower, upper = cp_limits(all_k, n, 0.95)
        for p in np.linspace(0.001, 0.999, 400):
            covering = (lower <= p) & (p <= upper)
            assert stats.binom.pmf(all_k[covering], n, p).sum() >= 0.95 - 1e-12


def test_bounds_is_exported_type() -> None:
    assert isinstance(clopper_pearson(1, 2), Bounds)
