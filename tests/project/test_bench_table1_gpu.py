"""benchmarks/bench_table1_gpu.py: Table 1's open variants stood in for by random models of the
published dimensions, timed in choice mode, times the calls of each design. The GPU figures
come from a GPU machine; here every variant is stood in for by the tiny shape on the CPU."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_modules import SmolVocabulary, load_benchmark


def _bench() -> ModuleType:
    return load_benchmark("bench_table1_gpu")


@pytest.mark.parametrize(("shape", "low", "high"), [
    ("phi3-14b", 13.0, 15.0), ("llama-11b", 8.5, 10.5), ("phi3-3b", 3.5, 4.2),
    ("qwen3-4b", 3.4, 4.2), ("gemma3-4b", 3.0, 4.0), ("llama-8b", 7.0, 8.5)])
def test_stand_ins_have_the_sizes_of_the_models_they_stand_for(shape: str, low: float,
                                                               high: float) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import LlamaForCausalLM

    from kgcert.models.testing import llama_config

    bench = _bench()
    with torch.device("meta"):  # shapes only: no memory, no initialisation
        model = LlamaForCausalLM(llama_config("tiny", SmolVocabulary(), **bench.SHAPES[shape]))
    assert low <= sum(p.numel() for p in model.parameters()) / 1e9 <= high


def test_every_open_variant_of_table_1_has_a_stand_in() -> None:
    bench = _bench()
    variants = bench.open_variants()
    assert len(variants) == 14 and len(bench.TABLE_1) == 17  # three API models
    assert sum(quant for *_, quant in variants) == 7
    assert all(shape in bench.SHAPES for _, _, shape, _ in variants)


def test_the_tiny_stand_in_projects_each_design_from_its_measured_seconds(
        tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if torch.cuda.is_available():
        pytest.skip("checks the CPU path; a GPU machine runs the benchmark itself")
    bench = _bench()
    out = tmp_path / "table1.json"
    code = bench.main(["--stand-in", "tiny", "--n", "3", "--prompt-tokens", "150",
                       "--head-tokens", "60", "--batch-size", "2", "--sim-runs", "10",
                       "--threads", "1", "--peak-tflops", "1", "--out", str(out)])
    assert code == 0
    figures = json.loads(out.read_text())
    plain, quantized = figures["shapes"]
    assert plain["shape"] == "tiny" and plain["prompts"] == 3 and plain["per_prompt_s"] > 0
    assert plain["same_answers"] and plain["max_score_difference"] <= 1e-3
    assert plain["mean_prompt_tokens"] >= 150 and 0 < plain["mfu"] < 1
    assert "needs a CUDA GPU" in quantized["skipped"]  # no 4-bit on a CPU: said so
    calls, projection = figures["calls_per_model"], figures["projection"]
    assert calls["paper fixed n"]["vanilla"] == [2250.0] * 17
    fp16 = [row for row, name, _, quant in bench.open_variants() if not quant]
    want = sum(2250 * plain["per_prompt_s"] for _ in fp16 for _ in ("vanilla", "distractor"))
    assert projection["paper fixed n"]["hours"] == pytest.approx(want / 3600)
    assert len(projection["paper fixed n"]["variants_missing"]) == 7  # the 4-bit ones
    for design in ("per-spec --until", "suite --until"):
        assert 0 < projection[design]["hours"] <= projection["paper fixed n"]["hours"]
        per_model = calls[design]["distractor"]
        assert len(per_model) == 17 and all(0 < c <= 2250 for c in per_model)
    spent = sum(calls["suite --until"][s][row] * plain["per_prompt_s"]
                for row in fp16 for s in ("vanilla", "distractor"))
    assert projection["suite --until"]["hours"] == pytest.approx(spent / 3600)
