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
