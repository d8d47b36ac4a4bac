"""Read run directories into pandas DataFrames: one row per certificate, one per sample.

    runs = load_runs([Path("runs/a"), Path("runs/b")])
    runs.certificates  # spec, setting, model, k, n, lower, upper, ... (CERTIFICATE_COLUMNS)
    runs.samples       # run, spec, setting, model, index, outcome, correct, ... (SAMPLE_COLUMNS)

Reading never changes a run: a sample file whose last line is cut short (a run killed, or
still writing) is read without that line, and the file is left as it is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from kgcert.certify.record import COUNTED, Certificate, Cost
from kgcert.errors import InputError
from kgcert.rundir.layout import RunLayout, check_run_dir
from kgcert.rundir.run_dir import RunDir, run_dir_of
from kgcert.rundir.sample_record import SampleRecord, SampleResponse
from kgcert.specs.kind import recorded_kind

BASELINE = "baseline"  # the setting of the paper's static baseline prompts

CERTIFICATE_COLUMNS = (
    "run", "spec", "setting", "model", "spec_kind", "textualization", "k", "n", "lower",
    "upper", "estimate", "confidence", "method", "correct", "wrong", "unparseable", "error",
    "skipped", "excluded_k", "excluded_n", "excluded_lower", "excluded_upper", "baseline",
    "sequential", "simultaneous", "kg", "kg_fingerprint", "spec_hash", "spec_file", "seed",
    "samples_requested", "samples_recorded", "chance", "unconditional_lower",
    "unconditional_upper", "guarantee", "file", "calls", "cache_hits", "tokens", "wall_s",
    "gpu_s", "money_usd", "calls_saved",
)
SAMPLE_COLUMNS = (
    "run", "spec", "setting", "model", "index", "spec_kind", "outcome", "answered", "correct",
    "parsed_option", "correct_option", "chosen_id", "answer_id", "chosen_role", "path_length",
    "textualization", "task", "template", "exact_correct", "flexible_correct", "distractors",
    "latency_s", "prompt_tokens", "completion_tokens", "cached", "spec_hash", "prompt_sha",
    "item_sha",
)
_INTEGER_COLUMNS = ("parsed_option", "correct_option", "path_length", "template",
                    "prompt_tokens", "completion_tokens")
_BOOLEAN_COLUMNS = ("exact_correct", "flexible_correct", "cached")


@dataclass(frozen=True)
class RunInfo:
    """One run directory: its label in the tables, its path and its run file (if any)."""

    label: str
    path: Path
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSet:
    runs: tuple[RunInfo, ...]
    certificates: pd.DataFrame
    samples: pd.DataFrame

    @property
    def specs(self) -> list[str]:
        names = set(self.certificates["spec"]) | set(self.samples["spec"])
        return sorted(str(name) for name in names)


def _labels(paths: Sequence[Path]) -> list[str]:
    """Directory names, or the paths as given where two runs share a name."""
    names = [path.resolve().name or str(path) for path in paths]
    if len(set(names)) == len(names):
        return names
    return [str(path) for path in paths]


def _read_config(path: Path) -> dict[str, Any]:
    return RunDir(RunLayout(path)).run_settings()


def iter_records(run: RunDir, path: Path) -> Iterator[SampleRecord]:
    """The complete records of one of `run`'s sample files (a torn last line is skipped, not
    removed)."""
    for _, record in run.sample_records(path):
        yield record


def certificate_row(cert: Certificate, run: str, file: str) -> dict[str, Any]:
    excluded = cert.unparseable_excluded
    setting = cert.setting
    return {
        "run": run, "spec": cert.spec, "setting": setting, "model": cert.model,
        "spec_kind": cert.spec_kind, "textualization": cert.textualization,
        "k": cert.k, "n": cert.n, "lower": cert.lower, "upper": cert.upper,
        "estimate": float(cert.estimate) if cert.estimate is not None else float("nan"),
        "confidence": cert.confidence if "confidence" not in cert.absent else None,
        "method": cert.method if "method" not in cert.absent else None,
        **{name: int(getattr(cert.outcomes, name, 0) or 0) if cert.outcomes is not None else 0
           for name in COUNTED},
        "excluded_k": excluded.k if excluded is not None else None,
        "excluded_n": excluded.n if excluded is not None else None,
        "excluded_lower": excluded.lower if excluded is not None else None,
        "excluded_upper": excluded.upper if excluded is not None else None,
        "baseline": setting == BASELINE or bool(cert.baseline),
        "sequential": cert.sequential is not None,
        "simultaneous": cert.simultaneous is not None,
        "kg": cert.kg, "kg_fingerprint": cert.kg_fingerprint,
        "spec_hash": cert.spec_hash, "spec_file": cert.spec_file, "seed": cert.seed,
        "samples_requested": cert.samples_requested,
        "samples_recorded": cert.samples_recorded,
        "chance": cert.chance.level if cert.chance is not None else None,
        "unconditional_lower": cert.unconditional.lower if cert.unconditional else None,
        "unconditional_upper": cert.unconditional.upper if cert.unconditional else None,
        "guarantee": cert.guarantee, "file": file,
        **cost_columns(cert.cost),
    }


def cost_columns(cost: Cost | None) -> dict[str, Any]:
    """A certificate's cost (None where it predates costs or the figure is unknown)."""
    if cost is None:
        return dict.fromkeys(("calls", "cache_hits", "tokens", "wall_s", "gpu_s", "money_usd",
                              "calls_saved"))
    tokens = (int(cost.prompt_tokens) + int(cost.completion_tokens or 0)
              if cost.prompt_tokens is not None else None)
    return {"calls": None if "calls" in cost.absent else cost.calls,
            "cache_hits": cost.cache_hits, "tokens": tokens, "wall_s": cost.wall_s,
            "gpu_s": cost.gpu_s, "money_usd": cost.money_usd, "calls_saved": cost.calls_saved}


