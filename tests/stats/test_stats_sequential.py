"""Beta-binomial mixture confidence sequence: roots, time-uniform coverage, the monitor."""

from __future__ import annotations

import math

import numpy as np
import pytest

from kgcert.stats import (
    MIXTURE_CS,
    SequentialMonitor,
    clopper_pearson,
    cp_limits,
    log_mixture_martingale,
    mixture_cs_limits,
    running_intersection,
)

P_GRID = (0.05, 0.2, 0.5, 0.8, 0.95, 0.99)


def test_ends_solve_the_boundary_equation() -> None:
    successes = np.array([1, 3, 5, 50, 250, 999, 7])
    trials = np.array([10, 10, 10, 100, 500, 1000, 7])
    level = math.log(20)
    inner_low = successes > 0
    inner_up = successes < trials
    lower, upper = mixture_cs_limits(successes, trials, 0.05)
    assert np.allclose(log_mixture_martingale(successes, trials, lower)[inner_low], level)
    assert np.allclose(log_mixture_martingale(successes, trials, upper)[inner_up], level)
    assert np.all(upper[~inner_up] == 1.0)
    for a, b in ((1.0, 1.0), (0.5, 0.5), (2.0, 5.0)):
        lower, upper = mixture_cs_limits(successes, trials, 0.05, a, b)
        # Each end is outside (or on) the boundary, and a hair inward is inside: the ends
        # are conservative and as tight as doubles allow. (With Beta(2, 5) and 999/1000 the
        # true upper end is within 1e-16 of 1, so a closeness test on log M would fail.)
        at_lower = log_mixture_martingale(successes, trials, lower, a, b)[inner_low]
        at_upper = log_mixture_martingale(successes, trials, upper, a, b)[inner_up]
        assert np.all(at_lower >= level - 1e-12) and np.all(at_upper >= level - 1e-12)
        in_lower = log_mixture_martingale(successes, trials, lower + 1e-12, a, b)[inner_low]
        in_upper = log_mixture_martingale(successes, trials, upper - 1e-12, a, b)[inner_up]
        assert np.all(in_lower < level) and np.all(in_upper < level)
        # The MLE is always inside, where the mixture is below 1.
        mle = successes / trials
        assert np.all((lower < mle) | ~inner_low) and np.all((mle < upper) | ~inner_up)
        assert np.all(log_mixture_martingale(successes, trials, mle, a, b) <= 0.0)


def test_closed_form_with_no_successes() -> None:
    """Uniform mixture, S = 0: M_t(p) = 1 / ((t + 1)(1 - p)^t), so the upper end is
    1 - (delta / (t + 1))^(1/t)."""
    for t in (1, 10, 100, 5000):
        lower, upper = mixture_cs_limits(0, t, 0.05)
        assert lower == 0.0
        assert upper == pytest.approx(1 - (0.05 / (t + 1)) ** (1 / t), rel=1e-12)


def test_no_data_is_vacuous() -> None:
    lower, upper = mixture_cs_limits(0, 0)
    assert (float(lower), float(upper)) == (0.0, 1.0)


def test_price_of_anytime_validity_is_bounded() -> None:
    """The CS is wider than the fixed-n CP interval, but not absurdly (half-width at
    t = 500, S = 250: CP 0.044, CS about 0.077)."""
    lower, upper = mixture_cs_limits(250, 500, 0.05)
    cs_half = (upper - lower) / 2
    cp_half = clopper_pearson(250, 500).half_width
    assert cp_half < cs_half < 2 * cp_half
    assert 0.07 < cs_half < 0.085


def _streams(rng: np.random.Generator, p: float, streams: int, length: int):
    outcomes = rng.random((streams, length)) < p
    return np.cumsum(outcomes, axis=1), np.arange(1, length + 1)


def test_time_uniform_coverage() -> None:
    """300 streams of 500 Bernoulli(p) outcomes per p: the fraction of streams on which p
    is *ever* outside the CS must be <= delta plus three binomial standard errors
    (0.05 + 3 * sqrt(0.05 * 0.95 / 300) = 0.088)."""
    rng = np.random.default_rng(2021)
    streams, length, delta = 300, 500, 0.05
    slack = 3 * math.sqrt(delta * (1 - delta) / streams)
    for p in P_GRID:
        successes, trials = _streams(rng, p, streams, length)
        lower, upper = mixture_cs_limits(successes, trials, delta)
        ever_out = np.any((lower > p) | (upper < p), axis=1)
        assert ever_out.mean() <= delta + slack, p
        # Same event read straight off the martingale: Ville's crossing of 1/delta.
        crossed = np.any(log_mixture_martingale(successes, trials, p) >= math.log(1 / delta), 1)
        assert np.array_equal(ever_out, crossed)
        # Intersecting over time does not change whether p was ever excluded.
        run_lo, run_hi = running_intersection(lower, upper)
        assert np.array_equal(np.any((run_lo > p) | (run_hi < p), axis=1), ever_out)


