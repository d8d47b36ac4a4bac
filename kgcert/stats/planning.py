"""Sample-size planning: how many prompts a Clopper-Pearson certificate of a given width needs.

The plan answers "how many prompts so that the 95% interval is +/- 0.05?" for a guessed
accuracy p (default 0.5, the worst case: the widest interval at a given n). It is computed
with the exact Clopper-Pearson interval, not the normal approximation n = z^2 p(1-p)/w^2,
which is too small (CP is wider than Wald, and much wider near p = 0 or 1).

Choice of k: the half-width is evaluated at the typical outcome k = floor(n p + 1/2) (p*n
rounded half up, so p = 0.5 and odd n give the upper middle count; by symmetry the lower one
has the same width). This is a plug-in for the expected half-width, not its expectation over
Binomial(n, p); a run whose observed accuracy is closer to 0.5 than p will come out wider.

Choice of n: the plug-in half-width is not monotone in n (k jumps when n p crosses a half;
at small p it dips below the target while k is still 0, then rises when k becomes 1). The
plan is therefore the smallest n such that this n *and every larger n* meet the target, so
overshooting the plan never makes the interval too wide. That is decidable because a
Hoeffding bound caps every CP half-width: U - k/n and k/n - L are each at most
sqrt(log(2/alpha) / (2n)) for every k (alpha = 1 - confidence), so past
n_max = ceil(log(2/alpha) / (2 w^2)) every n meets the target, and the search scans 1..n_max
with vectorised beta quantiles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kgcert.stats._checks import as_count, check_level
from kgcert.stats.binomial import Bounds, clopper_pearson, cp_limits

__all__ = ["SamplePlan", "plan_sample_size", "plan_sequential_size", "planned_half_width",
           "typical_count"]

_CHUNK = 1 << 18


def _check_p(p: float) -> float:
    value = float(p)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    return value


def typical_count(n: int, p: float) -> int:
    """The k the plan evaluates at: floor(n p + 1/2)."""
    return math.floor(as_count(n, "n") * _check_p(p) + 0.5)


def planned_half_width(n: int, p: float = 0.5, confidence: float = 0.95) -> float:
    """Two-sided Clopper-Pearson half-width at ``n`` trials and k = floor(n p + 1/2)."""
    n_int = as_count(n, "n")
    return clopper_pearson(typical_count(n_int, p), n_int, confidence).half_width


def _half_widths(ns: NDArray[np.int64], p: float, confidence: float) -> NDArray[np.float64]:
    ks = np.floor(ns * p + 0.5).astype(np.int64)
    lower, upper = cp_limits(ks, ns, confidence)
    return (upper - lower) / 2.0


@dataclass(frozen=True)
class SamplePlan:
    """The planned n and the interval it is expected to give (at k = floor(n p + 1/2))."""

    n: int
    target_half_width: float
    confidence: float
    p: float
    expected: Bounds


def plan_sample_size(
    target_half_width: float, confidence: float = 0.95, p: float = 0.5
) -> SamplePlan:
    """Smallest n from which on the planned CP half-width is <= ``target_half_width``."""
    width = float(target_half_width)
    if not 0.0 < width < 0.5:
        raise ValueError(f"target_half_width must be in (0, 0.5), got {target_half_width}")
    level = check_level(confidence, "confidence")
    guess = _check_p(p)
    n_max = math.ceil(math.log(2.0 / (1.0 - level)) / (2.0 * width * width))
    last_failure = 0
    for start in range(1, n_max + 1, _CHUNK):
        ns = np.arange(start, min(start + _CHUNK, n_max + 1), dtype=np.int64)
        failing = np.flatnonzero(_half_widths(ns, guess, level) > width)
        if failing.size:
            last_failure = int(ns[failing[-1]])
    n = last_failure + 1
    expected = clopper_pearson(typical_count(n, guess), n, level)
    if expected.half_width > width:  # the Hoeffding cap guarantees this cannot happen
        raise AssertionError(f"plan search failed at n={n}")
    return SamplePlan(n=n, target_half_width=width, confidence=level, p=guess, expected=expected)


def _sequence_cap(width: float, delta: float) -> int:
    """The n from which every Beta(1, 1) mixture-sequence half-width is <= `width`.

    Inside C_t, M_t(p) < 1/delta; since M_t(p) >= exp(t KL(k/t, p)) / (t + 1) and
    KL >= 2 (k/t - p)^2 (Pinsker), both ends lie within sqrt(log((t + 1)/delta) / (2t)) of
    k/t, a cap that decreases in t; doubling then bisection finds where it meets `width`.
    """
    def cap(t: int) -> float:
        return math.sqrt(math.log((t + 1) / delta) / (2.0 * t))

    high = 2
    while cap(high) > width:
        high *= 2
    low = high // 2
    while low + 1 < high:
        middle = (low + high) // 2
        if cap(middle) > width:
            low = middle
        else:
            high = middle
    return high


def plan_sequential_size(
    target_half_width: float, confidence: float = 0.95, p: float = 0.5
) -> SamplePlan:
    """Smallest n from which on the Beta(1, 1) mixture confidence sequence (what sequential
    runs report) has half-width <= ``target_half_width`` at k = floor(n p + 1/2): the most
    samples a sequential run stopping at that half-width needs when the accuracy is near p."""
    from kgcert.stats.sequential import MIXTURE_CS, mixture_cs_limits

    width = float(target_half_width)
    if not 0.0 < width < 0.5:
        raise ValueError(f"target_half_width must be in (0, 0.5), got {target_half_width}")
    level = check_level(confidence, "confidence")
    guess = _check_p(p)
    delta = 1.0 - level
    ns = np.arange(1, _sequence_cap(width, delta) + 1, dtype=np.int64)
    ks = np.floor(ns * guess + 0.5).astype(np.int64)
    lower, upper = mixture_cs_limits(ks, ns, delta=delta)
    failing = np.flatnonzero((upper - lower) / 2.0 > width)
    n = int(ns[failing[-1]]) + 1 if failing.size else 1
    k = typical_count(n, guess)
    low, high = mixture_cs_limits(k, n, delta=delta)
    expected = Bounds(k=k, n=n, confidence=level, lower=float(low), upper=float(high),
                      method=MIXTURE_CS, sided="two-sided")
    return SamplePlan(n=n, target_half_width=width, confidence=level, p=guess, expected=expected)
