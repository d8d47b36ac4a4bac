"""A run's design: every choice fixed before its first answer, hashed into each certificate.

The design is what a certificate's validity rests on: specs, settings and prompt options, the
budget, the seed, the confidence, n or the stop rule, the Bonferroni family, and in a run
compared with `--until` its models (the race's Holm family is over their pairs). A resume may
add models to other runs (they answer the same prompts) and change batching or caching,
nothing else; changing the design needs `--new-design`, which is recorded in `design.json`
and spends its own delta.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kgcert.rundir.design_record import DesignEntry
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.run_spec import RunSpec, design_fields, design_hash

__all__ = ["DesignEntry", "changed_fields", "design_fields", "design_hash", "draw_seed",
           "entry_for", "read_designs", "record_design", "refusal"]


def draw_seed() -> int:
    """A fresh seed for a run that names none (recorded, so a resume draws the same)."""
    return secrets.randbelow(2**31 - 1)


def changed_fields(saved: RunSpec, spec: RunSpec) -> list[str]:
    before, after = design_fields(saved), design_fields(spec)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def refusal(run_dir: Path, saved: RunSpec, spec: RunSpec, changed: list[str]) -> str:
    """One line naming each field a resume would change."""
    before, after = design_fields(saved), design_fields(spec)
    shown = "; ".join(f"{name} was {_short(before.get(name))}, now {_short(after.get(name))}"
                      for name in changed)
    if changed == ["race"]:
        return (f"{run_dir} compares its models with --until, and another set of models "
                f"({shown}) makes another race with another Holm family, whose claims would "
                "replace the earlier ones; use --new-design to record it (the earlier "
                "comparisons are kept and the joint level of both is stated), or another --out")
    return (f"{run_dir} was designed before its first answer and a resume cannot change that "
            f"design ({shown}); use another --out for a new run, or --new-design to record a "
            "new design that spends its own share of delta")


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def read_designs(run_dir: Path) -> list[DesignEntry]:
    return RunDir(RunLayout(run_dir)).read_designs()


def entry_for(spec: RunSpec, confidence: float, reason: str) -> DesignEntry:
    design = spec.design
    return DesignEntry(spec.design_hash(), confidence, design.n, design.sequential is not None,
                       design.extendable, reason,
                       datetime.now(timezone.utc).isoformat(timespec="seconds"))


def record_design(run_dir: Path, entry: DesignEntry) -> list[DesignEntry]:
    """Append `entry` unless the run's last design is the same one; returns the history."""
    return RunDir(RunLayout(run_dir)).record_design(entry)
