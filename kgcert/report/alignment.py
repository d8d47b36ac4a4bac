"""Outcomes of several models (or of several variants of one model's setting) on the same
prompts, aligned by sample index, and their pairwise tests as JSON-ready data. Shared by the
model comparisons (kgcert.report.compare) and the variant comparisons
(kgcert.report.variants)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kgcert.rundir.outcomes import ANSWERED
from kgcert.stats import Hierarchy


@dataclass(frozen=True)
class Alignment:
    """Outcomes of several models on the same prompts, position i = sample `indices[i]`."""

    spec: str
    setting: str
    indices: tuple[int, ...]
    outcomes: dict[str, np.ndarray]  # model label -> correct (bool), aligned
    missing: int  # indices some model has not answered yet
    failed: int  # indices dropped because a call failed or the prompt was skipped
    mismatched: int  # indices whose prompt text differs between models

    @property
    def n(self) -> int:
        return len(self.indices)


def tests_dict(ranked: Hierarchy, what: str) -> dict[str, Any]:
    """The pairwise tests and the hierarchy as JSON-ready data (`what`: model or variant)."""
    return {
        "pairwise": [
            {f"{what}_a": item.test.model_a, f"{what}_b": item.test.model_b, "n": item.test.n,
             "b": item.test.b, "c": item.test.c, "p_value": item.test.p_value,
             # this pair's own test at alpha, before Holm: not a claim of the family
             "unadjusted_decision": item.test.decision, "holm_p": item.adjusted_p,
             "holm_reject": item.reject,
             "holm_decision": item.better if item.better is not None else "no decision"}
            for item in ranked.comparisons],
        "hierarchy": {
            "alpha": ranked.alpha, "ordering": list(ranked.ordering),
            "groups": [list(group) for group in ranked.groups],
            f"{what}s": [{"name": m.name, "correct": m.correct, "n": m.n,
                          "accuracy": m.accuracy, "group": m.group} for m in ranked.models],
        },
    }


def labelled(samples: pd.DataFrame) -> pd.DataFrame:
    """A `label` column: the model, or "model (run)" where one model appears in several runs
    for the same spec and setting."""
    runs_per_model = samples.groupby(["spec", "setting", "model"])["run"].transform("nunique")
    label = samples["model"].where(runs_per_model <= 1,
                                   samples["model"] + " (" + samples["run"] + ")")
    return samples.assign(label=label)


def align_rows(rows: pd.DataFrame, spec: str, setting: str, *, by: str,
               guard: str) -> Alignment:
    """Outcomes of the groups in column `by` (models, or settings of one model), aligned
    by sample index; an index whose `guard` (the prompt text's hash, or the drawn item's)
    differs between groups is dropped and counted."""
    outcome = rows.pivot(index="index", columns=by, values="outcome")
    prompt = rows.pivot(index="index", columns=by, values=guard)
    complete = outcome.notna().all(axis=1)
    answered = outcome.isin(ANSWERED).all(axis=1) & complete
    same_prompt = prompt.nunique(axis=1, dropna=False) == 1
    keep = answered & same_prompt
    kept = outcome[keep].sort_index()
    return Alignment(
        spec=spec, setting=setting, indices=tuple(int(i) for i in kept.index),
        outcomes={str(label): (kept[label] == "correct").to_numpy(dtype=bool)
                  for label in kept.columns},
        missing=int((~complete).sum()), failed=int((complete & ~answered).sum()),
        mismatched=int((answered & ~same_prompt).sum()))
