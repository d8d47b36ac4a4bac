"""Head reuse figures for ``benchmarks/bench_models.py --reuse``: prompts per CPU second with
the shared head's key/value cache and without it, on a prompt set of a real run, and the README
demo's wall time. The commands that reproduce each figure are in bench_models.py's docstring."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgcert.answer_format.reply import ANSWER_PREFIX

Item = tuple[Any, Sequence[str], int]  # (prompt request, options, correct option)

#: The README's main command's run (`kgcert run ... --out runs/demo`), as flags.
DEMO_FLAGS = ["--spec", "primekg.dual_indication", "--model", "smollm2", "--mode", "choice",
              "--few-shot", "1", "--context-tokens", "700", "--n", "20"]
DEMO_SAMPLES = "samples/primekg.dual_indication/vanilla/smollm2.jsonl"
#: The same run as a run file, for the run without the head's cache (a model option).
DEMO = {"specs": ["primekg.dual_indication"], "models": ["smollm2"], "mode": "choice",
        "few_shot": 1, "context_tokens": 700, "n": 20}


def timed_cpu(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """The result, wall seconds and this process's CPU seconds: on one thread the CPU seconds
    are the work done, whatever else the machine runs (wall time on a shared machine is not)."""
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - start, time.process_time() - cpu


def head_share(model: Any, items: Sequence[Item]) -> tuple[float, int, float]:
    """The head's share of prompt tokens (head / mean prompt), its tokens, the mean prompt."""
    from kgcert.models.headcache import shared_prefix

    rows = model._encode_all([model.render(r) for r, _, _ in items])
    mean = sum(len(r) for r in rows) / len(rows)
    head = len(shared_prefix(rows))
    return head / mean, head, mean


def bench_reuse(model: Any, label: str, items: Sequence[Item], max_new_tokens: int,
                rounds: int, modes: Sequence[str]) -> dict[str, Any]:
    """Prompts/s with and without the head's cache, alternated, the best of each."""
    from kgcert.models import GenerationConfig

    requests = [r for r, _, _ in items]
    rows = model._encode_all([model.render(r) for r in requests])
    share, head, mean = head_share(model, items)
    ideal = 1 / (1 - share)
    row: dict[str, Any] = {"model": label, "prompts": len(items), "head_tokens": head,
                           "mean_prompt_tokens": round(mean, 1),
                           "head_share": round(share, 3), "ideal_ratio": round(ideal, 2),
                           # all work in causal attention: the suffix still attends the head
                           "attention_bound_ratio": round(1 / (1 - share**2), 2)}
    configs = {"choice": GenerationConfig(mode="choice", choice_prefix=ANSWER_PREFIX),
               "generate": GenerationConfig(max_new_tokens=max_new_tokens)}
    model.generate(requests[:2], configs["choice"])  # warm-up (and the weights loaded)
    for mode in modes:
        config = configs[mode]
        best = {True: float("inf"), False: float("inf")}
        best_wall = dict(best)
        head_s = float("inf")
        answers: dict[bool, list[Any]] = {}
        for _ in range(rounds):
            for reuse in (False, True):
                model.reuse_head = reuse
                model.heads.clear()
                if reuse:  # computed once per cell in a run: timed on its own
                    _, _, seconds = timed_cpu(lambda: model._head_for(rows))
                    head_s = min(head_s, seconds)
                answers[reuse], wall, seconds = timed_cpu(
                    lambda config=config: model.generate(requests, config))
                best[reuse] = min(best[reuse], seconds)
                best_wall[reuse] = min(best_wall[reuse], wall)
        ratio = best[False] / best[True]
        with_head = best[False] / (best[True] + head_s)
        pairs = list(zip(answers[True], answers[False], strict=True))
        failed = sum(a.error is not None for a, _ in pairs)
        if failed:
            raise SystemExit(f"{label}: {failed} prompts failed ({pairs[0][0].error})")
        same = all(a.text == b.text for a, b in pairs)
        if mode == "choice":
            same = same and all(
                max(abs(x - y) for x, y in zip(a.choice_probs, b.choice_probs, strict=True))
                <= 1e-4 for a, b in pairs)
        row[mode] = {
            "prompts_per_cpu_s_without": round(len(items) / best[False], 3),
            "prompts_per_cpu_s_with": round(len(items) / best[True], 3),
            "ratio": round(ratio, 2),
            "ratio_over_ideal": round(ratio / ideal, 2),
            "share_of_ideal_gain": round((ratio - 1) / (ideal - 1), 2) if ideal > 1 else None,
            "head_cpu_s": round(head_s, 2),
            f"ratio_with_the_head_over_{len(items)}_prompts": round(with_head, 2),
            "wall_ratio": round(best_wall[False] / best_wall[True], 2),
            "answers_equal": same,
        }
    model.reuse_head = True
    row["target"] = "ratio >= 80% of the ideal: ratio_over_ideal >= 0.8"
    return row


def _kgcert(arguments: list[str], threads: int) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kgcert", *arguments], capture_output=True,
                          text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"kgcert {arguments[0]} failed: {done.stderr.strip()[-400:]}")
    return done, time.perf_counter() - start


def demo_prompts(kg: str, seed: int, threads: int, keep: Path) -> dict[str, Any]:
    """Run the README demo's `kgcert run` (its flags, `--seed` added so the prompts repeat) in
    a fresh folder and keep its sample file at ``keep``: the demo's own prompts, at its spec,
    setting, few-shot and 700-token SmolLM2 budget. A run's wall time with the model's load,
    the response cache off and the load averages (`uptime`) before and after beside it."""
    before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="kgcert-demo-") as folder:
        run_file = Path(folder) / "run.yaml"
        run_file.write_text(json.dumps({"cache": False}))  # JSON is YAML
        _, seconds = _kgcert(["run", "--config", str(run_file), "--kg", kg, *DEMO_FLAGS,
                              "--seed", str(seed), "--out", str(Path(folder) / "demo")],
                             threads)
        keep.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(folder) / "demo" / DEMO_SAMPLES, keep)
    return {"model": "README demo run (smollm2, 20 prompts, choice, head cache on)",
            "wall_s": round(seconds, 1), "seed": seed,
            "load_average_before": [round(x, 2) for x in before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()]}


def default_prompts(kg: str, n: int, seed: int, keep: Path) -> None:
    """``n`` prompts of the demo's spec and setting at the default budget (12,000
    characters, 3 worked examples): one cell, as a run computes one head per cell."""
    done, _ = _kgcert(["prompts", "--kg", kg, "--spec", "primekg.dual_indication", "--n",
                       str(n), "--seed", str(seed), "--json"], 1)
    keep.parent.mkdir(parents=True, exist_ok=True)
    keep.write_text(done.stdout, encoding="utf-8")


def demo_wall_time(kg: str, threads: int) -> dict[str, Any]:
    """The README demo run end to end (model load included), response cache off, with the
    head's cache and without it."""
    row: dict[str, Any] = {"model": "README demo (smollm2, 20 prompts, choice)"}
    for reuse in (True, False):
        with tempfile.TemporaryDirectory(prefix="kgcert-demo-") as folder:
            config = {**DEMO, "kg": kg, "cache": False,
                      "model_options": {"smollm2": {"reuse_head": reuse}}}
            run_file = Path(folder) / "run.yaml"
            run_file.write_text(json.dumps(config))
            _, seconds = _kgcert(["run", "--config", str(run_file), "--out",
                                  str(Path(folder) / "run")], threads)
            row["wall_s_with_head_cache" if reuse else "wall_s_without"] = round(seconds, 1)
    return row