def entity_path_length(provenance: Mapping[str, Any]) -> int | None:
    """Hops of an entity-centric path: its edges (or its nodes less one)."""
    kind = recorded_kind(provenance.get("kind"))
    if kind is None or not kind.path:
        return None
    edges = provenance.get("edges") or []
    if edges:
        return len(edges)
    nodes = provenance.get("nodes") or {}
    return len(nodes) - 1 if nodes else None


def chosen_role(prompt: Mapping[str, Any], record: Mapping[str, Any]) -> str | None:
    """What the model's pick was: answer, distractor, path, related or random."""
    option = record.get("parsed_option")
    if not isinstance(option, int) or option < 1:
        return None
    roles = ((prompt.get("provenance") or {}).get("extra") or {}).get("option_roles")
    if isinstance(roles, list) and option <= len(roles):
        return str(roles[option - 1])
    if prompt.get("correct_option") is not None:
        return "answer" if option == prompt.get("correct_option") else None
    return None


def item_sha(prompt: Mapping[str, Any]) -> str:
    """What the prompt asks, whatever its rendering: the drawn sample (spec, seed, index,
    entities, edges, question template and aliases, the task instance) and the options.
    Equal for one index across textualizations, entity names and prompting strategies."""
    provenance = prompt.get("provenance") or {}
    keys = ("spec_hash", "seed", "index", "nodes", "edges", "template", "aliases")
    item = {key: provenance.get(key) for key in keys}
    item["instance"] = (provenance.get("extra") or {}).get("instance_provenance")
    item.update({key: prompt.get(key) for key in ("option_ids", "correct_option", "answer_id")})
    text = json.dumps(item, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sample_row(record: SampleRecord, run: str) -> dict[str, Any]:
    prompt = record.prompt or {}
    provenance = record.provenance
    response = record.response or SampleResponse()
    scoring = record.scoring
    text = str(prompt.get("text", ""))
    return {
        "run": run,
        "spec": str(record.spec if record.spec is not None else provenance.get("spec")),
        "setting": str(record.setting if record.setting is not None
                       else provenance.get("setting")),
        "model": str(record.model), "index": record.index,
        "spec_kind": provenance.get("kind"), "outcome": record.outcome,
        "answered": record.answered, "correct": record.correct,
        "parsed_option": scoring.get("parsed_option"),
        "correct_option": prompt.get("correct_option"),
        "chosen_id": scoring.get("chosen_id"), "answer_id": prompt.get("answer_id"),
        "chosen_role": chosen_role(prompt, scoring),
        "path_length": entity_path_length(provenance),
        "textualization": provenance.get("textualization"), "task": prompt.get("task"),
        "template": provenance.get("template"),
        # The task scorer writes exact and flexible; older records exact_correct, ...
        "exact_correct": scoring.get("exact", scoring.get("exact_correct")),
        "flexible_correct": scoring.get("flexible", scoring.get("flexible_correct")),
        "distractors": len(provenance.get("distractors") or ()),
        "latency_s": response.latency_s, "prompt_tokens": response.prompt_tokens,
        "completion_tokens": response.completion_tokens,
        "cached": response.cached,
        "spec_hash": (record.spec_hash if record.spec_hash is not None
                      else provenance.get("spec_hash")),
        "prompt_sha": hashlib.sha256(text.encode()).hexdigest()[:16],
        "item_sha": item_sha(prompt),
    }


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(columns))
    for name in _INTEGER_COLUMNS:
        if name in frame:
            frame[name] = pd.array(frame[name].tolist(), dtype="Int64")
    for name in _BOOLEAN_COLUMNS:
        if name in frame:
            frame[name] = pd.array(frame[name].tolist(), dtype="boolean")
    for name in ("latency_s", "lower", "upper", "estimate"):
        if name in frame:
            frame[name] = frame[name].astype(float)
    for name in ("answered", "correct", "baseline", "sequential", "simultaneous"):
        if name in frame:
            frame[name] = frame[name].astype(bool)
    return frame


