"""Run `kgcert run` and `kgcert compare` in this process against the embedded test server
(the run's directory lock is released after each, as a new process would)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from kgcert.cli.common import Context


def kgcert(embedded_data_dir: Path, command: str, *args: str) -> Result:
    from kgcert.cli import run as run_cli
    from kgcert.cli.report import compare_command

    obj = Context(db="embedded", data_dir=str(embedded_data_dir))
    chosen = {"run": run_cli.run_command, "compare": compare_command}[command]
    try:
        return CliRunner().invoke(chosen, list(args), obj=obj)
    finally:
        for lock in run_cli._locks:
            lock.close()
        run_cli._locks.clear()
