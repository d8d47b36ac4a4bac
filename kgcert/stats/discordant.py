"""Anytime-valid comparison of two models on the prompts where exactly one of them is right.

On prompt i, A and B answer the same text. Write p10 = P(A right, B wrong) and
p01 = P(A wrong, B right); accuracy(A) - accuracy(B) = p10 - p01. The exact McNemar test
answers "p10 = p01?" once, at an n fixed in advance. Here the question is asked after every
prompt and the comparison may stop as soon as it is decided, so it needs a test that holds at
any data-dependent stopping time: an e-process.

Construction, for the one-sided null H_up: "A is not better" (p10 <= p01). For a fixed bet
q' in (1/2, 1), the factor (2 q')^[A won] (2 (1 - q'))^[B won] (1 on concordant prompts) has
conditional expectation 1 + (2 q' - 1)(p10 - p01) <= 1 under H_up, so the running product is a
nonnegative supermartingale. Mixing q' uniformly over (1/2, 1) keeps that, and after W prompts
A won and L prompts B won the mixture is

    E_up(W, L) = 2^(W + L + 1) * integral_{1/2}^{1} q^W (1 - q)^L dq
               = 2^(W + L + 1) * B(W + 1, L + 1) * I_{1/2}(L + 1, W + 1),

with I the regularized incomplete beta function (1 - I_x(a, b) = I_{1-x}(b, a)). Ville's
inequality gives P(sup_t E_up >= 1/x) <= x under H_up. E_down(W, L) = E_up(L, W) tests "B is
not better". Their mean E = (E_up + E_down) / 2 is a nonnegative martingale with mean 1 when
the two models are equally accurate (p10 = p01), so p = min(1, 1 / max_s E_s) is an
anytime-valid p-value for "equal accuracy"; its running minimum never rises, so a rejection,
once made, holds. :mod:`kgcert.stats.racing` applies Holm to these p-values across pairs.

- V. Vovk, R. Wang (2021), "E-values: calibration, combination and applications", Annals of
  Statistics 49(3).
- A. Ramdas, P. Grunwald, V. Vovk, G. Shafer (2023), "Game-theoretic statistics and
  safe anytime-valid inference", Statistical Science 38(4).

Tables: E depends only on (W, L), both at most n, so a run (or a simulation of ten thousand
runs) looks it up in an (n + 1) x (n + 1) table computed once, for n up to TABLE_MAX_N; above
that the table would not fit in memory (n = 10^8 asks for 71 PiB), and each lookup computes
its entries instead.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = ["TABLE_MAX_N", "DiscordantTable", "log_e_up", "mixture_limit_table", "mixture_limits"]

_LOG2 = math.log(2.0)
# (n + 1)^2 float64 entries: 34 MB per table at this n; runs default to n = 250
TABLE_MAX_N = 2048


def log_e_up(wins: ArrayLike, losses: ArrayLike) -> NDArray[np.float64]:
    """log E_up(W, L): evidence that A beats B after A won W and lost L discordant prompts.

    Defined for real W, L >= 0 (the stopping code projects fractional counts)."""
    w = np.asarray(wins, dtype=np.float64)
    lo = np.asarray(losses, dtype=np.float64)
    if np.any(w < 0) or np.any(lo < 0):
        raise ValueError("discordant counts must not be negative")
    with np.errstate(divide="ignore"):
        tail = np.log(special.betainc(lo + 1.0, w + 1.0, 0.5))
    return np.asarray((w + lo + 1.0) * _LOG2 + special.betaln(w + 1.0, lo + 1.0) + tail,
                      dtype=np.float64)


class DiscordantTable:
    """log E_up for every W, L <= n (log E_down is its transpose)."""

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        self.n = n
        counts = np.arange(n + 1, dtype=np.float64)
        self.log_up = (log_e_up(counts[:, None], counts[None, :]) if n <= TABLE_MAX_N
                       else None)  # above: computed at each lookup

    def up(self, wins: NDArray[np.int64], losses: NDArray[np.int64]) -> NDArray[np.float64]:
        if self.log_up is None:
            return log_e_up(wins, losses)
        return np.asarray(self.log_up[wins, losses], dtype=np.float64)

    def down(self, wins: NDArray[np.int64], losses: NDArray[np.int64]) -> NDArray[np.float64]:
        return self.up(losses, wins)


def mixture_limits(n: int, delta: float, successes: NDArray[np.int64],
                   trials: NDArray[np.int64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The (lower, upper) ends of the mixture confidence sequence at these counts (trials at
    most n): looked up in `mixture_limit_table` up to TABLE_MAX_N, else computed."""
    if n <= TABLE_MAX_N:
        lower, upper = mixture_limit_table(n, delta)
        return lower[successes, trials], upper[successes, trials]
    from kgcert.stats.sequential import mixture_cs_limits

    lo, hi = mixture_cs_limits(successes, trials, delta)
    return np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


@lru_cache(maxsize=8)
def mixture_limit_table(n: int, delta: float) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ends of the beta-binomial mixture confidence sequence for every (successes, trials)
    with trials <= n, as (lower, upper) arrays indexed [successes, trials] (entries with
    successes > trials are unused). Not intersected over time: each entry is a valid
    (1 - delta) sequence on its own, so a lookup at the current counts is anytime-valid."""
    from kgcert.stats.sequential import mixture_cs_limits

    trials = np.arange(n + 1)
    s, t = np.meshgrid(np.arange(n + 1), trials, indexing="ij")
    valid = s <= t
    lower = np.zeros((n + 1, n + 1))
    upper = np.ones((n + 1, n + 1))
    lo, hi = mixture_cs_limits(s[valid], t[valid], delta)
    lower[valid], upper[valid] = lo, hi
    return lower, upper
