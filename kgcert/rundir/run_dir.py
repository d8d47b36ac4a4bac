"""`RunDir`: the one reader and writer of a run directory.

    run = RunDir.open(path)     # an existing run directory, else InputError in one line
    run = RunDir.create(path)   # a new (or resumed) one, created if absent

Every file of a run (run.yaml, design.json, samples, certificates, comparisons, history,
spec copies, entity names) is read and written through a method here; `RunLayout` only
names the paths. Run directories written by earlier kgcert versions read as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgcert.rundir.layout import RunLayout, check_run_dir


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

    # --- samples, comparisons, spec copies, entity names, lock (issue 44, part C) ---
