"""`kgcert` as a user runs it: a child process (`python -m kgcert`) with the environment a
test states. Tests that run commands in this process use run_cli.py instead."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def kgcert_process(*args: str, data_dir: Path | None = None,
                   env: Mapping[str, str] | None = None, cwd: Path | None = None,
                   drop: tuple[str, ...] = ("KGCERT_NEO4J",),
                   timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `kgcert ARGS`: this process's environment less the variables starting with one of
    `drop` (by default the Neo4j ones, so the command uses the embedded server), with
    KGCERT_DATA_DIR set to `data_dir` when given, then `env` on top."""
    child = {key: value for key, value in os.environ.items() if not key.startswith(drop)}
    if data_dir is not None:
        child["KGCERT_DATA_DIR"] = str(data_dir)
    child.update(env or {})
    return subprocess.run([sys.executable, "-m", "kgcert", *args], cwd=cwd, env=child,
                          capture_output=True, text=True, timeout=timeout)
