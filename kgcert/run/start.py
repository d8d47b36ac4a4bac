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
from kgcert.run.config import RunConfig
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
BUDGET_FIELDS = ("budget", "context_chars", "context_tokens", "max_new_tokens")


def saved_config(run_dir: Path) -> RunConfig | None:
    """run.yaml of `run_dir`; one written before runs had one budget kept per-model budgets
    (the prompts its samples hold)."""
    return saved_config_of(RunDir(RunLayout(run_dir)).read_run_spec())


def saved_config_of(saved: RunSpec | None) -> RunConfig | None:
    if saved is None:
        return None
    config = saved.to_config()
    return config.model_copy(update={"budget": "per-model"}) if saved.older_budget else config


def settle(config: RunConfig, run_dir: Path, *, seed_given: bool, new_design: bool
           ) -> tuple[RunConfig, RunConfig | None]:
    """The run's config with its seed and recorded budget, and run.yaml's (None: a new run).
    Refuses a resume that changes the design without `--new-design`."""
    recorded = RunDir(RunLayout(run_dir)).read_run_spec()
    saved = saved_config_of(recorded)
    older = recorded is not None and recorded.older_budget
    if saved is None:
        if seed_given:
            return config, None
        return config.model_copy(update={"seed": draw_seed(), "seed_source": "drawn"}), None
    update: dict[str, Any] = {}
    if not seed_given:
        update.update(seed=saved.seed, seed_source=saved.seed_source)
    if saved.budget == "per-model" and config.budget == "run" and older:
        update["budget"] = "per-model"  # an older run: its samples hold per-model prompts
    config = keep_counted_weights(config.model_copy(update=update), saved)
    if all(getattr(saved, f) == getattr(config, f) for f in BUDGET_FIELDS):
        config = config.model_copy(update={"run_budget": saved.run_budget})
    changed = changed_fields(saved, config)
    if changed and not new_design:
        raise InputError(refusal(run_dir, saved, config, changed))
    asked = [name for name in changed if name not in STATISTICAL]
    if asked:
        raise InputError(f"--new-design may change how samples are counted "
                         f"({', '.join(STATISTICAL)}), not what is asked: "
                         f"{', '.join(asked)} would change the prompts or answers the samples "
                         f"in {run_dir} hold; use another --out")
    return config, saved


def fix_budget(config: RunConfig, models: Sequence[tuple[str, Any]]) -> RunConfig:
    """The run's budget resolved (if not recorded yet) and every model checked against it."""
    if config.budget == "per-model":
        return config
    parts = config.run_budget or resolve_parts(config, models)
    check_windows(config, parts, models)
    return config.model_copy(update={"run_budget": parts})


def record_start(run_dir: Path, config: RunConfig, saved: RunConfig | None,
                 confidence: float) -> None:
    """run.yaml (every model the run has had) and the design history."""
    recorded = config
    # models added later join the record, unless they are a family (Bonferroni, a race)
    if saved is not None and not config.simultaneous and config.until is None:
        models = tuple(dict.fromkeys((*saved.models, *config.models)))
        recorded = config.model_copy(update={"models": models})
    if saved is not None and not read_designs(run_dir):  # a run older than design records
        record_design(run_dir, entry_for(saved, saved.confidence, "start"))
    RunDir(RunLayout(run_dir)).write_run_spec(RunSpec.from_config(recorded))
    record_design(run_dir, entry_for(config, confidence,
                                     "start" if saved is None else "new design"))
