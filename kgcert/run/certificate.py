"""Certificates: the bounds for one (spec, setting, model) with everything they rest on."""

from __future__ import annotations

import importlib.metadata
import platform
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from kgcert import __version__
from kgcert.stats import OutcomeCounts, outcome_bounds

LIBRARIES = ("neo4j", "numpy", "scipy", "torch", "transformers", "arcadedb-embedded", "httpx",
             "google-genai", "anthropic")
SKIPPED = "skipped"


def library_versions() -> dict[str, str]:
    versions = {"kgcert": __version__, "python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def outcome_counts(records: Iterable[Mapping[str, Any]]) -> tuple[OutcomeCounts, int]:
    """Counts over sample records; prompts skipped before reaching the model are apart."""
    tally = Counter(str(record["outcome"]) for record in records)
    counts = OutcomeCounts(correct=tally["correct"], wrong=tally["wrong"],
                           unparseable=tally["unparseable"], error=tally["error"])
    return counts, tally[SKIPPED]


def certificate(records: Sequence[Mapping[str, Any]], *, confidence: float,
                context: Mapping[str, Any],
                sequential_bounds: tuple[float, float] | None = None) -> dict[str, Any]:
    """The certificate JSON. Unparseable answers count as wrong in the headline bounds (a
    second pair excludes them); failed calls never count as wrong; skipped prompts are
    reported, not counted. Sequential runs report the anytime-valid mixture bounds, which
    stay valid however the stopping time was chosen."""
    counts, skipped = outcome_counts(records)
    bounds = outcome_bounds(counts, confidence=confidence)
    headline = bounds.headline
    body: dict[str, Any] = {
        **context,
        "k": headline.k,
        "n": headline.n,
        "confidence": confidence,
        "lower": headline.lower,
        "upper": headline.upper,
        "estimate": headline.estimate,
        "method": "clopper-pearson (two-sided)",
        "outcomes": {"correct": counts.correct, "wrong": counts.wrong,
                     "unparseable": counts.unparseable, "error": counts.error,
                     "skipped": skipped},
        "unparseable_excluded": {"k": bounds.parseable_only.k, "n": bounds.parseable_only.n,
                                 "lower": bounds.parseable_only.lower,
                                 "upper": bounds.parseable_only.upper},
        "libraries": library_versions(),
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if sequential_bounds is not None:
        lower, upper = sequential_bounds
        body.update(lower=lower, upper=upper,
                    method="beta-binomial mixture confidence sequence (anytime-valid)",
                    clopper_pearson_fixed_n={"lower": headline.lower, "upper": headline.upper})
    return body
