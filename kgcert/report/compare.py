"""Paired comparison of the models that answered the same prompts.

For every (spec, setting) that two or more models answered, the samples are aligned by index
(prompt i is the same prompt for every model of a run, and across runs with the same seed and
spec): only indices that every model answered are kept, and an index where any model's call
failed or the prompt was skipped is dropped for all (a failed call is not a wrong answer).
As a guard, an index whose prompt text differs between models is dropped too and counted.
Unparseable answers count as wrong, as in the certificates' headline bounds.

Each pair gets an exact McNemar test, and :func:`kgcert.stats.hierarchy` ranks the models
with Holm-corrected decisions and tie groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import numpy as np
import pandas as pd

from kgcert.errors import InputError
from kgcert.rundir.outcomes import ANSWERED
from kgcert.stats import Hierarchy, hierarchy, holm_adjust

if TYPE_CHECKING:
    from kgcert.report.variants import VariantComparison

FAMILIES = ("spec", "run")  # Holm within each (spec, setting), or over all of them at once


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


@dataclass(frozen=True)
class Comparison:
    alignment: Alignment
    hierarchy: Hierarchy | None  # None when no index is left to compare

    @property
    def spec(self) -> str:
        return self.alignment.spec

    @property
    def setting(self) -> str:
        return self.alignment.setting

    def adjusted(self, values: Sequence[float], alpha: float) -> Comparison:
        return Comparison(self.alignment, hierarchy(self.alignment.outcomes, alpha=alpha,
                                                    adjusted_p=values))

    def as_dict(self) -> dict[str, Any]:
        aligned = self.alignment
        body: dict[str, Any] = {
            "spec": aligned.spec, "setting": aligned.setting,
            "models": sorted(aligned.outcomes), "n": aligned.n,
            "dropped": {"missing": aligned.missing, "error_or_skipped": aligned.failed,
                        "prompt_mismatch": aligned.mismatched},
        }
        if self.hierarchy is None:
            body.update(pairwise=[], hierarchy=None)
            return body
        body.update(tests_dict(self.hierarchy, "model"))
        return body


def tests_dict(ranked: Hierarchy, what: str) -> dict[str, Any]:
    """The pairwise tests and the hierarchy as JSON-ready data (`what`: model or variant)."""
    return {
        "pairwise": [
            {f"{what}_a": item.test.model_a, f"{what}_b": item.test.model_b, "n": item.test.n,
             "b": item.test.b, "c": item.test.c, "p_value": item.test.p_value,
             "decision": item.test.decision, "holm_p": item.adjusted_p,
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


def align(samples: pd.DataFrame, spec: str, setting: str) -> Alignment:
    """The aligned outcomes of every model for one spec and setting."""
    rows = labelled(samples[(samples["spec"] == spec) & (samples["setting"] == setting)])
    return align_rows(rows, spec, setting, by="label", guard="prompt_sha")


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


def _checked(samples: pd.DataFrame, alpha: float, family: str, spec: str | None,
             setting: str | None) -> pd.DataFrame:
    """The samples of `spec` and `setting` (when given), after checking the arguments."""
    if family not in FAMILIES:
        raise InputError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be between 0 and 1, got {alpha}")
    chosen = samples
    for column, value in (("spec", spec), ("setting", setting)):
        if value is not None:
            if value not in set(samples[column]):
                known = ", ".join(sorted(str(v) for v in set(samples[column]))) or "none"
                raise InputError(f"no samples for {column} {value!r} (present: {known})")
            chosen = chosen[chosen[column] == value]
    if chosen.empty:
        raise InputError("no samples to compare")
    return chosen


def _model_comparisons(chosen: pd.DataFrame, alpha: float) -> list[Comparison]:
    counts = labelled(chosen).groupby(["spec", "setting"])["label"].nunique()
    pairs = [(str(s), str(x)) for (s, x), count in counts.items() if count >= 2]
    results = []
    for spec_name, setting_name in sorted(pairs):
        aligned = align(chosen, spec_name, setting_name)
        ranked = hierarchy(aligned.outcomes, alpha=alpha) if aligned.n else None
        results.append(Comparison(aligned, ranked))
    return results


def compare(samples: pd.DataFrame, *, alpha: float = 0.05, spec: str | None = None,
            setting: str | None = None, family: str = "spec") -> list[Comparison]:
    """Comparisons for every (spec, setting) that two or more models answered, optionally
    only those of `spec` and/or `setting`. InputError when there is nothing to compare.

    `family` "spec": Holm controls the family-wise error within each (spec, setting);
    "run": one Holm family over every pair of every (spec, setting) compared."""
    results = _model_comparisons(_checked(samples, alpha, family, spec, setting), alpha)
    if not results:
        raise InputError("nothing to compare: each spec and setting was answered by one model "
                         "only (compare needs two or more models on the same prompts)")
    if family == "run":
        return one_family(results, alpha)
    return results


def compare_all(samples: pd.DataFrame, *, alpha: float = 0.05, spec: str | None = None,
                setting: str | None = None, family: str = "spec",
                apart: Sequence[str] = ()
                ) -> tuple[list[Comparison], list[VariantComparison]]:
    """Models against each other (per spec and setting) and, per spec and model, the
    variants of a setting against each other (textualizations, real against pseudonymized
    names, prompting strategies: see kgcert.report.variants). `setting` keeps the model
    comparisons of that setting and the variant comparisons that include it. With
    `family` "run" one Holm family covers every pair of both. InputError when neither
    kind has anything to compare. The models of the runs in `apart` (run labels: runs made
    with per-model budgets) were certified on different prompts, so they are not compared."""
    from kgcert.report.variants import variant_comparisons

    chosen = _checked(samples, alpha, family, spec, setting)
    models = _model_comparisons(chosen[~chosen["run"].isin(list(apart))], alpha)
    of_spec = samples if spec is None else samples[samples["spec"] == spec]
    variants = [item for item in variant_comparisons(of_spec, alpha=alpha)
                if setting is None or setting in item.settings.values()]
    if not models and not variants:
        raise InputError("nothing to compare: no spec and setting was answered by two or more "
                         "models, and no model answered two variants of a setting (formats, "
                         "entity names or prompting strategies) on the same prompts")
    if family == "run":
        mixed: list[Ranked] = [*models, *variants]
        joint = one_family(mixed, alpha)
        return (cast("list[Comparison]", joint[:len(models)]),
                cast("list[VariantComparison]", joint[len(models):]))
    return models, variants


class Ranked(Protocol):
    """A comparison with a hierarchy that can be recomputed with other Holm p-values."""

    @property
    def hierarchy(self) -> Hierarchy | None: ...

    def adjusted(self, values: Sequence[float], alpha: float) -> Ranked: ...


R = TypeVar("R", bound=Ranked)


def one_family(results: Sequence[R], alpha: float) -> list[R]:
    """The same tests, Holm-adjusted together across every comparison given."""
    raw = [item.test.p_value for c in results if c.hierarchy for item in c.hierarchy.comparisons]
    adjusted = iter(holm_adjust(raw))
    joint: list[R] = []
    for c in results:
        if c.hierarchy is None:
            joint.append(c)
            continue
        values = [next(adjusted) for _ in c.hierarchy.comparisons]
        joint.append(cast(R, c.adjusted(values, alpha)))
    return joint


def family_statement(family: str, comparisons: Sequence[Ranked]) -> str:
    pairs = sum(len(c.hierarchy.comparisons) for c in comparisons if c.hierarchy)
    if family == "run":
        return (f"one Holm family: all {pairs} pairs over {len(comparisons)} comparisons "
                "together")
    return ("one Holm family per comparison (per spec and setting for models; per spec, "
            "model and held-fixed parts for variants); no correction across them (use "
            f"--family run for one family over all {pairs} pairs)")


def compare_json(comparisons: Sequence[Comparison], *, alpha: float,
                 runs: Sequence[str] = (), family: str = "spec",
                 variants: Sequence[VariantComparison] = ()) -> dict[str, Any]:
    return {"alpha": alpha, "runs": list(runs), "family": family,
            "family_statement": family_statement(family, [*comparisons, *variants]),
            "method": "exact McNemar per pair; Holm-corrected hierarchy with tie groups",
            "comparisons": [item.as_dict() for item in comparisons],
            "variants": [item.as_dict() for item in variants]}