def load_certificates(run: RunInfo) -> list[dict[str, Any]]:
    return [certificate_row(cert, run.label, str(path))
            for path, cert in RunDir(RunLayout(run.path)).certificate_files()]


def _last_indices(run: RunInfo) -> dict[tuple[str | None, str | None, str | None], int]:
    """The last sample index each certificate counts: a sequential certificate stops where
    its rule held, and samples drawn later in that batch stay out of the report too."""
    last: dict[tuple[str | None, str | None, str | None], int] = {}
    for cert in RunDir(RunLayout(run.path)).certificates():
        if cert.last_index is not None:
            last[cert.key] = cert.last_index
    return last


def run_records(run: RunInfo) -> Iterator[SampleRecord]:
    """The sample records of one run that its certificates count, file by file."""
    last = _last_indices(run)
    run_dir = run_dir_of(run.path)
    for path in run_dir.sample_files():
        for record in iter_records(run_dir, path):
            key = record.key
            if key in last and record.index > last[key]:
                continue
            yield record


def load_samples(run: RunInfo) -> list[dict[str, Any]]:
    return [sample_row(record, run.label) for record in run_records(run)]


def load_runs(paths: Sequence[Path], *, samples: bool = True) -> RunSet:
    """Certificates and (unless `samples=False`) samples of every run; a run given twice is
    read once. InputError for a path that is not a run directory."""
    if not paths:
        raise InputError("name at least one run directory")
    unique: dict[Path, Path] = {}
    for path in paths:
        unique.setdefault(check_run_dir(Path(path)).resolve(), Path(path))
    given = list(unique.values())
    runs = tuple(RunInfo(label, path, _read_config(path))
                 for label, path in zip(_labels(given), given, strict=True))
    certificate_rows = [row for run in runs for row in load_certificates(run)]
    sample_rows = [row for run in runs for row in load_samples(run)] if samples else []
    return RunSet(runs, _frame(certificate_rows, CERTIFICATE_COLUMNS),
                  _frame(sample_rows, SAMPLE_COLUMNS))
