"""`kgcert run` killed with SIGKILL at random moments resumes without losing or duplicating a
sample, and ends with the certificates of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from kgcert.rundir.sample_log import SampleLog
from kgcert.synth.primekg import SyntheticPrimeKG

KILLS = 10
N = 150


def _env(data_dir: Path) -> dict[str, str]:
    """The runs share a warm server, as a user's commands do by default: a kill ends the run's
    own process (its sample files mid-write), and the next run starts no JVM. A short idle
    time in case a failure leaves the server running; the test stops it at its end."""
    env = {k: v for k, v in os.environ.items() if k != "KGCERT_NO_SERVER"}
    return {**env, "KGCERT_DATA_DIR": str(data_dir), "OMP_NUM_THREADS": "1",
            "KGCERT_SERVER_IDLE": "120"}


def _run_args(out: Path) -> list[str]:
    return [sys.executable, "-m", "kgcert", "run", "--kg", "synth_resume",
            "--spec", "primekg.exposure_drug", "--model", "bernoulli:0.7",
            "--model", "bernoulli:0.4", "--setting", "vanilla", "--setting", "distractor",
            "--n", str(N), "--batch-size", "3", "--seed", "0", "--out", str(out)]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("resume")
    SyntheticPrimeKG(scale=0.003, seed=3).write_kg_csv(folder / "kg.csv")
    loaded = subprocess.run([sys.executable, "-m", "kgcert", "load", "primekg",
                             str(folder / "kg.csv"), "--kg", "synth_resume"],
                            env=_env(folder / "data"), capture_output=True, text=True,
                            timeout=300)
    assert loaded.returncode == 0, loaded.stderr
    return folder / "data"


def _certificates(run_dir: Path) -> dict[str, tuple]:
    found = {}
    for path in sorted((run_dir / "certificates").glob("*.json")):
        body = json.loads(path.read_text())
        found[path.name] = (body["k"], body["n"], body["lower"], body["upper"],
                            body["outcomes"])
    return found


def _sample_counts(run_dir: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in run_dir.glob("samples/**/*.jsonl"))


def test_sigkill_at_random_points_loses_and_duplicates_nothing(data_dir: Path, tmp_path: Path):
    try:
        _kill_and_resume(data_dir, tmp_path)
    finally:
        subprocess.run([sys.executable, "-m", "kgcert", "server", "stop"], env=_env(data_dir),
                       capture_output=True, text=True, timeout=300)


def _kill_and_resume(data_dir: Path, tmp_path: Path) -> None:
    reference = subprocess.run(_run_args(tmp_path / "reference"), env=_env(data_dir),
                               capture_output=True, text=True, timeout=600)
    assert reference.returncode == 0, reference.stderr
    expected = _certificates(tmp_path / "reference")
    assert len(expected) == 4

    rng = np.random.default_rng(2026)
    out = tmp_path / "killed"
    kills = 0
    progress_when_killed = []
    while kills < KILLS:
        before = _sample_counts(out) if out.exists() else 0
        wanted = before + int(rng.integers(5, 50))  # kill after this many more samples...
        process = subprocess.Popen(_run_args(out), env=_env(data_dir),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while process.poll() is None and (_sample_counts(out) if out.exists() else 0) < wanted:
            time.sleep(0.005)
        time.sleep(float(rng.uniform(0, 0.02)))  # ...and a moment later, often mid-write
        if process.poll() is not None:
            break  # finished before this kill
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        kills += 1
        progress_when_killed.append(_sample_counts(out) if out.exists() else 0)
    finish = subprocess.run(_run_args(out), env=_env(data_dir), capture_output=True, text=True,
                            timeout=600)
    assert finish.returncode == 0, finish.stderr
    assert kills >= KILLS, f"only {kills} kills landed before the run finished"
    assert len(set(progress_when_killed)) > 1, "every kill landed before any sample was written"
    for path in out.glob("samples/**/*.jsonl"):
        records = SampleLog(path).read()  # raises on a duplicated index
        assert sorted(records) == list(range(N)), path
        assert len(path.read_text().splitlines()) == N
    assert _certificates(out) == expected
