"""The single-model stop rule: when a run (`--half-width`, `--threshold`) may stop asking.

    rule = SequentialRule(confidence=0.95, half_width=0.05, threshold=None)
    stop = first_stop(outcomes, rule)   # answered outcomes in index order
    stop.at, stop.lower, stop.upper, stop.reason

The bounds are the running intersection of the beta-binomial mixture confidence sequence
(:mod:`kgcert.stats.sequential`), valid at every t at once, so stopping at the first t where
the rule holds keeps the stated level. `Runner._cut` and `SequentialMonitor` (below: the
monitor that takes outcomes one batch at a time) both stop here, so a run and the monitor
cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kgcert.stats._checks import check_level
from kgcert.stats.binomial import Bounds
from kgcert.stats.sequential import (
    MIXTURE_CS,
    check_prior,
    mixture_cs_limits,
    running_intersection,
)

__all__ = ["SequentialMonitor", "SequentialRule", "SequentialState", "Stop", "first_stop",
           "stop_mask", "stop_reason"]

ABOVE, BELOW, HALF_WIDTH = "above", "below", "half-width"


@dataclass(frozen=True)
class SequentialRule:
    """Stop once the interval's half-width is at most `half_width`, or once it lies strictly
    above or below `threshold` (either may be None: that part never fires)."""

    confidence: float
    half_width: float | None = None
    threshold: float | None = None
    prior: tuple[float, float] = (1.0, 1.0)


@dataclass(frozen=True)
class Stop:
    """Where the rule first holds: `at` is the position in the outcomes given (None if it
    never holds), and the anytime-valid bounds there (else after the last outcome; [0, 1]
    with none)."""

    at: int | None
    lower: float
    upper: float
    reason: str | None


def stop_reason(lower: float, upper: float, rule: SequentialRule) -> str | None:
    """Why the rule holds for one interval (a threshold decision before precision), or None."""
    if rule.threshold is not None:
        if lower > rule.threshold:
            return ABOVE
        if upper < rule.threshold:
            return BELOW
    if rule.half_width is not None and (upper - lower) / 2 <= rule.half_width:
        return HALF_WIDTH
    return None


def stop_mask(lower: NDArray[np.float64], upper: NDArray[np.float64],
              rule: SequentialRule) -> NDArray[np.bool_]:
    """`stop_reason(...) is not None` for each interval of two arrays at once."""
    stop = np.zeros(np.shape(lower), dtype=bool)
    if rule.half_width is not None:
        stop |= (upper - lower) / 2 <= rule.half_width
    if rule.threshold is not None:
        stop |= (lower > rule.threshold) | (upper < rule.threshold)
    return stop


def first_stop(outcomes: Sequence[bool], rule: SequentialRule) -> Stop:
    """The first position at which the rule holds over the answered outcomes in index order,
    and the running-intersection bounds there."""
    if len(outcomes) == 0:
        return Stop(None, 0.0, 1.0, None)
    hits = np.cumsum(outcomes)
    trials = np.arange(1, len(outcomes) + 1)
    lower, upper = running_intersection(
        *mixture_cs_limits(hits, trials, 1 - rule.confidence, *rule.prior))
    stop = stop_mask(lower, upper, rule)
    at = int(np.argmax(stop)) if stop.any() else None
    where = len(outcomes) - 1 if at is None else at
    low, high = float(lower[where]), float(upper[where])
    return Stop(at, low, high, None if at is None else stop_reason(low, high, rule))


@dataclass(frozen=True)
class SequentialState:
    """The monitor's current interval and whether its stopping rule fires.

    ``bounds`` is the running-intersection CS at ``bounds.n`` trials (``sided`` two-sided,
    ``confidence`` 1 - delta, valid simultaneously over all t). ``reason`` is
    ``"half-width"`` (target precision reached), ``"above"`` (lower end > threshold),
    ``"below"`` (upper end < threshold) or None while sampling should go on.
    """

    bounds: Bounds
    reason: str | None

    @property
    def stop(self) -> bool:
        return self.reason is not None


class SequentialMonitor:
    """Consumes outcomes one at a time or in batches and reports the current CS.

    Stopping rule, checked after each batch: stop when the half-width is <= ``target_half_width``,
    or when the interval lies strictly above or strictly below ``threshold`` (a decision about
    "accuracy > threshold"). Either may be None. Because the CS holds at every t at once,
    stopping at the first time the rule fires keeps the 1 - delta guarantee, and so does
    ignoring the rule and carrying on. Outcomes are successes (True) and failures (False);
    map unparseable answers to False and leave API errors out, as in
    :mod:`kgcert.stats.outcomes`.
    """

    def __init__(
        self,
        delta: float = 0.05,
        *,
        target_half_width: float | None = None,
        threshold: float | None = None,
        prior: tuple[float, float] = (1.0, 1.0),
    ) -> None:
        self.delta = check_level(delta, "delta")
        if target_half_width is not None and not 0.0 < target_half_width <= 0.5:
            raise ValueError(f"target_half_width must be in (0, 0.5], got {target_half_width}")
        if threshold is not None and not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be strictly between 0 and 1, got {threshold}")
        self.target_half_width = target_half_width
        self.threshold = threshold
        self.prior = check_prior(*prior)
        self.rule = SequentialRule(1.0 - self.delta, target_half_width, threshold, self.prior)
        self.successes = 0
        self.trials = 0
        self._lower = 0.0
        self._upper = 1.0

    def update(self, outcome: bool) -> SequentialState:
        """Add one outcome and return the new state."""
        return self.extend([outcome])

    def extend(self, outcomes: Iterable[bool]) -> SequentialState:
        """Add a batch; the CS is evaluated after every outcome in it and intersected."""
        batch = np.asarray(list(outcomes))
        if batch.size == 0:
            return self.state
        if batch.ndim != 1 or (batch.dtype.kind != "b" and not np.all((batch == 0) | (batch == 1))):
            raise ValueError("outcomes must be booleans (or 0/1)")
        successes = self.successes + np.cumsum(batch.astype(np.int64))
        trials = self.trials + np.arange(1, batch.size + 1)
        lower, upper = mixture_cs_limits(successes, trials, self.delta, *self.prior)
        run_lo, run_hi = running_intersection(lower, upper, start=(self._lower, self._upper))
        self.successes = int(successes[-1])
        self.trials = int(trials[-1])
        self._lower = float(run_lo[-1])
        self._upper = float(run_hi[-1])
        return self.state

    @property
    def state(self) -> SequentialState:
        """Current interval and stopping verdict."""
        bounds = Bounds(
            k=self.successes,
            n=self.trials,
            confidence=1.0 - self.delta,
            lower=self._lower,
            upper=self._upper,
            method=MIXTURE_CS,
            sided="two-sided",
        )
        return SequentialState(bounds=bounds, reason=self._reason(bounds))

    def _reason(self, bounds: Bounds) -> str | None:
        if self.trials == 0:
            return None
        return stop_reason(bounds.lower, bounds.upper, self.rule)
