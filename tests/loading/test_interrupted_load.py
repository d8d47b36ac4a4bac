"""A load killed midway (SIGKILL) or stopped (SIGTERM) is recovered by the next `kgcert load`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kgcert.synth.primekg import SyntheticPrimeKG


@pytest.fixture(scope="module")
def synthetic_kg_csv(tmp_path_factory) -> tuple[Path, int]:
    folder = tmp_path_factory.mktemp("synth")
    rows = SyntheticPrimeKG(scale=0.03, seed=7).write_kg_csv(folder / "kg.csv")
    return folder / "kg.csv", rows


def _start(data_dir: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kgcert", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "KGCERT_DATA_DIR": str(data_dir)},
    )


def _run(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    process = _start(data_dir, *args)
    out, err = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


_PROGRESS = re.compile(r"writing edges: (\d+)%, ([\d,]+) edges")


def _interrupt_midway(data_dir: Path, kg_csv: Path, sig: int) -> subprocess.Popen[str]:
    """Signal the load once it reports edges written and edges still to write (its plain
    progress lines on a piped stderr), however slow the machine: never before the KG exists,
    never after the load is done."""
    process = _start(data_dir, "load", "primekg", str(kg_csv), "--kg", "synth")
    assert process.stderr is not None
    for line in process.stderr:
        progress = _PROGRESS.search(line)
        if progress:
            percent, done = (int(x.replace(",", "")) for x in progress.groups())
            if done > 0 and percent < 100:
                break
    else:
        pytest.fail("the load reported no edge progress before it ended")
    process.send_signal(sig)
    process.wait(timeout=60)
    return process


def _recover_and_count(data_dir: Path, kg_csv: Path, rows: int) -> None:
    again = _run(data_dir, "load", "primekg", str(kg_csv), "--kg", "synth")
    assert again.returncode == 0, again.stderr
    assert "did not finish; rebuilding" in again.stderr
    info = _run(data_dir, "info", "--kg", "synth", "--json")
    report = json.loads(info.stdout.splitlines()[0])
    assert report["manifest"]["status"] == "complete"
    assert report["relationships"] == rows  # synthetic kg.csv holds each fact both ways, once


def test_sigkill_midway_then_reload_recovers(tmp_path, synthetic_kg_csv):
    kg_csv, rows = synthetic_kg_csv
    process = _interrupt_midway(tmp_path, kg_csv, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    _recover_and_count(tmp_path, kg_csv, rows)


def test_sigterm_stops_the_server_cleanly(tmp_path, synthetic_kg_csv):
    kg_csv, rows = synthetic_kg_csv
    process = _interrupt_midway(tmp_path, kg_csv, signal.SIGTERM)
    assert process.returncode == 128 + signal.SIGTERM
    assert "Traceback" not in process.stderr
    assert not list(tmp_path.rglob("hs_err_pid*.log")), "the JVM crashed on SIGTERM"
    _recover_and_count(tmp_path, kg_csv, rows)
