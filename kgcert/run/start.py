"""A run's start: its design settled against what its directory already holds.

A new run draws its seed (unless one is given) and fixes its budget; a resume takes both from
run.yaml and is refused, in one line naming the field, if it would change the design; with
`--new-design` the change is recorded (design.json) and spends its own share of delta.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.run.budget import check_windows, resolve_parts
from kgcert.run.design import (
    changed_fields,
    draw_seed,
    entry_for,
    read_designs,
    record_design,
    refusal,
)
from kgcert.run.suite_weights import keep_counted_weights
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.run_spec import RunSpec

# What a new design may change: the samples stay valid answers to the same prompts.
STATISTICAL = ("n", "confidence", "sequential", "simultaneous", "extendable", "models",
               "until", "margin", "race")


def saved_spec(run_dir: Path) -> RunSpec | None:
    """run.yaml of `run_dir`; one written before runs had one budget kept per-model budgets
    (the prompts its samples hold)."""
    return _as_recorded(RunDir(RunLayout(run_dir)).read_run_spec())


def _as_recorded(saved: RunSpec | None) -> RunSpec | None:
    if saved is None:
        return None
    return saved.with_budget_mode("per-model") if saved.older_budget else saved


def settle(spec: RunSpec, run_dir: Path, *, seed_given: bool, new_design: bool
           ) -> tuple[RunSpec, RunSpec | None]:
    """The run's spec with its seed and recorded budget, and run.yaml's (None: a new run).
    Refuses a resume that changes the design without `--new-design`."""
    recorded = RunDir(RunLayout(run_dir)).read_run_spec()
    saved = _as_recorded(recorded)
    older = recorded is not None and recorded.older_budget
    if saved is None:
        if seed_given:
            return spec, None
        return spec.with_seed(draw_seed(), "drawn"), None
    if not seed_given:
        spec = spec.with_seed(saved.seed.value, saved.seed.source)
    if saved.budget.per_model and spec.budget.mode == "run" and older:
        # an older run: its samples hold per-model prompts
        spec = spec.with_budget_mode("per-model")
    spec = keep_counted_weights(spec, saved)
    if _same_budget(saved, spec):
        spec = spec.with_budget_parts(saved.budget.parts)
    changed = changed_fields(saved, spec)
    if changed and not new_design:
        raise InputError(refusal(run_dir, saved, spec, changed))
    asked = [name for name in changed if name not in STATISTICAL]
    if asked:
        raise InputError(f"--new-design may change how samples are counted "
                         f"({', '.join(STATISTICAL)}), not what is asked: "
                         f"{', '.join(asked)} would change the prompts or answers the samples "
                         f"in {run_dir} hold; use another --out")
    return spec, saved


def _same_budget(saved: RunSpec, spec: RunSpec) -> bool:
    """Whether the budget settings (mode, character budget, token cap, answer room) are the
    recorded ones, so the budget resolved at the run's start still holds."""
    return (saved.budget.mode == spec.budget.mode
            and saved.prompts.prompt_budget.limit == spec.prompts.prompt_budget.limit
            and saved.budget.context_tokens == spec.budget.context_tokens
            and saved.generation.max_new_tokens == spec.generation.max_new_tokens)


def fix_budget(spec: RunSpec, models: Sequence[tuple[str, Any]]) -> RunSpec:
    """The run's budget resolved (if not recorded yet) and every model checked against it."""
    if spec.budget.per_model:
        return spec
    parts = spec.budget.parts or resolve_parts(spec, models)
    check_windows(spec, parts, models)
    return spec.with_budget_parts(parts)


def record_start(run_dir: Path, spec: RunSpec, saved: RunSpec | None,
                 confidence: float) -> None:
    """run.yaml (every model the run has had) and the design history."""
    recorded = spec
    # models added later join the record, unless they are a family (Bonferroni, a race)
    if saved is not None and not spec.design.simultaneous and spec.design.until is None:
        recorded = spec.with_models(tuple(dict.fromkeys((*saved.models.names,
                                                          *spec.models.names))))
    if saved is not None and not read_designs(run_dir):  # a run older than design records
        record_design(run_dir, entry_for(saved, saved.design.confidence, "start"))
    RunDir(RunLayout(run_dir)).write_run_spec(recorded)
    record_design(run_dir, entry_for(spec, confidence,
                                     "start" if saved is None else "new design"))
