"""`kgcert prompts` as a user runs it: a subprocess on its own data dir (the embedded server
locks its folder, so the test session's server cannot be shared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONTRA = str(REPO / "specs" / "primekg" / "contraindication_indication.yaml")
SHORTEST = str(REPO / "specs" / "tasks" / "shortest_path.yaml")


def _kgcert(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgcert", *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, "KGCERT_DATA_DIR": str(data_dir), "COLUMNS": "200"},
    )


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, shared_data: Path) -> Path:
    folder = tmp_path_factory.mktemp("prompts-cli")
    for fmt, path, name in (
            ("primekg", shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv", "alz"),
            ("wikidatasets", shared_data / "countries", "countries")):
        done = _kgcert(folder, "load", fmt, str(path), "--kg", name)
        assert done.returncode == 0, done.stderr
    return folder


def test_prints_multiple_choice_prompts(data_dir):
    done = _kgcert(data_dir, "prompts", "--kg", "alz", "--spec", CONTRA, "--n", "2",
                   "--setting", "distractor", "--options", "5", "--few-shot", "1",
                   "--seed", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("=== prompt ") == 2
    assert "=== prompt 0 of primekg.contraindication_indication (relation, distractor, seed 3)" \
        in out
    assert out.count("\n5. ") == 2 and "\n6. " not in out
    assert out.count("Example 1\n") == 2 and "Example 2\n" not in out
    assert out.count("correct answer: <option_number>. <answer>, because <succinct reason>") == 2
    again = _kgcert(data_dir, "prompts", "--kg", "alz", "--spec", CONTRA, "--n", "1",
                    "--start", "1", "--setting", "distractor", "--options", "5",
                    "--few-shot", "1", "--seed", "3", "--json")
    assert again.returncode == 0, again.stderr
    record = json.loads(again.stdout)
    assert record["provenance"]["index"] == 1 and record["text"] in out
    assert len(record["options"]) == 5 and 1 <= record["correct_option"] <= 5


def test_prints_task_prompts_in_a_format(data_dir):
    done = _kgcert(data_dir, "prompts", "--kg", "countries", "--spec", SHORTEST, "--n", "1",
                   "--format", "yaml", "--pseudonymize")
    assert done.returncode == 0, done.stderr
    assert "(task, pseudonymized, yaml, seed 0)" in done.stdout
    assert "A YAML mapping" in done.stdout and "SHORTEST PATH:" in done.stdout
    assert "accepted answers: " in done.stdout


def test_bad_input_is_one_line(data_dir):
    done = _kgcert(data_dir, "prompts", "--kg", "alz", "--spec", CONTRA, "--n", "0")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("error: ") and len(done.stderr.splitlines()) == 1
