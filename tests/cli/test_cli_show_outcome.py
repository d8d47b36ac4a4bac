"""`kgcert show --outcome` (issue 47 item 7): the first wrong (or any outcome's) sample at or
after an index, and the command that steps to the next one, on real run folders written by the
Runner with test models (no graph server: show reads files only)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_process import kgcert_process

from tests.report.test_report_tables import RELATION, make_runs

FILTERS = ("--spec", RELATION, "--setting", "distractor", "--model", "bernoulli:0.6")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("show-outcome")
    make_runs(folder / "runs")
    return folder


def _show(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return kgcert_process("show", "runs/run-a", *FILTERS, *args, data_dir=root / "data",
                          env={"COLUMNS": "300"}, cwd=root, timeout=120)


def test_show_steps_through_the_wrong_samples(root: Path):
    [path] = [p for p in (root / "runs" / "run-a" / "samples").rglob("*.jsonl")
              if "distractor" in p.parts and "bernoulli_0.6" in p.name and RELATION in p.parts]
    wrong = sorted(r["index"] for r in map(json.loads, path.read_text().splitlines())
                   if r["outcome"] == "wrong")
    assert len(wrong) >= 3
    first = _show(root, "--outcome", "wrong")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith(f"sample {wrong[0]} of {RELATION} / distractor / bernoulli:0.6")
    assert "outcome: wrong" in lines
    step = lines[-1]
    assert step == (f"next wrong sample: kgcert show runs/run-a --spec {RELATION} --setting "
                    f"distractor --model bernoulli:0.6 --outcome wrong {wrong[1]}")
    after = _show(root, "--outcome", "wrong", str(wrong[0] + 1))
    assert after.stdout.startswith(f"sample {wrong[1]} of ")
    last = _show(root, "--outcome", "wrong", str(wrong[-1]))
    assert last.stdout.splitlines()[-1] == f"no wrong sample after {wrong[-1]}"
    beyond = _show(root, "--outcome", "wrong", str(wrong[-1] + 1))
    assert beyond.returncode == 2 and len(beyond.stderr.splitlines()) == 1
    assert f"no wrong sample at or after {wrong[-1] + 1} in " in beyond.stderr


def test_show_without_index_or_outcome_says_what_to_give(root: Path):
    done = _show(root)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("error: name the sample: give its INDEX, or --outcome (e.g. "
                                   "--outcome wrong) for the first sample with that outcome")
