"""What a certificate cost: model calls, tokens, wall time, GPU time and money.

Derived from the sample records alone (the sample file and the failed calls a rerun set aside
beside it), so it recomputes from the run's files and adds up over every session of a resumed
run. A response served from the response cache made no call: it is counted apart, and its
tokens and time are not charged. Skipped prompts reached no model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kgcert.certify.record import Cost
from kgcert.errors import InputError
from kgcert.rundir.sample_log import SampleLog, failed_records
from kgcert.rundir.sample_record import SampleRecord
from kgcert.util.yamlfile import read_yaml

PER_TOKENS = 1_000_000  # prices are dollars per million tokens


def parse_price(text: str) -> tuple[str, dict[str, float]]:
    """`MODEL=IN/OUT` (dollars per million prompt / completion tokens)."""
    model, sep, rates = text.rpartition("=")
    given, slash, taken = rates.partition("/")
    if not sep or not model or not slash:
        raise InputError(f"--price {text!r} must read MODEL=IN/OUT, dollars per million prompt "
                         "and completion tokens, e.g. openai:gpt-4o-mini=0.15/0.60")
    return model, _rates(given, taken, f"--price {text!r}")


def _rates(given: Any, taken: Any, where: str) -> dict[str, float]:
    try:
        rates = {"input": float(given), "output": float(taken)}
    except (TypeError, ValueError):
        raise InputError(f"{where}: prices must be numbers (dollars per million tokens)") from None
    if any(not value >= 0 or value == float("inf") for value in rates.values()):
        raise InputError(f"{where}: prices must be finite and not negative")
    return rates


def read_prices(path: Path) -> dict[str, dict[str, float]]:
    """A prices file: a YAML mapping MODEL: IN/OUT, or MODEL: {input: IN, output: OUT}."""
    loaded = read_yaml(path, "prices file")
    if not isinstance(loaded, dict):
        raise InputError(f"prices file {path} must map models to IN/OUT dollars per million "
                         "tokens")
    return {str(model): price_entry(value, f"prices file {path}: {model}")
            for model, value in loaded.items()}


def price_entry(value: Any, where: str) -> dict[str, float]:
    """One model's price as `IN/OUT` text or an {input, output} mapping."""
    if isinstance(value, str) and "/" in value:
        given, _, taken = value.partition("/")
        return _rates(given, taken, where)
    if isinstance(value, Mapping) and set(value) == {"input", "output"}:
        return _rates(value["input"], value["output"], where)
    raise InputError(f"{where}: give IN/OUT or {{input: IN, output: OUT}} dollars per million "
                     "tokens")


def sample_cost(records: Iterable[Mapping[str, Any]],
                price: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The cost of the calls behind `records` (each sample record once)."""
    calls = cache_hits = failed = untokened = 0
    prompt_tokens = completion_tokens = 0
    wall = gpu = 0.0
    gpu_known = False
    for record in records:
        response = record.get("response")
        if not isinstance(response, Mapping):  # skipped: no model was asked
            continue
        if response.get("cached"):
            cache_hits += 1
            continue
        calls += 1
        failed += response.get("error") is not None
        wall += float(response.get("latency_s") or 0.0)
        if response.get("gpu_s") is not None:
            gpu_known = True
            gpu += float(response["gpu_s"])
        given, taken = response.get("prompt_tokens"), response.get("completion_tokens")
        if given is None and taken is None:
            untokened += 1
        prompt_tokens += int(given or 0)
        completion_tokens += int(taken or 0)
    money = (None if price is None else
             (prompt_tokens * price["input"] + completion_tokens * price["output"]) / PER_TOKENS)
    return {"calls": calls, "cache_hits": cache_hits, "failed_calls": failed,
            "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "calls_without_token_counts": untokened, "wall_s": round(wall, 6),
            "gpu_s": round(gpu, 6) if gpu_known else None,
            "price_per_million_tokens": dict(price) if price is not None else None,
            "money_usd": money}


def file_cost(log: SampleLog, records: Iterable[SampleRecord],
              price: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The cost of a sample file, given the records it holds (the run has them in memory, so
    the file is not read and parsed again), and of the failed calls set aside beside it."""
    responses = [r.response for r in (*records, *failed_records(log))]
    return sample_cost(({"response": r.to_dict()} if r is not None else {} for r in responses),
                       price)


def cost_line(cost: Cost | None) -> str:
    """One short line for tables: calls, tokens, time, money."""
    if cost is None or not cost.to_dict():
        return "-"
    parts = [f"{cost.calls} calls"]
    if cost.cache_hits:
        parts.append(f"{cost.cache_hits} cached")
    tokens = int(cost.prompt_tokens or 0) + int(cost.completion_tokens or 0)
    if tokens:
        parts.append(f"{cost.prompt_tokens:,}+{cost.completion_tokens:,} tok")
    parts.append(f"{cost.wall_s or 0.0:.1f} s")
    if cost.gpu_s:
        parts.append(f"GPU {cost.gpu_s:.1f} s")
    if cost.money_usd is not None:
        parts.append(f"${cost.money_usd:.4f}")
    if cost.calls_saved is not None:  # a run that stopped once its comparisons did
        parts.append(f"{cost.calls_saved} saved vs fixed n")
    return ", ".join(parts)
