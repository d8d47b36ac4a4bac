"""Anytime-valid confidence sequence for a Bernoulli mean (the monitor and its stop rule that
use it: `kgcert.stats.stopping`).

Why: a Clopper-Pearson interval is valid at one sample size fixed in advance. Looking at it
after every answer and stopping once it is narrow enough (or clears a threshold) inflates the
miss rate well above delta. A confidence sequence (CS) is a sequence of intervals C_t with
P(p in C_t for every t >= 1) >= 1 - delta, so it may be checked after every answer and the
evaluation stopped at any data-dependent time.

Construction: the beta-binomial mixture martingale (Robbins 1970; the conjugate-mixture
method of Howard, Ramdas, McAuliffe & Sekhon 2021). With S_t successes in t trials and a
Beta(a, b) mixing distribution over alternatives q,

    M_t(p) = integral of q^S (1-q)^(t-S) dBeta(a, b)(q) / (p^S (1-p)^(t-S))
           = B(a + S_t, b + t - S_t) / B(a, b) / (p^S_t (1-p)^(t-S_t)),

a mixture of likelihood ratios, hence a nonnegative martingale with mean 1 when p is the true
mean. Ville's inequality gives P(exists t: M_t(p) >= 1/delta) <= delta, so
C_t = {p : M_t(p) < 1/delta} is a (1 - delta) CS. log M_t(p) is convex in p with its minimum
(<= 0) at the MLE S_t/t, so C_t is an interval whose two ends are the roots of
log M_t(p) = log(1/delta) on either side of the MLE; they are found by vectorised bisection
(an end is 0 when S_t = 0 and 1 when S_t = t). The running intersection of C_1..C_t is again a
(1 - delta) CS (on the event that every C_t holds, so does their intersection) and is what the
monitor reports. The default Beta(1, 1) (uniform) mixture does not favour any accuracy; a and
b may be set to concentrate power where the accuracy is expected.

- H. Robbins (1970), "Statistical methods related to the law of the iterated logarithm",
  Annals of Mathematical Statistics 41(5), 1397-1409.
- S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon (2021), "Time-uniform, nonparametric,
  nonasymptotic confidence sequences", Annals of Statistics 49(2), 1055-1080.

Why not a library: ``confseq`` (Howard's package) is the maintained implementation, but its
latest release (0.0.11, January 2023) is an sdist only: installing it compiles a C++ extension
with scikit-build/CMake against Boost headers (not present here) and pulls matplotlib, pandas,
pytest and multiprocess in at run time. Making ``pip install kgcert`` need a C++ toolchain for
some forty lines of scipy is not worth it, so the construction is implemented here.

Price of anytime validity: at the same delta, the CS is wider than a fixed-n Clopper-Pearson
interval at the same t (roughly a log t term is added to log(1/delta)); the benchmark
``benchmarks/bench_stats.py`` measures the sample cost.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from kgcert.stats._checks import check_level

__all__ = [
    "MIXTURE_CS",
    "log_mixture_martingale",
    "mixture_cs_limits",
    "running_intersection",
]

MIXTURE_CS = "beta-binomial mixture confidence sequence"

# Bisection halves a bracket of length <= 1 each step; 64 steps take it below 1e-19, past
# double precision for every root, including the tiny lower ends when S_t is 1 or 2.
_BISECTION_STEPS = 64


def check_prior(a: float, b: float) -> tuple[float, float]:
    a_f, b_f = float(a), float(b)
    if not (a_f > 0.0 and b_f > 0.0 and math.isfinite(a_f) and math.isfinite(b_f)):
        raise ValueError(f"mixture parameters must be positive and finite, got a={a}, b={b}")
    return a_f, b_f


def _counts(
    successes: ArrayLike, trials: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    s_arr, t_arr = np.broadcast_arrays(
        np.asarray(successes, dtype=np.float64), np.asarray(trials, dtype=np.float64)
    )
    if np.any(s_arr < 0) or np.any(s_arr > t_arr) or np.any(s_arr != np.round(s_arr)):
        raise ValueError("need whole-number successes with 0 <= successes <= trials")
    if np.any(t_arr != np.round(t_arr)):
        raise ValueError("trials must be whole numbers")
    return s_arr, t_arr


def log_mixture_martingale(
    successes: ArrayLike, trials: ArrayLike, p: ArrayLike, a: float = 1.0, b: float = 1.0
) -> NDArray[np.float64]:
    """log M_t(p) for the Beta(a, b) mixture, elementwise over broadcast arrays.

    p must be in (0, 1) unless the matching count makes the term vanish (p = 0 with no
    successes, p = 1 with no failures).
    """
    a_f, b_f = check_prior(a, b)
    s_arr, t_arr = _counts(successes, trials)
    p_arr = np.asarray(p, dtype=np.float64)
    failures = t_arr - s_arr
    log_mixture = special.betaln(a_f + s_arr, b_f + failures) - special.betaln(a_f, b_f)
    log_likelihood = special.xlogy(s_arr, p_arr) + special.xlog1py(failures, -p_arr)
    return np.asarray(log_mixture - log_likelihood, dtype=np.float64)


def mixture_cs_limits(
    successes: ArrayLike,
    trials: ArrayLike,
    delta: float = 0.05,
    a: float = 1.0,
    b: float = 1.0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ends of C_t = {p : M_t(p) < 1/delta} for each (successes, trials); returns (lower, upper).

    Not intersected over time: pass cumulative counts and use :func:`running_intersection` for
    the tighter sequence. Each end is the bisection bracket's outer point, so the returned
    interval contains C_t (conservative by less than 1e-19). trials = 0 gives [0, 1].
    """
    level = check_level(delta, "delta")
    a_f, b_f = check_prior(a, b)
    s_arr, t_arr = _counts(successes, trials)
    failures = t_arr - s_arr
    # g(p) = log M_t(p) - log(1/delta); C_t = {g < 0}. g is convex with g(MLE) < 0.
    offset = special.betaln(a_f + s_arr, b_f + failures) - special.betaln(a_f, b_f)
    offset = offset + math.log(level)
    mle = np.divide(s_arr, t_arr, out=np.full(s_arr.shape, 0.5), where=t_arr > 0)

    def g(p: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(
            offset - special.xlogy(s_arr, p) - special.xlog1py(failures, -p), dtype=np.float64
        )

    # Lower end: g decreases on (0, MLE]; keep g(lo) >= 0 (outside) and g(hi) < 0 (inside).
    lo = np.zeros(s_arr.shape)
    hi = mle.copy()
    # Upper end: g increases on [MLE, 1); keep g(lo_u) < 0 and g(hi_u) >= 0.
    lo_u = mle.copy()
    hi_u = np.ones(s_arr.shape)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        outside = g(mid) >= 0.0
        lo = np.where(outside, mid, lo)
        hi = np.where(outside, hi, mid)
        mid_u = 0.5 * (lo_u + hi_u)
        outside_u = g(mid_u) >= 0.0
        hi_u = np.where(outside_u, mid_u, hi_u)
        lo_u = np.where(outside_u, lo_u, mid_u)
    # No successes: p = 0 is inside (g(0) = offset < 0), so the lower end is 0; same at 1.
    lower = np.where((s_arr == 0) | (t_arr == 0), 0.0, lo)
    upper = np.where((failures == 0) | (t_arr == 0), 1.0, hi_u)
    return np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)


