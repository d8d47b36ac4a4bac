"""Unparseable answers counted both ways; failed calls never counted wrong."""

from __future__ import annotations

import pytest

from kgcert.answer_format.checker import Outcome
from kgcert.stats import OutcomeCounts, clopper_pearson, outcome_bounds


def test_unparseable_counted_wrong_and_excluded() -> None:
    result = outcome_bounds(OutcomeCounts(correct=80, wrong=10, unparseable=10, error=0))
    assert (result.headline.k, result.headline.n) == (80, 100)
    assert (result.parseable_only.k, result.parseable_only.n) == (80, 90)
    assert result.headline == clopper_pearson(80, 100)
    assert result.parseable_only == clopper_pearson(80, 90)
    assert result.headline.estimate == pytest.approx(0.80)
    assert result.parseable_only.estimate == pytest.approx(80 / 90)
    assert result.headline.lower < result.parseable_only.lower
    assert result.unparseable == 10


def test_errors_never_counted_wrong() -> None:
    clean = outcome_bounds(OutcomeCounts(correct=80, wrong=10, unparseable=10))
    failing = outcome_bounds(OutcomeCounts(correct=80, wrong=10, unparseable=10, error=500))
    assert failing.headline == clean.headline
    assert failing.parseable_only == clean.parseable_only
    assert failing.errors == 500
    assert failing.counts.total == 600
    # Counting the 500 failures as wrong would have given a very different certificate.
    assert failing.headline.upper < 0.9
    assert clopper_pearson(80, 600).upper < 0.2


def test_one_sided_and_confidence_pass_through() -> None:
    result = outcome_bounds(OutcomeCounts(9, 1, 0, 3), confidence=0.99, sided="lower")
    assert result.headline == clopper_pearson(9, 10, 0.99, sided="lower")
    assert result.headline.upper == 1.0


def test_all_failed_gives_vacuous_bounds() -> None:
    result = outcome_bounds(OutcomeCounts(correct=0, wrong=0, unparseable=0, error=20))
    assert (result.headline.lower, result.headline.upper) == (0.0, 1.0)
    assert result.errors == 20


def test_from_outcomes_reads_strings_and_checker_enum() -> None:
    labels = ["correct", Outcome.CORRECT, Outcome.WRONG, "unparseable", Outcome.ERROR, "error"]
    counts = OutcomeCounts.from_outcomes(labels)
    assert counts == OutcomeCounts(correct=2, wrong=1, unparseable=1, error=2)
    assert (counts.answered, counts.parseable, counts.total) == (4, 3, 6)
    with pytest.raises(ValueError, match="unknown outcome"):
        OutcomeCounts.from_outcomes(["correct", "timeout"])


def test_bad_counts_rejected() -> None:
    with pytest.raises(ValueError):
        OutcomeCounts(correct=-1, wrong=0)
    with pytest.raises(TypeError):
        OutcomeCounts(correct=1.0, wrong=0)  # type: ignore[arg-type]
