"""One prompt population per run, through the real pipeline on the Alzheimer extract: every
model of a run (a local tiny Llama measured by its own tokenizer, bernoulli and oracle
without one) answers the same prompt i, a model added on a rerun answers the same prompts,
`compare` pairs them, a window too small for the run's budget is refused at start, and
per-model budgets are compared only with a one-line notice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from alzheimer_kg_fixture import ALZHEIMER_KG
from run_cli import kgcert

from kgcert.errors import InputError

pytest.importorskip("transformers")

KG = ALZHEIMER_KG  # shared read-only: these tests only run on it
SPEC = "primekg.dual_indication"


_kgcert = kgcert


def _prompts(run_dir: Path) -> dict[str, dict[int, str]]:
    """Each model's prompt text by index (skipped prompts as their empty text)."""
    found = {}
    for path in sorted((run_dir / "samples").glob("*/*/*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        found[records[0]["model"]] = {r["index"]: r["prompt"]["text"] for r in records}
    return found


def _run(data: Path, out: Path, *models: str, extra: tuple[str, ...] = ()):
    args = ["run", "--kg", KG, "--spec", SPEC, "--setting", "vanilla", "--n", "10",
            "--few-shot", "1", "--max-new-tokens", "8", "--batch-size", "5",
            "--context-tokens", "2500", "--out", str(out), *extra]
    for model in models:
        args += ["--model", model]
    return _kgcert(data, *args)


def test_every_model_of_a_run_answers_the_same_prompts(alzheimer_kg, embedded_data_dir: Path,
                                                        tiny_llama_dir: Path, tmp_path: Path):
    tiny = f"hf:{tiny_llama_dir}"
    out = tmp_path / "run"
    first = _run(embedded_data_dir, out, tiny, "bernoulli:0.6")
    assert first.exit_code == 0, first.output
    saved = yaml.safe_load((out / "run.yaml").read_text())
    parts = saved["run_budget"]
    assert {p["unit"] for p in parts} == {"characters", "tokens"}  # fits both models
    assert saved["seed_source"] == "drawn" and isinstance(saved["seed"], int)
    prompts = _prompts(out)
    assert prompts[tiny] == prompts["bernoulli:0.6"]  # prompt i is one text for both
    assert any(text for text in prompts[tiny].values())

    added = _run(embedded_data_dir, out, tiny, "bernoulli:0.6", "oracle")
    assert added.exit_code == 0, added.output
    prompts = _prompts(out)
    assert prompts["oracle"] == prompts[tiny]  # a model added later: the same prompts
    assert yaml.safe_load((out / "run.yaml").read_text())["seed"] == saved["seed"]

    compared = _kgcert(embedded_data_dir, "compare", str(out), "--json")
    assert compared.exit_code == 0, compared.output
    [record] = [json.loads(line) for line in compared.output.splitlines()
                if line.startswith("{")]
    answered = sum(1 for text in prompts[tiny].values() if text)
    assert record["n"] == answered > 0  # never "0 shared prompts" within one run
    assert record["dropped"]["prompt_mismatch"] == 0
    bodies = [json.loads(p.read_text()) for p in (out / "certificates").glob("*.json")]
    assert len({b["design"] for b in bodies}) == 1
    assert all("fixed for the run (every model of the run answers the same prompts)"
               in b["guarantee"] for b in bodies)


def test_a_window_that_cannot_hold_the_run_budget_is_refused_at_start(
        alzheimer_kg, embedded_data_dir: Path, tiny_llama_dir: Path, tmp_path: Path):
    out = tmp_path / "refused"
    result = _run(embedded_data_dir, out, f"hf:{tiny_llama_dir}", "bernoulli:0.6",
                  extra=("--budget", f"20000:{tiny_llama_dir}"))
    assert isinstance(result.exception, InputError)  # the CLI prints it as one error line
    message = str(result.exception)
    assert "\n" not in message and "cannot hold the run's prompt budget" in message, message
    assert not (out / "samples").exists()


def test_per_model_budgets_are_compared_only_with_a_notice(
        alzheimer_kg, embedded_data_dir: Path, tiny_llama_dir: Path, tmp_path: Path):
    out = tmp_path / "per-model"
    result = _run(embedded_data_dir, out, f"hf:{tiny_llama_dir}", "bernoulli:0.6",
                  extra=("--budget", "per-model"))
    assert result.exit_code == 0, result.output
    compared = _kgcert(embedded_data_dir, "compare", str(out))
    assert "certified on different populations" in compared.output
    assert "0 shared prompts" not in compared.output
