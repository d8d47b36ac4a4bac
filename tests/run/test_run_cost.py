"""What each certificate cost: calls sent (cache hits apart), tokens, seconds and money, all
recomputed from the sample files and added up over the sessions of a resumed run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_run_certificates import _prompts, _slot

from kgcert.certify.cost import parse_price, read_prices, sample_cost
from kgcert.cli.run import with_prices
from kgcert.cli.runs import runs_command, show_command
from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_spec import RunSpec
from kgcert.rundir.sample_log import complete_records

PRICE = {"input": 0.15, "output": 0.6}


def _job(n: int | None = None) -> Job:
    return Job("toy", "toy", "vanilla", _prompts(skip=lambda i: i % 7 == 6), n=n)


def _config(n: int, **extra: Any) -> RunSpec:
    return RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.8",), n=n, **extra)


def _certify(run_dir: Path, slot: ModelSlot, n: int = 20, **extra: Any) -> dict[str, Any]:
    path = Runner(_config(n, **extra), run_dir, [_job()], [slot]).run()[0]
    return json.loads(path.read_text())


def _file_records(run_dir: Path, body: dict[str, Any]) -> list[dict[str, Any]]:
    samples = run_dir / body["sample_file"]
    records = [r.to_dict() for _, r in complete_records(samples)]
    failed = samples.with_name(samples.name + ".failed")
    if failed.exists():
        records += [json.loads(line) for line in failed.read_text().splitlines()]
    return records


def test_cost_is_what_the_sample_files_say_and_adds_up_over_a_resume(tmp_path: Path) -> None:
    first = _certify(tmp_path, _slot(failing={2, 4}), prices={"bernoulli:0.8": "0.15/0.6"})
    cost = first["cost"]
    records = _file_records(tmp_path, first)
    asked = [r for r in records if r["outcome"] != "skipped"]
    assert cost["calls"] == len(asked) == 20 - 2  # indices 6 and 13 were skipped: no call
    assert cost["failed_calls"] == 2 and cost["cache_hits"] == 0
    assert cost["completion_tokens"] == sum(r["response"]["completion_tokens"] or 0
                                            for r in asked)
    assert cost["wall_s"] == pytest.approx(sum(r["response"]["latency_s"] for r in asked),
                                           abs=1e-6)  # kept to the microsecond
    assert cost["gpu_s"] is None  # bernoulli runs on no GPU it could see
    assert cost == sample_cost(records, PRICE)

    # the rerun asks the two failed calls again: they cost twice, and the first session counts
    second = _certify(tmp_path, _slot(), prices={"bernoulli:0.8": "0.15/0.6"})
    records = _file_records(tmp_path, second)
    assert len(records) == 20 + 2
    assert second["cost"]["calls"] == 18 + 2
    assert second["cost"]["failed_calls"] == 2  # the first session's, kept in the .failed file
    assert second["cost"] == sample_cost(records, PRICE)
    assert second["cost"]["wall_s"] >= cost["wall_s"]


def test_prices_give_the_money_of_the_tokens() -> None:
    records = [{"response": {"prompt_tokens": 1000, "completion_tokens": 200, "latency_s": 0.5,
                             "cached": False, "error": None}},
               {"response": {"prompt_tokens": 3000, "completion_tokens": 0, "latency_s": 1.5,
                             "cached": False, "error": None, "gpu_s": 1.25}},
               {"outcome": "skipped"}]
    cost = sample_cost(records, {"input": 2.5, "output": 10.0})
    assert cost["money_usd"] == pytest.approx((4000 * 2.5 + 200 * 10.0) / 1e6)
    assert (cost["calls"], cost["prompt_tokens"], cost["completion_tokens"]) == (2, 4000, 200)
    assert cost["wall_s"] == pytest.approx(2.0) and cost["gpu_s"] == pytest.approx(1.25)
    assert sample_cost(records)["money_usd"] is None  # no price, no money claimed


def test_price_flags_and_files_are_read_and_bad_ones_refused(tmp_path: Path) -> None:
    assert parse_price("openai:gpt-4o-mini=0.15/0.60") == ("openai:gpt-4o-mini", PRICE)
    for bad in ("gpt=0.15", "gpt", "gpt=a/b", "gpt=-1/2"):
        with pytest.raises(InputError, match="--price"):
            parse_price(bad)
    file = tmp_path / "prices.yaml"
    file.write_text("bernoulli:0.8: 1/2\nother: {input: 3, output: 4}\n")
    assert read_prices(file) == {"bernoulli:0.8": {"input": 1.0, "output": 2.0},
                                 "other": {"input": 3.0, "output": 4.0}}
    config = _config(5, prices={"bernoulli:0.8": {"input": 9, "output": 9}})
    # the run file's prices, then the file's, then --price on top
    assert with_prices(config, (), file)["bernoulli:0.8"] == {"input": 1.0, "output": 2.0}
    assert with_prices(config, ("bernoulli:0.8=0.15/0.6",), file)["bernoulli:0.8"] == PRICE
    with pytest.raises(InputError, match="not a model of this run"):
        with_prices(config, ("bernoulli:0.9=1/1",), None)
    file.write_text("m: 3\n")
    with pytest.raises(InputError, match="IN/OUT"):
        read_prices(file)


class Counting:
    """A cacheable model that counts its calls (what is tested is how the cache hits count)."""

    name = "counting"
    cacheable = True
    config = GenerationConfig()

    def __init__(self) -> None:
        self.calls = 0

    def identity(self) -> dict[str, Any]:
        return {"provider": "counting"}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        self.calls += len(requests)
        return [ModelResponse("correct answer: 1. alpha", prompt_tokens=50,
                              completion_tokens=5, latency_s=0.01) for _ in requests]


def test_cache_hits_are_not_counted_as_calls(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    inner = Counting()
    slot = ModelSlot("bernoulli:0.8", CachedModel(inner, cache), GenerationConfig())
    fresh = _certify(tmp_path / "a", slot, prices={"bernoulli:0.8": "1/1"})["cost"]
    assert fresh["calls"] == inner.calls == 18 and fresh["cache_hits"] == 0
    assert fresh["money_usd"] == pytest.approx(18 * 55 / 1e6)
    again = _certify(tmp_path / "b", slot, prices={"bernoulli:0.8": "1/1"})["cost"]
    assert inner.calls == 18  # the second run sent nothing
    assert again["calls"] == 0 and again["cache_hits"] == 18
    assert (again["prompt_tokens"], again["wall_s"], again["money_usd"]) == (0, 0.0, 0.0)
    cache.close()


def test_runs_and_show_print_the_cost(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    run_dir = runs / "one"
    cost = _certify(run_dir, _slot(), prices={"bernoulli:0.8": "0.15/0.6"})["cost"]
    listed = CliRunner().invoke(runs_command, [str(runs)], terminal_width=250)
    assert listed.exit_code == 0, listed.output
    assert f"{cost['calls']} calls" in listed.output
    assert f"${cost['money_usd']:.4f}" in listed.output
    as_json = CliRunner().invoke(runs_command, [str(runs), "--json"])
    assert json.loads(as_json.output)["certificates"][0]["cost"] == cost
    shown = CliRunner().invoke(show_command, [str(run_dir), "0"])
    assert shown.exit_code == 0, shown.output
    assert "cost: one model call, " in shown.output and "completion tokens" in shown.output
