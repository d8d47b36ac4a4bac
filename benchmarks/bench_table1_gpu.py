"""The paper's Table 1 projected onto one GPU: model time per prompt x the calls of each design
(issue 48 item 3; meant for a GPU machine, tested on the CPU at the tiny size).

    # here, once: a real tokenizer (and, better than synthetic lengths, a full-size run's prompts)
    python benchmarks/bench_models.py --export-tokenizer .bench/tokenizer
    # on the GPU machine, one call (about 10 minutes of an H100 for the default shapes)
    python benchmarks/bench_table1_gpu.py --device cuda --tokenizer .bench/tokenizer \\
        [--prompts .bench/prompts.jsonl.gz] --n 64 --batch-size 16 --out table1.json
    # the CPU check the test suite runs: every variant stood in for by the tiny shape
    python benchmarks/bench_table1_gpu.py --stand-in tiny --n 4 --prompt-tokens 96 ...

Table 1 of LLMCert-C (PrimeKG) certifies 17 model variants on 9 specs x 2 settings; three are
API models (no GPU time here), the other 14 are open models in fp16 and 4-bit. Each open
variant is stood in for by a random-weight Llama-architecture model with its published
dimensions (hidden size, layers, heads, key/value heads, MLP width; the vocabulary is the
tokenizer's), built from a config on the device (no download), loaded the way a user's model
is (`hf_load.create`) and asked in choice mode (one forward pass per prompt, option
probabilities read off), bf16 with SDPA, 4-bit through bitsandbytes where CUDA has it.
Prompts: `--prompts` (a `kgcert prompts --json` file or a run's sample file: the full-size
prompts' own token lengths), else synthetic prompts of `--prompt-tokens` tokens whose first
`--head-tokens` are shared (the worked examples that open every prompt of a cell).

Per shape and precision: seconds per prompt with the shared head's cache (`reuse_head`, the
default) and without it, the answers of both (option probabilities within 1e-3), prompt
tokens, and the model-FLOPs utilisation: 2 FLOPs per parameter per prompt token over the
seconds, against `--peak-tflops` (default: the card's dense bf16 peak where the name is
known, H100/H200 989 TFLOPS).

Calls per model of each design, from the same simulations as bench_savings.py (each model's
accuracy spread over the 9 specs): the paper's fixed n (9 x 250 per setting), per-spec
`--until ranked` (each of the 9 specs a race of its own, n <= 250) and suite `--until ranked`
(one race over the 9 specs' mixture). Projected hours of a design: the sum over the 14 open
variants and both settings of its calls x seconds per prompt, on one GPU, one model at a time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from bench_savings import ALPHA, SPECS, TABLE_1, N, spec_accuracies  # noqa: E402

from kgcert.models.testing import LLAMA_SHAPES  # noqa: E402

# Published text-model dimensions of Table 1's open models, as Llama-architecture configs.
SHAPES: dict[str, dict[str, Any]] = {
    "tiny": LLAMA_SHAPES["tiny"],
    "llama-1b": LLAMA_SHAPES["1b"],  # Llama 3.2 1B
    "llama-3b": LLAMA_SHAPES["3b"],  # Llama 3.2 3B
    "llama-8b": LLAMA_SHAPES["8b"],  # Llama 3.1 8B: the 8B reference
    "phi3-3b": {"hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 32,
                "tie_word_embeddings": False},  # Phi-3 mini (3.8B)
    "qwen3-4b": {"hidden_size": 2560, "intermediate_size": 9728, "num_hidden_layers": 36,
                 "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                 "tie_word_embeddings": True},
    "gemma3-4b": {"hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34,
                  "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                  "tie_word_embeddings": True},
    # Llama 3.2 11B Vision's text model: Llama 3.1 8B's layers plus 8 cross-attention ones,
    # stood in for by 40 self-attention layers (text prompts never reach the image side).
    "llama-11b": {**LLAMA_SHAPES["8b"], "num_hidden_layers": 40},
    "phi3-14b": {"hidden_size": 5120, "intermediate_size": 17920, "num_hidden_layers": 40,
                 "num_attention_heads": 40, "num_key_value_heads": 10,
                 "tie_word_embeddings": False},  # Phi-3 medium
}
SHAPE_OF = {  # Table 1 name (before its precision) -> stand-in shape; API models absent
    "Phi-3 14B": "phi3-14b", "Llama 11B": "llama-11b", "Phi-3 3B": "phi3-3b",
    "Qwen3 4B": "qwen3-4b", "Gemma3 4B": "gemma3-4b", "Llama 3B": "llama-3b",
    "Llama 1B": "llama-1b",
}
PEAK_TFLOPS = {"H100": 989.4, "H200": 989.4, "A100": 312.0}  # dense bf16, by card name
DESIGNS = ("paper fixed n", "per-spec --until", "suite --until")
SCORE_TOLERANCE = 1e-3


def open_variants() -> list[tuple[int, str, str, bool]]:
    """(row of TABLE_1, name, stand-in shape, 4-bit) of each open-model variant."""
    found = []
    for row, (name, _, _) in enumerate(TABLE_1):
        base, _, precision = name.rpartition(" ")
        if base in SHAPE_OF:
            found.append((row, name, SHAPE_OF[base], precision == "4bit"))
    return found


def calls_per_model(runs: int, seed: int) -> dict[str, dict[str, list[float]]]:
    """Design -> setting -> mean calls of each TABLE_1 model (bench_savings' scenario)."""
    from kgcert.stats.race_sim import simulate_race
    from kgcert.stats.racing import StopRule

    rule = StopRule(n=N, until="ranked", confidence=1 - ALPHA)
    found: dict[str, dict[str, list[float]]] = {design: {} for design in DESIGNS}
    for setting, name in enumerate(("vanilla", "distractor")):
        accuracy = spec_accuracies(setting)
        models = accuracy.shape[0]
        found["paper fixed n"][name] = [float(SPECS * N)] * models
        per_spec = np.zeros(models)
        for spec in range(SPECS):
            summary, _ = simulate_race(accuracy[:, spec], rule, runs,
                                       seed=seed + 100 * setting + spec)
            per_spec += np.array(summary.calls_per_model)
        found["per-spec --until"][name] = per_spec.tolist()

        def mixture(rng: np.random.Generator, size: int,
                    accuracy: np.ndarray = accuracy) -> np.ndarray:
            return np.asarray(accuracy[:, rng.integers(0, SPECS, size)].T)

        summary, _ = simulate_race(accuracy.mean(axis=1), rule, runs, seed=seed + 50 + setting,
                                   draw=mixture)
        found["suite --until"][name] = list(summary.calls_per_model)
    return found


def synthetic_requests(tokenizer: Any, n: int, tokens: int, head_tokens: int,
                       seed: int) -> list[Any]:
    """`n` four-option prompts of about `tokens` tokens, the first `head_tokens` shared."""
    from kgcert.models import ModelRequest

    rng = random.Random(seed)
    words = ["aspirin", "fever", "warfarin", "asthma", "gene", "protein", "pathway", "disease",
             "heparin", "migraine", "statin", "anemia", "lithium", "gout", "psoriasis"]

    def grow(prefix: str, target: int, label: str) -> str:
        text = prefix
        while len(tokenizer(text)["input_ids"]) < target:
            text += " ".join(f"({rng.choice(words)}) {label} ({rng.choice(words)})."
                             for _ in range(8)) + "\n"
        return text

    head = grow("Worked examples:\n", head_tokens, "is an example linked to")
    requests = []
    for i in range(n):
        body = grow(head + f"Context {i}:\n", tokens - 40, "is linked to")
        options = tuple(rng.sample(words, 4))
        text = (body + f"Question {i}: which of these is linked to {options[0]}?\n"
                + "".join(f"{k}. {o}\n" for k, o in enumerate(options, 1))
                + "Reply with one line: correct answer: <number>. <option>")
        requests.append(ModelRequest(prompt=text, options=options, correct_option=1))
    return requests


def file_requests(path: Path, n: int) -> list[Any]:
    from bench_models import read_prompt_file

    return [request for request, _, _ in read_prompt_file(path, n)]


def measure_shape(shape: str, quant: bool, requests: Sequence[Any], tokenizer: Any,
                  args: argparse.Namespace, peak: float | None) -> dict[str, Any]:
    """Seconds per prompt in choice mode, with and without the head's cache, of a random
    model of `shape` (4-bit: `quant`)."""
    import torch

    from kgcert.answer_format.reply import ANSWER_PREFIX
    from kgcert.errors import KgcertError
    from kgcert.models import GenerationConfig, hf_load
    from kgcert.models.testing import build_llama

    choice = GenerationConfig(mode="choice", choice_prefix=ANSWER_PREFIX)
    dtype = hf_load._resolve_dtype(args.dtype, args.device)
    row: dict[str, Any] = {"shape": shape, "quantization": "4bit" if quant else None}
    longest = max(len(tokenizer(r.prompt)["input_ids"]) for r in requests)
    with tempfile.TemporaryDirectory(prefix=f"kgcert-{shape}-") as folder:
        build_llama(folder, tokenizer, "tiny", device=args.device, dtype=dtype,
                    max_positions=max(longest + 64, 1024), **SHAPES[shape])
        timings: dict[bool, tuple[float, list[Any]]] = {}
        for reuse in (True, False):
            try:
                model = hf_load.create(folder, choice, dtype=args.dtype, device=args.device,
                                       load_in_4bit=quant, max_batch_size=args.batch_size,
                                       reuse_head=reuse)
                model.generate(list(requests[:2]), choice)  # loads the weights, warms up
            except KgcertError as exc:  # 4-bit without CUDA or bitsandbytes: say so
                return {**row, "skipped": str(exc)}
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            start = time.perf_counter()
            responses = model.generate(list(requests), choice)  # answers read back: synced
            timings[reuse] = (time.perf_counter() - start, responses)
            if reuse:
                row["parameters"] = sum(p.numel() for p in model.model.parameters())
                row["attention"] = model.model.config._attn_implementation
            model.close()
    (reused, answers), (whole, reference) = timings[True], timings[False]
    failed = [r.error for r in [*answers, *reference] if r.error]
    if failed:
        return {**row, "skipped": f"failed answers: {failed[0]}"}
    tokens = sum(r.prompt_tokens or 0 for r in reference)
    difference = max(abs(a - b) for x, y in zip(answers, reference, strict=True)
                     for a, b in zip(x.choice_probs or (), y.choice_probs or (), strict=True))
    flops = 2 * row["parameters"] * tokens
    row.update(
        prompts=len(requests), mean_prompt_tokens=round(tokens / len(requests), 1),
        per_prompt_s=reused / len(requests), per_prompt_s_without_reuse=whole / len(requests),
        reuse_speedup=round(whole / reused, 3),
        same_answers=difference <= SCORE_TOLERANCE, max_score_difference=difference,
        mfu=None if peak is None else round(flops / whole / (peak * 1e12), 4),
        mfu_with_reuse=None if peak is None else round(flops / reused / (peak * 1e12), 4))
    return row


def project(measured: dict[tuple[str, bool], dict[str, Any]],
            calls: dict[str, dict[str, list[float]]],
            stand_in: str | None) -> dict[str, Any]:
    """Hours on one GPU of each design: sum over open variants and settings of calls x s."""
    rows: dict[str, Any] = {}
    for design in DESIGNS:
        seconds, missing = 0.0, []
        for row, name, shape, quant in open_variants():
            figure = measured.get((stand_in or shape, quant), {})
            if "per_prompt_s" not in figure:
                missing.append(name)
                continue
            for setting in ("vanilla", "distractor"):
                seconds += calls[design][setting][row] * figure["per_prompt_s"]
        rows[design] = {"hours": seconds / 3600, "variants_missing": missing,
                        "calls_per_model_vanilla": round(float(np.mean(
                            calls[design]["vanilla"])), 1)}
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="auto", help="auto: bf16 on CUDA, else float32")
    parser.add_argument("--tokenizer", help="a tokenizer directory (default: the tiny test one)")
    parser.add_argument("--prompts", type=Path, help="a `kgcert prompts --json` or sample file")
    parser.add_argument("--n", type=int, default=64, help="prompts timed per model")
    parser.add_argument("--prompt-tokens", type=int, default=3500,
                        help="synthetic prompts: about this many tokens of text each (the "
                             "model's count, template and options included, is reported)")
    parser.add_argument("--head-tokens", type=int, default=1000,
                        help="synthetic prompts: tokens of the shared head")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--shapes", nargs="+", default=None, choices=list(SHAPES),
                        help="stand-ins to measure (default: every one Table 1 needs, and 8B)")
    parser.add_argument("--stand-in", choices=list(SHAPES),
                        help="measure this one shape for every variant (the CPU check)")
    parser.add_argument("--no-quant", action="store_true", help="skip the 4-bit variants")
    parser.add_argument("--peak-tflops", type=float, default=None)
    parser.add_argument("--sim-runs", type=int, default=200, help="simulated runs per design")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, help="write every figure as JSON")
    args = parser.parse_args(argv)
    if args.n < 2 or args.prompt_tokens <= args.head_tokens + 64:
        parser.error("--n must be at least 2 and --prompt-tokens above --head-tokens + 64")
    if args.prompts is not None and not args.prompts.is_file():
        parser.error(f"--prompts: no such file: {args.prompts}")

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    peak = args.peak_tflops or next((v for k, v in PEAK_TFLOPS.items() if gpu and k in gpu),
                                    None)
    if args.tokenizer:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    else:
        from kgcert.models.testing import build_tiny_tokenizer

        tokenizer = build_tiny_tokenizer()
    requests = (file_requests(args.prompts, args.n) if args.prompts else
                synthetic_requests(tokenizer, args.n, args.prompt_tokens, args.head_tokens,
                                   args.seed))
    started = time.perf_counter()
    calls = calls_per_model(args.sim_runs, args.seed)
    print(f"calls per model simulated in {time.perf_counter() - started:.0f} s", flush=True)
    wanted = ([args.stand_in] if args.stand_in else
              args.shapes or [*dict.fromkeys(s for _, _, s, _ in open_variants()), "llama-8b"])
    measured: dict[tuple[str, bool], dict[str, Any]] = {}
    figures: dict[str, Any] = {"gpu": gpu, "peak_tflops": peak, "torch": torch.__version__,
                               "prompt_source": str(args.prompts or "synthetic"),
                               "batch_size": args.batch_size, "shapes": []}

    def write() -> None:
        if args.out is not None:  # after every shape, so a later failure keeps the earlier
            args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")

    for shape in wanted:
        for quant in (False, True) if not args.no_quant else (False,):
            row = measured[(shape, quant)] = measure_shape(shape, quant, requests, tokenizer,
                                                           args, peak)
            figures["shapes"].append(row)
            print(json.dumps(row), flush=True)
            write()
    figures["calls_per_model"] = calls
    figures["projection"] = project(measured, calls, args.stand_in)
    write()
    print(f"\nTable 1 on one {gpu or args.device} ({len(open_variants())} open variants x 2 "
          f"settings; API models take no GPU time):")
    for design, row in figures["projection"].items():
        missing = (f" (without {', '.join(row['variants_missing'])})"
                   if row["variants_missing"] else "")
        print(f"  {design:<18} {row['calls_per_model_vanilla']:>7.0f} calls/model (vanilla)  "
              f"{row['hours']:8.2f} h{missing}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
