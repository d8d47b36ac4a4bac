"""`RunDir`: the one reader and writer of a run directory.

    run = RunDir.open(path)     # an existing run directory, else InputError in one line
    run = RunDir.create(path)   # a new (or resumed) one, created if absent

Every file of a run (run.yaml, design.json, samples, certificates, comparisons, history,
spec copies, entity names) is read and written through a method here; `RunLayout` only
names the paths. Run directories written by earlier kgcert versions read as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcert.errors import InputError
from kgcert.rundir.layout import RunLayout, check_run_dir

if TYPE_CHECKING:
    from kgcert.rundir.design_record import DesignEntry
    from kgcert.rundir.run_spec import RunSpec


@dataclass(frozen=True)
class RunDir:
    """One run directory (see the module docstring)."""

    layout: RunLayout

    @classmethod
    def open(cls, path: Path) -> RunDir:
        """The run directory at `path`; InputError if there is none."""
        return cls(RunLayout(check_run_dir(Path(path))))

    @classmethod
    def create(cls, path: Path) -> RunDir:
        """The run directory at `path`, created (with its parents) if absent."""
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        return cls(RunLayout(root))

    @property
    def root(self) -> Path:
        return self.layout.root

    # --- certificates, earlier looks and their history (issue 44, part A) ---

    # --- run.yaml (the RunSpec) and design.json (issue 44, part B) ---

    def _run_yaml(self) -> Any:
        """run.yaml parsed (None when the run has none yet): the one read of the file."""
        from kgcert.util.yamlfile import read_yaml

        path = self.layout.run_file
        return read_yaml(path, "run file") if path.is_file() else None

    def run_settings(self) -> dict[str, Any]:
        """run.yaml's keys as written, for summaries and reports: a partial or hand-edited
        file too ({} when there is none, or it is no mapping)."""
        raw = self._run_yaml()
        return raw if isinstance(raw, dict) else {}

    def read_run_spec(self) -> RunSpec | None:
        """run.yaml's settings, checked (None when the run has none yet). One written before
        runs had one budget (it has no seed_source) is marked `older_budget`: its samples
        hold per-model prompts."""
        from kgcert.run.config import run_config_from
        from kgcert.rundir.run_spec import RunSpec

        path = self.layout.run_file
        raw = self._run_yaml()
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise InputError(f"run file {path} must be a YAML mapping")
        return RunSpec.from_config(run_config_from(raw, str(path)),
                                   older_budget="seed_source" not in raw)

    def write_run_spec(self, spec: RunSpec, *, replace: bool = True) -> None:
        """run.yaml, whole: the flat run-file keys in their order (a run file users pass back
        with --config). `replace=False` keeps a run.yaml already there."""
        import yaml

        from kgcert.rundir.atomic import write_text

        path = self.layout.run_file
        if not replace and path.exists():
            return
        write_text(path, yaml.safe_dump(spec.to_config().model_dump(mode="json"),
                                        sort_keys=False))

    def read_designs(self) -> list[DesignEntry]:
        """design.json's designs, in order ([] for a run older than design records)."""
        from kgcert.rundir.design_record import DesignEntry

        path = self.layout.design_file
        if not path.exists():
            return []
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
            return [DesignEntry(**entry) for entry in loaded["designs"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"{path} is not a design record; the file was edited or "
                             "damaged") from None

    def record_design(self, entry: DesignEntry) -> list[DesignEntry]:
        """Append `entry` unless the run's last design is the same one; returns the history."""
        from kgcert.rundir.atomic import write_json

        designs = self.read_designs()
        if not designs or designs[-1].hash != entry.hash:
            designs.append(entry)
            write_json(self.layout.design_file, {"designs": [d.as_dict() for d in designs]})
        return designs

    # --- samples, comparisons, spec copies, entity names, lock (issue 44, part C) ---
