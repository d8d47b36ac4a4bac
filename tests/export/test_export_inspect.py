"""`kgcert export --inspect RUN` (issue 47 item 9): a real run on the Alzheimer PrimeKG extract
written as Inspect AI eval logs and read back by inspect_ai's own reader: one log per
certificate, every counted sample with its prompt, options, target and kgcert's score, and the
certificate in the log's metadata."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from run_cli import kgcert


def test_a_run_opens_with_inspects_own_reader(alzheimer_kg: Any, tmp_path: Path):
    log_reader = pytest.importorskip(
        "inspect_ai.log", reason="inspect_ai is not installed (pip install 'kgcert[inspect]')")
    run = tmp_path / "run"
    done = kgcert(alzheimer_kg.data_dir, "run", "--kg", alzheimer_kg.name, "--spec",
                  "primekg.dual_indication", "--model", "bernoulli:0.4", "--model",
                  "bernoulli:0.8", "--mode", "choice", "--n", "12", "--seed", "9",
                  "--out", str(run))
    assert done.exit_code == 0, done.output
    out = tmp_path / "logs"
    exported = subprocess.run([sys.executable, "-m", "kgcert", "export", "--inspect", str(run),
                               "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert exported.returncode == 0, exported.stderr
    assert f"inspect view --log-dir {out}" in exported.stdout
    bodies = {json.loads(p.read_text())["model"]: json.loads(p.read_text())
              for p in (run / "certificates").glob("*.json")}
    logs = sorted(out.glob("*.eval"))
    assert len(logs) == len(bodies) == 2
    for path in logs:
        log = log_reader.read_eval_log(str(path))
        body = bodies[log.eval.model]
        assert log.status == "success"
        assert log.eval.metadata["kgcert_certificate"] == body
        metrics = log.results.scores[0].metrics
        assert metrics["lower"].value == body["lower"] and metrics["upper"].value == body["upper"]
        records = {r["index"]: r for r in map(json.loads, (run / body["sample_file"])
                                              .read_text().splitlines())}
        assert [s.id for s in log.samples] == sorted(records)
        values = [s.scores["kgcert"].value for s in log.samples if s.scores]
        assert values.count("C") == body["k"] and len(values) == body["n"]
        for sample in log.samples:
            prompt = records[sample.id]["prompt"]
            assert sample.input == prompt["text"]
            assert sample.choices == prompt["options"]
            assert sample.target == "ABCD"[prompt["correct_option"] - 1]
            assert sample.output.completion == records[sample.id]["response"]["text"]


def test_export_inspect_refuses_a_folder_that_is_not_a_run(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "kgcert", "export", "--inspect",
                           str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
