"""Bounds that show what unparseable answers and failed calls do to a certificate.

A graded response is one of four outcomes (the values of ``kgcert.answer_format.checker.Outcome``):

* ``correct`` and ``wrong``: the model committed to an option;
* ``unparseable``: the model answered but no option could be read from it. The model did
  produce that text, so the headline bound counts it as wrong; a second bound excludes it, so
  a reader sees how much of the gap is formatting rather than knowledge;
* ``error``: the call itself failed (timeout, rate limit, server error). That is a fact about
  the API, not the model, so it is never counted as wrong: it is excluded from n in both
  bounds and reported separately. Excluding is only neutral if failures are unrelated to the
  prompt, which is why the count is always shown next to the bounds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kgcert.stats._checks import as_count
from kgcert.stats.binomial import Bounds, clopper_pearson

__all__ = ["OutcomeBounds", "OutcomeCounts", "outcome_bounds"]

_LABELS = ("correct", "wrong", "unparseable", "error", "refused")


@dataclass(frozen=True)
class OutcomeCounts:
    """Tally of graded responses by outcome."""

    correct: int
    wrong: int
    unparseable: int = 0
    error: int = 0
    refused: int = 0  # the model declined to answer: an answer, counted wrong

    def __post_init__(self) -> None:
        for label in _LABELS:
            object.__setattr__(self, label, as_count(getattr(self, label), label))

    @classmethod
    def from_outcomes(cls, outcomes: Iterable[object]) -> OutcomeCounts:
        """Count outcome labels: the strings above or ``Outcome`` members (of
        :mod:`kgcert.answer_format.checker`).

        Enum members are read through ``.value`` (a str-valued Enum does not hash like its
        string). An unknown label raises rather than being silently dropped.
        """
        tally = dict.fromkeys(_LABELS, 0)
        for outcome in outcomes:
            label = getattr(outcome, "value", outcome)
            if label not in tally:
                raise ValueError(f"unknown outcome {outcome!r}; expected one of {_LABELS}")
            tally[str(label)] += 1
        return cls(**tally)

    @property
    def answered(self) -> int:
        """Responses the model produced: correct + wrong + unparseable + refused (the
        headline n)."""
        return self.correct + self.wrong + self.unparseable + self.refused

    @property
    def parseable(self) -> int:
        """Responses with a committed option: correct + wrong."""
        return self.correct + self.wrong

    @property
    def total(self) -> int:
        """All requests, failed calls included."""
        return self.answered + self.error


@dataclass(frozen=True)
class OutcomeBounds:
    """The two bounds for one tally.

    ``headline``: k = correct, n = correct + wrong + unparseable (unparseable counted wrong).
    ``parseable_only``: k = correct, n = correct + wrong (unparseable excluded).
    Errors are in neither n; see ``errors``.
    """

    counts: OutcomeCounts
    headline: Bounds
    parseable_only: Bounds

    @property
    def errors(self) -> int:
        """Failed calls, excluded from both bounds."""
        return self.counts.error

    @property
    def unparseable(self) -> int:
        """Responses no option could be read from."""
        return self.counts.unparseable


def outcome_bounds(
    counts: OutcomeCounts, confidence: float = 0.95, sided: str = "two-sided"
) -> OutcomeBounds:
    """Clopper-Pearson bounds with unparseable answers counted wrong and excluded."""
    return OutcomeBounds(
        counts=counts,
        headline=clopper_pearson(counts.correct, counts.answered, confidence, sided),
        parseable_only=clopper_pearson(counts.correct, counts.parseable, confidence, sided),
    )