def running_intersection(
    lower: ArrayLike, upper: ArrayLike, start: tuple[float, float] = (0.0, 1.0)
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Intersect C_1..C_t along the last axis, starting from the interval ``start``.

    If the intersection would become empty (possible only on the probability <= delta event
    that some C_t missed p, or if the data are not i.i.d. Bernoulli), the current C_t alone is
    kept from that step on, so the reported interval is never empty; any choice there is
    valid, since the coverage guarantee is only about the complementary event.
    """
    lo_arr = np.atleast_1d(np.asarray(lower, dtype=np.float64))
    hi_arr = np.atleast_1d(np.asarray(upper, dtype=np.float64))
    if lo_arr.shape != hi_arr.shape:
        raise ValueError("lower and upper must have the same shape")
    shape = lo_arr.shape
    rows_lo = lo_arr.reshape(-1, shape[-1])
    rows_hi = hi_arr.reshape(-1, shape[-1])
    lo_run = np.maximum.accumulate(np.maximum(rows_lo, start[0]), axis=-1)
    hi_run = np.minimum.accumulate(np.minimum(rows_hi, start[1]), axis=-1)
    for row in np.flatnonzero(np.any(lo_run > hi_run, axis=-1)):
        current_lo, current_hi = start
        for step in range(shape[-1]):
            new_lo = max(current_lo, float(rows_lo[row, step]))
            new_hi = min(current_hi, float(rows_hi[row, step]))
            if new_lo > new_hi:
                new_lo, new_hi = float(rows_lo[row, step]), float(rows_hi[row, step])
            current_lo, current_hi = new_lo, new_hi
            lo_run[row, step] = new_lo
            hi_run[row, step] = new_hi
    return lo_run.reshape(shape), hi_run.reshape(shape)
