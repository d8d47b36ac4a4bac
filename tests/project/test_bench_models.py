"""benchmarks/bench_models.py's size mode: random Llamas built from a config, loaded the way a
user's model is, measured on the prompt records `kgcert prompts --json` writes. The GPU figures
come from a GPU machine; here the same path runs on the CPU at the tiny size."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_modules import SmolVocabulary, load_benchmark

from kgcert.prompts.record import Prompt, Provenance


def _bench_models() -> ModuleType:
    return load_benchmark("bench_models")


@pytest.mark.parametrize(
    ("shape", "low", "high"), [("1b", 0.9, 1.3), ("3b", 2.8, 3.4), ("8b", 7.0, 8.5)]
)
def test_shapes_have_the_sizes_they_are_named_for(shape: str, low: float, high: float) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import LlamaForCausalLM

    from kgcert.models.testing import llama_config

    with torch.device("meta"):  # shapes only: no memory, no initialisation
        model = LlamaForCausalLM(llama_config(shape, SmolVocabulary()))
    billions = sum(p.numel() for p in model.parameters()) / 1e9
    assert low <= billions <= high


def _prompt_file(path: Path, n: int) -> Path:
    options = ("Aspirin", "Ibuprofen", "Warfarin", "Heparin")
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            provenance = Provenance(
                spec="s", spec_hash="h", kind="relation", seed=0, index=i, setting="vanilla"
            )
            prompt = Prompt(
                text=f"Context:\n- Aspirin treats fever {i}.\nQuestion: which drug treats fever?\n"
                + "".join(f"{k}. {o}\n" for k, o in enumerate(options, start=1)),
                provenance=provenance,
                options=options,
                option_ids=options,
                correct_option=i % 4 + 1,
                system="Answer with one line." if i % 2 else None,
            )
            out.write(json.dumps(prompt.as_dict()) + "\n")
    return path


def test_prompt_records_become_the_requests_a_run_sends(tmp_path: Path) -> None:
    bench = _bench_models()
    items = bench.read_prompt_file(_prompt_file(tmp_path / "p.jsonl", 4), 3)
    assert [c for _, _, c in items] == [1, 2, 3]
    plain, chat = items[0][0], items[1][0]
    assert plain.prompt is not None and plain.prompt.startswith("Context:") and not plain.messages
    assert [m.role for m in chat.messages] == ["system", "user"]
    assert chat.n_options == 4 and chat.sample_index == 1
    with pytest.raises(SystemExit, match="has 4 prompts; --n asks for 9"):
        bench.read_prompt_file(tmp_path / "p.jsonl", 9)
    packed = tmp_path / "p.jsonl.gz"  # gzipped, as carried to a GPU machine
    packed.write_bytes(gzip.compress((tmp_path / "p.jsonl").read_bytes()))
    assert bench.read_prompt_file(packed, 3) == items


def test_size_mode_measures_a_model_built_from_a_config(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if torch.cuda.is_available():
        pytest.skip("checks the CPU path; a GPU machine runs the benchmark itself")
    from kgcert.models.testing import build_tiny_tokenizer

    build_tiny_tokenizer().save_pretrained(tmp_path / "tokenizer")
    bench = _bench_models()
    out = tmp_path / "rows.json"
    code = bench.main([
        "--sizes", "tiny", "--prompts", str(_prompt_file(tmp_path / "p.jsonl", 6)), "--n", "6",
        "--single", "3", "--max-new-tokens", "3", "--batch-size", "4", "--threads", "1",
        "--tokenizer", str(tmp_path / "tokenizer"), "--quant", "--oom-check", "--out", str(out),
        "--json",
    ])  # fmt: skip
    assert code == 0
    (row,) = json.loads(out.read_text())
    assert row["model"] == "tiny" and row["prompts"] == 6 and row["single_prompts"] == 3
    assert row["device"] == "cpu" and row["attention"] == "sdpa"
    assert row["batched_equals_single"] == "3/3"  # left padding changes no greedy answer
    assert row["mean_generated_tokens"] == 3.0  # random weights never end the answer line
    assert sum(row["choice_outcomes"].values()) == 6
    assert row["certificate_250_choice_s"] > 0 and row["batched_prompts_per_s"] > 0
    assert row["oom_backoff"] == {"skipped": "needs CUDA"}
    assert "needs a CUDA GPU" in row["4bit"]["skipped"]
    assert row["prompt_source"].endswith("p.jsonl")


def test_reuse_mode_measures_the_head_cache_on_a_runs_sample_file(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    head = "Answer from the context. The format is: correct answer: <n>. <option>. " * 4
    samples = tmp_path / "samples.jsonl"
    with samples.open("w", encoding="utf-8") as out:
        for i in range(4):
            provenance = Provenance(spec="s", spec_hash="h", kind="relation", seed=0, index=i,
                                    setting="vanilla")
            prompt = Prompt(text=f"{head}Question {i}: which?\n1. a\n2. b\n3. c\n4. d\n",
                            provenance=provenance, options=("a", "b", "c", "d"),
                            option_ids=("a", "b", "c", "d"), correct_option=1)
            out.write(json.dumps({"index": i, "prompt": prompt.as_dict()}) + "\n")
    rows = tmp_path / "rows.json"
    code = _bench_models().main([
        "--reuse", "--models", "tiny", "--prompts", str(samples), "--n", "4", "--rounds", "1",
        "--max-new-tokens", "3", "--threads", "1", "--out", str(rows), "--json",
    ])  # fmt: skip
    assert code == 0
    (row,) = json.loads(rows.read_text())
    assert row["prompts"] == 4 and 0.3 < row["head_share"] < 1
    assert row["ideal_ratio"] == pytest.approx(1 / (1 - row["head_share"]), abs=0.01)
    for mode in ("choice", "generate"):
        assert row[mode]["answers_equal"] is True
        assert row[mode]["prompts_per_cpu_s_with"] > 0
        assert row[mode]["prompts_per_cpu_s_without"] > 0
        assert row[mode]["head_cpu_s"] >= 0 and row[mode]["wall_ratio"] > 0


def test_a_prompt_set_needs_reuse_mode_and_a_kg(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--reuse", "--prompt-set", "demo"], ["--prompt-set", "default", "--kg", "k"]):
        with pytest.raises(SystemExit) as stopped:
            _bench_models().main(argv)
        assert stopped.value.code == 2
        assert "--prompt-set goes with --reuse and --kg" in capsys.readouterr().err
