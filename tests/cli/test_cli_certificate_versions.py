"""Every reader of certificates checks `record_version`: a certificate of a newer kgcert is
refused in one line naming the file (`report`, `compare`, `writeback`; `kgcert runs` names it
as a problem and lists the others), and one without a version (every certificate before
versions) reads as it is."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from kgcert.errors import InputError
from kgcert.writeback.run_files import read_run
from tests.cli.test_cli_faults import _one_line, _run_dir_by_hand
from tests.cli.test_cli_faults import kgcert_cli as kgcert_cli  # noqa: F401 (a fixture)

FIXTURES = Path(__file__).parents[1] / "certify" / "main_5e25278"
NEWER = ("record_version 3 is newer than the 2 this kgcert reads: written by a newer kgcert; "
         "upgrade kgcert to read it")


def _newer(run: Path) -> Path:
    [path] = (run / "certificates").glob("*.json")
    path.write_text(json.dumps({**json.loads(path.read_text()), "record_version": 3}))
    return path


@pytest.mark.parametrize("command", ["report", "compare"])
def test_report_and_compare_refuse_a_newer_certificate_in_one_line(kgcert_cli, tmp_path,
                                                                   command):
    run = _run_dir_by_hand(tmp_path / "run")
    path = _newer(run)
    line = _one_line(*kgcert_cli(command, str(run)), 2)
    assert line == f"error: {path}: {NEWER}"


def _runs(run: Path, monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    """`kgcert runs RUN --json` in this process: exit code, models listed, stderr."""
    from kgcert.cli import _run

    monkeypatch.setattr(sys, "argv", ["kgcert", "runs", str(run), "--json"])
    capsys.readouterr()
    code = _run()
    captured = capsys.readouterr()
    listed = json.loads(captured.out)["certificates"]
    return code, [c["model"] for c in listed], captured.err


def test_runs_names_a_newer_certificate_and_lists_the_rest(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KGCERT_DATA_DIR", str(tmp_path / "data"))
    run = _run_dir_by_hand(tmp_path / "run")
    shutil.copy(FIXTURES / "fixed__primekg.exposure_drug__vanilla__oracle.json",
                run / "certificates" / "primekg.exposure_drug__vanilla__oracle.json")
    assert _runs(run, monkeypatch, capsys) == (0, ["oracle", "m"], "")
    newer = run / "certificates" / "s__vanilla__m.json"
    newer.write_text(json.dumps({**json.loads(newer.read_text()), "record_version": 3}))
    code, listed, errors = _runs(run, monkeypatch, capsys)
    assert (code, listed) == (0, ["oracle"])
    assert errors.strip() == f"warning: {newer}: {NEWER}"


def test_writeback_refuses_a_newer_certificate_and_reads_a_version_1_one(tmp_path):
    run = tmp_path / "run"
    (run / "certificates").mkdir(parents=True)
    shutil.copy(FIXTURES / "run.yaml", run / "run.yaml")
    name = "primekg.exposure_drug__vanilla__oracle.json"
    shutil.copy(FIXTURES / f"fixed__{name}", run / "certificates" / name)
    [row] = read_run(run).certificates
    assert row.props["complete"] and row.props["k"] == 20 and row.props["refused"] == 0
    path = _newer(run)
    with pytest.raises(InputError) as refused:
        read_run(run)
    assert str(refused.value) == f"{path}: {NEWER}"
