"""Issue 47 item 7: what a first-time user is told when `kgcert run` lacks a setting every run
needs: the flag to pass, in one line, never pydantic's "Field required"."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import kgcert_process


@pytest.mark.parametrize(("args", "said"), [
    (["--spec", "primekg.dual_indication", "--model", "bernoulli:0.5"],
     "run settings: no kg given: pass --kg (e.g. --kg primekg, the name `kgcert load` gave "
     "the KG) or set it in the run file"),
    (["--kg", "primekg", "--model", "bernoulli:0.5"],
     "run settings: no specs given: pass --spec or set it in the run file"),
    (["--kg", "primekg", "--spec", "primekg.dual_indication"],
     "run settings: no models given: pass --model or set it in the run file"),
])
def test_run_without_a_needed_setting_names_its_flag(tmp_path: Path, args: list[str],
                                                      said: str):
    done = kgcert_process("run", *args, "--n", "5", "--out", str(tmp_path / "run"),
                          data_dir=tmp_path / "data")
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [f"error: {said}"]
    assert "Field required" not in done.stderr