def test_pointwise_intervals_fail_the_same_check() -> None:
    """The check above has teeth: 95% Clopper-Pearson intervals looked at after every
    outcome exclude the true p at some time on far more than 5% of streams."""
    rng = np.random.default_rng(2022)
    p = 0.5
    successes, trials = _streams(rng, p, 300, 500)
    lower, upper = cp_limits(successes, np.broadcast_to(trials, successes.shape), 0.95)
    ever_out = np.any((lower > p) | (upper < p), axis=1).mean()
    assert ever_out > 0.2


def test_monitor_one_at_a_time_equals_batches() -> None:
    rng = np.random.default_rng(3)
    outcomes = list(rng.random(300) < 0.7)
    single = SequentialMonitor(0.05)
    states = [single.update(bool(x)) for x in outcomes]
    batched = SequentialMonitor(0.05)
    batched.extend(outcomes[:120])
    batched.extend(outcomes[120:121])
    final = batched.extend(np.array(outcomes[121:]))
    assert final.bounds == states[-1].bounds
    assert final.bounds.k == sum(outcomes) and final.bounds.n == 300
    assert final.bounds.method == MIXTURE_CS and final.bounds.confidence == pytest.approx(0.95)
    lowers = [s.bounds.lower for s in states]
    uppers = [s.bounds.upper for s in states]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True)
    # The running intersection is at least as tight as the current C_t.
    lower, upper = mixture_cs_limits(final.bounds.k, 300)
    assert final.bounds.lower >= lower and final.bounds.upper <= upper


def test_monitor_stops_on_half_width() -> None:
    monitor = SequentialMonitor(0.05, target_half_width=0.1)
    assert not monitor.state.stop and monitor.state.bounds.half_width == 0.5
    rng = np.random.default_rng(4)
    while not (state := monitor.update(bool(rng.random() < 0.5))).stop:
        assert state.bounds.half_width > 0.1
    assert state.reason == "half-width" and state.bounds.half_width <= 0.1
    assert 200 < state.bounds.n < 600


def test_monitor_threshold_decisions() -> None:
    above = SequentialMonitor(0.05, threshold=0.6)
    state = above.extend([True] * 12)
    assert state.reason == "above" and state.bounds.lower > 0.6
    # With uniform mixture and S = t: lower end is (delta / (t + 1))^(1/t); find the first t.
    first = next(t for t in range(1, 100) if (0.05 / (t + 1)) ** (1 / t) > 0.6)
    fresh = SequentialMonitor(0.05, threshold=0.6)
    stops = [fresh.update(True).stop for _ in range(first)]
    assert stops == [False] * (first - 1) + [True]

    below = SequentialMonitor(0.05, threshold=0.3)
    rng = np.random.default_rng(8)
    state = below.extend(rng.random(400) < 0.1)
    assert state.reason == "below" and state.bounds.upper < 0.3


def test_running_intersection_resets_when_empty() -> None:
    lower, upper = running_intersection([0.1, 0.5, 0.2], [0.9, 0.6, 0.3])
    assert list(lower) == [0.1, 0.5, 0.2] and list(upper) == [0.9, 0.6, 0.3]
    lower, upper = running_intersection([[0.1, 0.2], [0.3, 0.1]], [[0.9, 0.8], [0.7, 0.9]])
    assert lower.tolist() == [[0.1, 0.2], [0.3, 0.3]]
    assert upper.tolist() == [[0.9, 0.8], [0.7, 0.7]]


def test_bad_inputs() -> None:
    with pytest.raises(ValueError):
        SequentialMonitor(0.0)
    with pytest.raises(ValueError):
        SequentialMonitor(target_half_width=0.0)
    with pytest.raises(ValueError):
        SequentialMonitor(threshold=1.0)
    with pytest.raises(ValueError):
        SequentialMonitor(prior=(0.0, 1.0))
    with pytest.raises(ValueError):
        SequentialMonitor().extend([0, 2])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        mixture_cs_limits(5, 4)
