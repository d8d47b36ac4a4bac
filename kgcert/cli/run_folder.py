"""The run directory of `kgcert run`: named from the run's hash, found again on a rerun,
locked for one process, and removed again when a run fails before writing anything."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcert.rundir.layout import RunLayout
from kgcert.rundir.run_dir import RunDir, run_dir_of
from kgcert.util.paths import check_folder

if TYPE_CHECKING:  # the spec's module imports the prompt layer: not for --help
    from kgcert.rundir.run_spec import RunSpec

_locks: list[Any] = []  # run-directory locks, held until the process ends


def run_path(spec: RunSpec, out: Path | None) -> Path:
    run_dir = out or default_run_dir(spec)
    # a file, under a file, a link loop: one line (a write that fails says why itself)
    check_folder(run_dir, "--out", writable=False, fix="name a folder for the run")
    return run_dir


@contextmanager
def run_dir_locked(run_dir: Path) -> Iterator[Path]:
    """The run directory, locked for this process. A run that fails before writing anything
    leaves no empty folder behind."""
    created = _topmost_missing(run_dir)
    _locks.append(run_dir_of(run_dir).lock())
    try:
        yield run_dir
    except BaseException:
        if created is not None:
            _remove_unused(run_dir, created)
        raise


def default_run_dir(spec: RunSpec, root: Path = Path("runs")) -> Path:
    """runs/<kg>-<first spec>[+N]-<date>-<config hash>: readable, and the same command run
    again (another day too) finds the folder of its hash and resumes there."""
    import re
    from datetime import date

    fingerprint = spec.fingerprint()
    for found in sorted(root.glob(f"*-{fingerprint[:8]}")) if root.is_dir() else []:
        saved = RunDir(RunLayout(found)).read_run_spec()
        if saved is not None and _same_run(saved, spec):
            return found
    suite, names = spec.specs.suite, spec.specs.names
    first = suite.name if suite else names[0] if names else "run"
    short = Path(first).stem if first.endswith((".yaml", ".yml")) else first.split(".")[-1]
    more = f"+{len(names) - 1}" if len(names) > 1 and not suite else ""
    parts = [re.sub(r"[^A-Za-z0-9_-]+", "_", part) for part in (spec.kg.name, short)]
    return root / f"{parts[0]}-{parts[1]}{more}-{date.today():%Y%m%d}-{fingerprint[:8]}"


def _same_run(saved: RunSpec, spec: RunSpec) -> bool:
    """Whether `spec` (as given, before a seed is drawn) asks what `saved` recorded: a seed
    the run drew stands for the one the command left out."""
    if saved.seed.source == "drawn":
        saved = saved.with_seed(spec.seed.value, "drawn")
    return saved.fingerprint() == spec.fingerprint()


def _topmost_missing(path: Path) -> Path | None:
    """The first folder of `path` that does not exist yet (None when `path` exists)."""
    missing = None
    while not path.exists():
        missing, path = path, path.parent
    return missing


def _remove_unused(run_dir: Path, created: Path) -> None:
    """Remove the folders this run created (up to `created`) if they hold only its lock."""
    run = run_dir_of(run_dir)
    if not run.holds_only_lock():
        return
    with contextlib.suppress(OSError):
        run.remove_lock()
        folder = run_dir
        while True:
            folder.rmdir()
            if folder == created:
                break
            folder = folder.parent
