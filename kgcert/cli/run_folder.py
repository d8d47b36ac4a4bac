"""The run directory of `kgcert run`: named from the run's hash, found again on a rerun,
locked for one process, and removed again when a run fails before writing anything."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kgcert.run.config import RunConfig
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.run_dir import RunDir, run_dir_of
from kgcert.util.paths import check_folder

_locks: list[Any] = []  # run-directory locks, held until the process ends


def run_path(config: RunConfig, out: Path | None) -> Path:
    run_dir = out or default_run_dir(config)
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


def default_run_dir(config: RunConfig, root: Path = Path("runs")) -> Path:
    """runs/<kg>-<first spec>[+N]-<date>-<config hash>: readable, and the same command run
    again (another day too) finds the folder of its hash and resumes there."""
    import re
    from datetime import date

    fingerprint = config.fingerprint()
    for found in sorted(root.glob(f"*-{fingerprint[:8]}")) if root.is_dir() else []:
        saved = RunDir(RunLayout(found)).read_run_spec()
        if saved is not None and _same_run(saved.to_config(), config):
            return found
    first = config.suite.name if config.suite else config.specs[0] if config.specs else "run"
    spec = Path(first).stem if first.endswith((".yaml", ".yml")) else first.split(".")[-1]
    more = f"+{len(config.specs) - 1}" if len(config.specs) > 1 and not config.suite else ""
    parts = [re.sub(r"[^A-Za-z0-9_-]+", "_", part) for part in (config.kg, spec)]
    return root / f"{parts[0]}-{parts[1]}{more}-{date.today():%Y%m%d}-{fingerprint[:8]}"


def _same_run(saved: RunConfig, config: RunConfig) -> bool:
    """Whether `config` (as given, before a seed is drawn) asks what `saved` recorded: a seed
    the run drew stands for the one the command left out."""
    if saved.seed_source == "drawn":
        saved = saved.model_copy(update={"seed": config.seed})
    return saved.fingerprint() == config.fingerprint()


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
