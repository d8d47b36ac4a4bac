"""A run's design: every choice fixed before its first answer, hashed into each certificate.

The design is what a certificate's validity rests on: specs, settings and prompt options, the
budget, the seed, the confidence, n or the stop rule, the Bonferroni family, and in a run
compared with `--until` its models (the race's Holm family is over their pairs). A resume may
add models to other runs (they answer the same prompts) and change batching or caching,
nothing else; changing the design needs `--new-design`, which is recorded in `design.json`
and spends its own delta.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.run.config import RunConfig
from kgcert.rundir.layout import RunLayout

# Not part of the design: models may be added (they answer the same prompts), batching and
# caching change no answer, how the seed came about is reported, not hashed, and where the
# spec files were found is not what they say (the spec hashes are); prices change no answer.
OUTSIDE = ("models", "model_options", "batch_size", "cache", "seed_source", "specs_dirs",
           "prices")


def design_fields(config: RunConfig) -> dict[str, Any]:
    body = config.model_dump(mode="json", exclude=set(OUTSIDE))
    for name in ("suite", "until", "margin"):  # older runs hash as they did before these
        if body.get(name) is None:
            body.pop(name, None)
    if config.extendable:  # declared before the first answer: n may grow later
        body.pop("n")
    if config.simultaneous:  # the Bonferroni family counts the models
        body["models"] = list(config.models)
    if config.until is not None:  # the race's Holm family is over the pairs of its models
        body["race"] = sorted(config.models)
    return body


def design_hash(config: RunConfig) -> str:
    body = json.dumps(design_fields(config), sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def draw_seed() -> int:
    """A fresh seed for a run that names none (recorded, so a resume draws the same)."""
    return secrets.randbelow(2**31 - 1)


def changed_fields(saved: RunConfig, config: RunConfig) -> list[str]:
    before, after = design_fields(saved), design_fields(config)
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def refusal(run_dir: Path, saved: RunConfig, config: RunConfig, changed: list[str]) -> str:
    """One line naming each field a resume would change."""
    before, after = design_fields(saved), design_fields(config)
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


@dataclass(frozen=True)
class DesignEntry:
    """One design of a run: its hash, the per-certificate confidence it was run at, its n
    and why it began (the run's start, or `--new-design`)."""

    hash: str
    confidence: float
    n: int
    sequential: bool
    extendable: bool
    reason: str
    started_at: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def read_designs(run_dir: Path) -> list[DesignEntry]:
    path = RunLayout(run_dir).design_file
    if not path.exists():
        return []
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
        return [DesignEntry(**entry) for entry in loaded["designs"]]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise InputError(f"{path} is not a design record; the file was edited or damaged") from None


def entry_for(config: RunConfig, confidence: float, reason: str) -> DesignEntry:
    return DesignEntry(design_hash(config), confidence, config.n, config.sequential is not None,
                       config.extendable, reason,
                       datetime.now(timezone.utc).isoformat(timespec="seconds"))


def record_design(run_dir: Path, entry: DesignEntry) -> list[DesignEntry]:
    """Append `entry` unless the run's last design is the same one; returns the history."""
    from kgcert.rundir.atomic import write_json

    designs = read_designs(run_dir)
    if not designs or designs[-1].hash != entry.hash:
        designs.append(entry)
        write_json(RunLayout(run_dir).design_file, {"designs": [d.as_dict() for d in designs]})
    return designs
