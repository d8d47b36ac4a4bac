"""A suite certificate's own content: which spec each sample drew, the indices whose first draw
was redrawn, and the mixture said in words (the suite itself is drawn by `kgcert.run.suite`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kgcert.rundir.outcomes import ANSWERED


def first_draw_skipped(record: Mapping[str, Any]) -> bool:
    """Whether a suite sample's first draw did not fit (its prompt is a redraw)."""
    extra = record.get("prompt", {}).get("provenance", {}).get("extra") or {}
    return bool(extra.get("suite_draw"))



def component_counts(records: Sequence[Mapping[str, Any]], suite: Mapping[str, Any]
                     ) -> list[dict[str, Any]]:
    """Per spec of the suite: prompts drawn, answered and correct, and the indices whose
    first draw was skipped and redrawn in that spec. Descriptive only: the certificate is
    about the mixture, and no bound is given per spec."""
    rows = {c["spec"]: {"spec": c["spec"], "weight": c["weight"], "drawn": 0, "answered": 0,
                        "correct": 0, "first_draw_skipped": 0} for c in suite["components"]}
    for record in records:
        row = rows.get(str(record.get("prompt", {}).get("provenance", {}).get("spec")))
        if row is None:
            continue
        row["drawn"] += 1
        row["first_draw_skipped"] += first_draw_skipped(record)
        row["answered"] += record["outcome"] in ANSWERED
        row["correct"] += record["outcome"] == "correct"
    return list(rows.values())


def describe(suite: Mapping[str, Any], redrawn: bool = True) -> str:
    """`suite NAME, the mixture of spec a (weight 0.5) and spec b (weight 0.5)`, and how
    weights by matches were counted. `redrawn`: the suite's skipped draws were drawn again
    within their spec (every certificate since suites did so; older ones say nothing)."""
    parts = [f"{c['spec']} (weight {c['weight']:.4g})" for c in suite["components"]]
    how = ""
    if suite.get("weighting") == "matches":
        counted = [f"{c['spec']} {'' if c['matches']['exact'] else 'about '}"
                   f"{c['matches']['count']:,.0f}" for c in suite["components"]]
        how = ("; the weights are each spec's share of the specs' matches in the KG, counted "
               f"before the first answer and fixed: {', '.join(counted)}")
    return (f"suite {suite['name']}, the mixture of spec{'s' if len(parts) > 1 else ''} "
            f"{', '.join(parts)} (each prompt draws a spec by its weight, then a prompt from "
            f"that spec{', drawn again within it until one fits' if redrawn else ''}{how})")
