"""Clopper-Pearson exact binomial confidence bounds.

A kgcert certificate states that a model's accuracy on a prompt distribution lies in an
interval with a stated confidence. Clopper-Pearson is used because its coverage is at least
the nominal level for every true accuracy and every n (it inverts the two one-sided exact
binomial tests), whereas Wald, Wilson or Agresti-Coull intervals undercover for some (p, n),
most at accuracies near 0 or 1, which is where good models live.

Limits come from beta quantiles: the lower limit at level a is the a-quantile of
Beta(k, n - k + 1), the upper limit the (1 - a)-quantile of Beta(k + 1, n - k). At k = 0 and
k = n one of those betas is degenerate, so those limits are the closed forms 0, 1,
``1 - a**(1/n)`` and ``a**(1/n)`` (with a = delta/2 for two-sided intervals), written with
expm1/log so they stay exact for large n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # scipy.stats would add 1-2 s to every `kgcert plan`

from kgcert.stats._checks import Sided, as_count, check_level, check_sided

__all__ = ["Bounds", "clopper_pearson", "clopper_pearson_lower", "cp_limits"]

CLOPPER_PEARSON = "clopper-pearson"


@dataclass(frozen=True)
class Bounds:
    """A confidence statement about a success probability from ``k`` successes in ``n`` trials.

    ``sided`` is ``"two-sided"`` (both limits informative), ``"lower"`` (a one-sided lower
    bound; ``upper`` is 1) or ``"upper"`` (``lower`` is 0). ``method`` names the construction,
    so a report can say which guarantee a number carries. ``n == 0`` gives the vacuous
    interval [0, 1]: no data, no claim.
    """

    k: int
    n: int
    confidence: float
    lower: float
    upper: float
    method: str
    sided: Sided

    @property
    def estimate(self) -> float:
        """The observed proportion k/n (NaN when n is 0)."""
        return self.k / self.n if self.n else math.nan

    @property
    def half_width(self) -> float:
        """Half the interval length: the +/- figure a report quotes."""
        return (self.upper - self.lower) / 2.0

    def contains(self, p: float) -> bool:
        """Whether ``p`` lies in the closed interval."""
        return self.lower <= p <= self.upper


def _as_int_array(values: ArrayLike, name: str) -> NDArray[np.int64]:
    """Integer array from ``values``; refuses non-integral floats instead of truncating them."""
    raw = np.asarray(values)
    if raw.dtype.kind not in "iu":
        as_float = raw.astype(np.float64)
        if not np.all(np.isfinite(as_float)) or np.any(as_float != np.round(as_float)):
            raise ValueError(f"{name} must hold whole numbers")
    return raw.astype(np.int64)


def cp_limits(
    k: ArrayLike, n: ArrayLike, confidence: float = 0.95, sided: str = "two-sided"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Vectorised Clopper-Pearson limits for arrays of (k, n); returns (lower, upper).

    This is the one implementation: :func:`clopper_pearson` calls it with scalars, and
    planning and simulations call it with arrays so they do not loop in Python.
    """
    level = check_level(confidence, "confidence")
    side = check_sided(sided)
    k_arr, n_arr = np.broadcast_arrays(_as_int_array(k, "k"), _as_int_array(n, "n"))
    if np.any(n_arr < 0) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("need 0 <= k <= n")
    alpha = 1.0 - level
    tail = alpha / 2.0 if side == "two-sided" else alpha
    kf = k_arr.astype(np.float64)
    nf = n_arr.astype(np.float64)
    safe_n = np.maximum(nf, 1.0)
    log_tail = math.log(tail)

    lower = np.zeros(k_arr.shape, dtype=np.float64)
    upper = np.ones(k_arr.shape, dtype=np.float64)
    if side in ("two-sided", "lower"):
        inner = (k_arr > 0) & (k_arr < n_arr)
        # Degenerate parameters are replaced by 1 so scipy never sees them; np.where discards
        # those entries afterwards.
        # betaincinv(a, b, q) is the q-quantile of Beta(a, b) (stats.beta.ppf, bit for bit) and
        # betainccinv its (1 - q)-quantile (stats.beta.isf).
        lo = special.betaincinv(np.where(inner, kf, 1.0), np.where(inner, nf - kf + 1.0, 1.0),
                                tail)
        lower = np.where(inner, lo, lower)
        lower = np.where((k_arr == n_arr) & (n_arr > 0), np.exp(log_tail / safe_n), lower)
    if side in ("two-sided", "upper"):
        inner = (k_arr > 0) & (k_arr < n_arr)
        up = special.betainccinv(np.where(inner, kf + 1.0, 1.0), np.where(inner, nf - kf, 1.0),
                                 tail)
        upper = np.where(inner, up, upper)
        upper = np.where((k_arr == 0) & (n_arr > 0), -np.expm1(log_tail / safe_n), upper)
    return np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)


def clopper_pearson(k: int, n: int, confidence: float = 0.95, sided: str = "two-sided") -> Bounds:
    """Exact Clopper-Pearson bounds for ``k`` successes in ``n`` trials.

    Two-sided at ``confidence`` puts ``(1 - confidence) / 2`` in each tail; ``sided="lower"``
    puts all of ``1 - confidence`` below, which is what a certificate of the form "accuracy is
    at least L" needs (its L equals the two-sided lower limit at confidence ``2c - 1``).
    """
    k_int = as_count(k, "k")
    n_int = as_count(n, "n")
    if k_int > n_int:
        raise ValueError(f"k must be <= n, got k={k_int}, n={n_int}")
    side = check_sided(sided)
    lower, upper = cp_limits(k_int, n_int, confidence, side)
    return Bounds(
        k=k_int,
        n=n_int,
        confidence=float(confidence),
        lower=float(lower),
        upper=float(upper),
        method=CLOPPER_PEARSON,
        sided=side,
    )


def clopper_pearson_lower(k: int, n: int, confidence: float = 0.95) -> Bounds:
    """One-sided exact lower bound: accuracy >= ``lower`` with probability ``confidence``."""
    return clopper_pearson(k, n, confidence, sided="lower")
