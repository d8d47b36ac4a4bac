"""Certificates: the bounds for one (spec, setting, model) with everything they rest on.

Three bounds on P(correct), all at the certificate's confidence:

* headline: k = correct, n = answered (unparseable answers and refusals counted wrong);
  conditioned on the prompt being built (fitting the budget) and on the model call succeeding;
* `unparseable_excluded`: k = correct, n = parseable answers; also conditioned on parseable;
* `unconditional`: a one-sided lower bound over every prompt drawn (skipped, failed,
  refused and unparseable counted wrong), valid without any of those conditionings. Its
  upper end would say nothing about accuracy (skips are not wrong answers), so it has none.

Each bound holds at the certificate's confidence; the three together at 1 - 3 delta
(`multiplicity` says so).

A fixed-n certificate uses Clopper-Pearson for all three. A sequential one, or one whose n
changed after it was first written (optional continuation), uses the anytime-valid mixture
confidence sequence for all three, each over its own stream in index order: each stream's
mixture martingale stays a martingale in the filtration of all records (a record outside the
stream leaves it unchanged), so Ville's inequality holds at any data-dependent stop.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import platform
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

import numpy as np

from kgcert import __version__
from kgcert.certify.positions import position_summary
from kgcert.certify.record import Certificate
from kgcert.certify.sentences import (
    chance_reading,
    guarantee_sentence,
    position_warning,
    warnings,
)
from kgcert.rundir.outcomes import ANSWERED, REFUSED, SKIPPED, UNPARSEABLE
from kgcert.stats import (
    OutcomeCounts,
    clopper_pearson,
    clopper_pearson_lower,
    mixture_cs_limits,
    running_intersection,
)

LIBRARIES = ("neo4j", "numpy", "scipy", "torch", "transformers", "arcadedb-embedded", "httpx",
             "google-genai", "anthropic")
SKIP_CAUSES = ("budget", "too few answer options", "no distractor fits")
CLOPPER_PEARSON = "clopper-pearson (two-sided, n fixed in advance)"
MIXTURE = "beta-binomial mixture confidence sequence (anytime-valid)"


def library_versions() -> dict[str, str]:
    return dict(_library_versions())


@lru_cache(maxsize=1)
def _library_versions() -> tuple[tuple[str, str], ...]:
    # Read once a process: each version parses its package's metadata (1 ms), and a run
    # writes a certificate per spec, setting and model.
    versions = {"kgcert": __version__, "python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return tuple(versions.items())


def outcome_counts(records: Iterable[Mapping[str, Any]]) -> tuple[OutcomeCounts, int]:
    """Counts over sample records; prompts skipped before reaching the model are apart."""
    tally = Counter(str(record["outcome"]) for record in records)
    counts = OutcomeCounts(correct=tally["correct"], wrong=tally["wrong"],
                           unparseable=tally["unparseable"], error=tally["error"],
                           refused=tally[REFUSED])
    return counts, tally[SKIPPED]


def skip_cause(reason: str | None) -> str:
    """Why a prompt was skipped, by cause: the budget, too few answer options, or no
    distractor that fits (distractor setting)."""
    text = (reason or "").lower()
    if "answer options" in text:
        return SKIP_CAUSES[1]
    if "distractor" in text:
        return SKIP_CAUSES[2]
    return SKIP_CAUSES[0]


def sequence_bounds(hits: Sequence[bool], delta: float) -> tuple[float, float]:
    """The running-intersection mixture confidence sequence after the last of `hits`."""
    if not hits:
        return 0.0, 1.0
    successes = np.cumsum(np.asarray(hits, dtype=np.int64))
    lower, upper = running_intersection(
        *mixture_cs_limits(successes, np.arange(1, len(hits) + 1), delta=delta))
    return float(lower[-1]), float(upper[-1])


def _bound(hits: Sequence[bool], confidence: float, anytime: bool) -> dict[str, Any]:
    k, n = int(sum(hits)), len(hits)
    if anytime:
        lower, upper = sequence_bounds(hits, 1 - confidence)
    else:
        fixed = clopper_pearson(k, n, confidence)
        lower, upper = fixed.lower, fixed.upper
    return {"k": k, "n": n, "lower": lower, "upper": upper,
            "estimate": k / n if n else None,  # null, never NaN: NaN is not JSON
            "method": MIXTURE if anytime else CLOPPER_PEARSON}


def _lower_bound(hits: Sequence[bool], confidence: float, anytime: bool) -> dict[str, Any]:
    """A one-sided lower bound (the sequence's lower end when anytime-valid)."""
    k, n = int(sum(hits)), len(hits)
    if anytime:
        lower = sequence_bounds(hits, 1 - confidence)[0]
    else:
        lower = clopper_pearson_lower(k, n, confidence).lower
    return {"k": k, "n": n, "lower": lower, "upper": 1.0, "sided": "lower",
            "estimate": k / n if n else None,
            "method": (MIXTURE + ", lower end" if anytime
                       else "clopper-pearson (one-sided lower, n fixed in advance)")}


def _unconditional_hits(records: Sequence[Mapping[str, Any]],
                        context: Mapping[str, Any]) -> list[bool]:
    """Per index, whether its first draw was answered correctly: a suite redraws a skipped
    prompt within its spec, and the unconditional bound counts that first draw as wrong."""
    if not context.get("suite"):
        return [r["outcome"] == "correct" for r in records]
    from kgcert.certify.suite_content import first_draw_skipped

    return [r["outcome"] == "correct" and not first_draw_skipped(r) for r in records]


def _suite_redraws(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A suite's indices whose first draw did not fit, by cause, and the draws it took."""
    firsts = [r["prompt"]["provenance"]["extra"]["suite_draw"] for r in records
              if r["outcome"] != SKIPPED and _redrawn(r)]
    causes = Counter(skip_cause(str(first["first_skipped"])) for first in firsts)
    return {"indices": len(firsts), "draws": sum(int(f["redraws"]) for f in firsts),
            "causes": {cause: causes[cause] for cause in SKIP_CAUSES if causes[cause]}}


def _redrawn(record: Mapping[str, Any]) -> bool:
    from kgcert.certify.suite_content import first_draw_skipped

    return first_draw_skipped(record)


def _provenance(record: Mapping[str, Any]) -> Mapping[str, Any]:
    return record.get("prompt", {}).get("provenance", {}) or {}


def _chance(records: Sequence[Mapping[str, Any]], context: Mapping[str, Any],
            lower: float, upper: float) -> dict[str, Any] | None:
    """Chance level 1/options and where the headline interval lies against it."""
    shown = [len(r.get("prompt", {}).get("options", ())) for r in records]
    options = int(context.get("options") or max(shown, default=0))
    answered = sum(1 for r in records if r["outcome"] in ANSWERED)
    if options < 2 or not answered:  # no claim, so nothing to set against chance
        return None
    return {"options": options, "level": 1 / options,
            "reading": chance_reading(lower, upper, options)}


def _conditioning(records: Sequence[Mapping[str, Any]], context: Mapping[str, Any],
                  counts: OutcomeCounts, skipped: int) -> dict[str, Any]:
    """Every condition the headline bound rests on, with the counts behind it."""
    drawn = len(records)
    reasons = Counter(str(r.get("skip_reason")) for r in records if r["outcome"] == SKIPPED)
    shown = [r for r in records if r["outcome"] != SKIPPED]
    redraws = sum(int(_provenance(r).get("rejected_prompts") or 0) for r in records)
    required = bool(context.get("distractors_required")) or redraws > 0
    with_distractor = sum(1 for r in shown if _provenance(r).get("distractors"))
    # a suite: the indices whose first draw was skipped and redrawn within its spec
    suite = {"suite_redraws": _suite_redraws(records)} if context.get("suite") else {}
    return {
        **suite,
        "budget": context.get("budget"),
        "drawn": drawn,
        "skipped": skipped,
        "skip_reasons": dict(reasons),
        "skip_causes": {cause: count for cause in SKIP_CAUSES
                        if (count := sum(n for reason, n in reasons.items()
                                         if skip_cause(reason) == cause))},
        "distractors_required": ({"redraws": redraws,
                                  "acceptance_rate": drawn / (drawn + redraws) if drawn else None}
                                 if required else None),
        "distractors_in_context": ({"prompts_with": with_distractor, "prompts_shown": len(shown)}
                                   if context.get("setting") == "distractor" else None),
        "errors_excluded": counts.error,
        "unparseable_counted_wrong": counts.unparseable,
        "refused_counted_wrong": counts.refused,
    }


def certificate(records: Sequence[Mapping[str, Any]], *, confidence: float,
                context: Mapping[str, Any], anytime: bool = False,
                validity: str | None = None) -> Certificate:
    """The certificate for `records` (every prompt drawn, in index order).

    `anytime` gives every bound from the mixture confidence sequence (sequential runs, and
    certificates extended after they were written); `validity` says why in the JSON."""
    counts, skipped = outcome_counts(records)
    answered = [r for r in records if r["outcome"] in ANSWERED]
    headline = _bound([r["outcome"] == "correct" for r in answered], confidence, anytime)
    parseable = _bound([r["outcome"] == "correct" for r in answered
                        if r["outcome"] not in (UNPARSEABLE, REFUSED)], confidence, anytime)
    unconditional = _lower_bound(_unconditional_hits(records, context), confidence, anytime)
    body: dict[str, Any] = {
        **context,
        "k": headline["k"],
        "n": headline["n"],
        "confidence": confidence,
        "lower": headline["lower"],
        "upper": headline["upper"],
        "estimate": headline["estimate"],
        "method": headline["method"],
        "validity": validity or ("anytime-valid" if anytime else "fixed n"),
        "outcomes": {"correct": counts.correct, "wrong": counts.wrong,
                     "unparseable": counts.unparseable, "refused": counts.refused,
                     "error": counts.error, "skipped": skipped},
        "multiplicity": {"bounds": 3, "each_at": confidence,
                         "jointly_at_least": max(0.0, 1 - 3 * (1 - confidence))},
        "unparseable_excluded": parseable,
        "unconditional": unconditional,
        "chance": _chance(records, context, headline["lower"], headline["upper"]),
        "conditioning": _conditioning(records, context, counts, skipped),
        "positions": position_summary(records, confidence=confidence),
        "libraries": library_versions(),
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if context.get("suite"):  # beside the mixture's bounds, never certified one by one
        from kgcert.certify.suite_content import component_counts

        body["suite_counts"] = {"certified": False,
                                "per_spec": component_counts(records, context["suite"])}
    body["flags"] = ["no_answers"] if headline["n"] == 0 else []
    cert = Certificate.from_dict(body)
    found = warnings(cert)
    degenerate = position_warning(cert.where, cert.positions)
    if degenerate:
        body["flags"].append("degenerate_choices")
        found.append(degenerate)
    body["warnings"] = found
    cert = Certificate.from_dict(body)
    return dataclasses.replace(cert, guarantee=guarantee_sentence(cert),
                               absent=cert.absent - {"guarantee"})
