"""`openai:` over several serving replicas (two local fake servers, 127.0.0.1 only): calls
spread under one concurrency limit, a replica that dies mid-run has its calls retried on the
other, and the answers equal those of one endpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_openai import InFlight, Script, serve

pytest.importorskip("httpx")

from kgcert.errors import InputError
from kgcert.models import GenerationConfig, ModelRequest, get_model
from kgcert.models.openai_compat import OpenAICompatModel
from kgcert.models.replicas import ReplicaPool
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.jobs import build_models
from kgcert.run.runner import Job, Runner
from kgcert.rundir.run_spec import RunSpec

REQUESTS = [ModelRequest(prompt=f"question {i} pick {i % 4 + 1}") for i in range(40)]


def _model(**options: Any) -> OpenAICompatModel:
    model = get_model("openai:test-model", GenerationConfig(max_new_tokens=20), **options)
    assert isinstance(model, OpenAICompatModel)

    async def no_wait(seconds: float) -> None:
        pass

    model.sleep = no_wait
    return model


def test_a_replica_dying_mid_run_changes_no_answer() -> None:
    with serve() as (url_a, script_a), serve(Script(die_after=6)) as (url_b, script_b):
        single = _model(base_url=url_a).generate(REQUESTS)
        script_a.seen.clear()
        spread = _model(base_urls=[url_a, url_b], concurrency=4)
        answers = spread.generate(REQUESTS)
    assert [r.text for r in answers] == [r.text for r in single]
    assert all(r.error is None for r in answers)
    # both served; b's calls after its death went to a
    assert len(script_b.seen) >= 6 and len(script_a.seen) >= len(REQUESTS) - 6
    served = {r.url: r.served for r in spread.pool.replicas}
    assert served[url_b] == 6 and served[url_a] == len(REQUESTS) - 6
    assert spread.identity() == _model(base_url=url_a).identity()  # the same model, the same key


def test_calls_spread_over_healthy_replicas() -> None:
    with serve() as (url_a, script_a), serve() as (url_b, script_b):
        model = _model(base_urls=f"{url_a}, {url_b}", concurrency=4)
        model.generate(REQUESTS)
    # calls go to the replica with fewest in flight, so a replica the busy machine slows
    # gets fewer (23/17 seen at load 22 on 2 cores): each gets a fair share, not half
    assert min(len(script_a.seen), len(script_b.seen)) >= len(REQUESTS) // 4
    assert len(script_a.seen) + len(script_b.seen) == len(REQUESTS)


def test_every_replica_down_is_an_error_outcome() -> None:
    with serve(Script(die_after=0)) as (url_a, _), serve(Script(die_after=0)) as (url_b, _):
        model = _model(base_urls=[url_a, url_b], max_attempts=2)
        [response] = model.generate(REQUESTS[:1])
    assert response.error is not None and "gave up after 2 attempts" in response.error


def test_urls_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URLS", "http://127.0.0.1:9/v1,http://127.0.0.1:10/v1")
    model = _model()
    assert [r.url for r in model.pool.replicas] == ["http://127.0.0.1:9/v1",
                                                    "http://127.0.0.1:10/v1"]
    assert model.identity()["base_url"] == "http://127.0.0.1:9/v1"
    monkeypatch.setenv("OPENAI_BASE_URLS", "http://u:secret-pw@127.0.0.1:9/v1,http://x:10")
    assert "secret-pw" not in repr(_model().identity())


def test_bad_replica_lists_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="not both"):
        _model(base_url="http://127.0.0.1:9/v1", base_urls=["http://127.0.0.1:10/v1"])
    with pytest.raises(InputError, match="given twice"):
        _model(base_urls=["http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1/"])
    with pytest.raises(InputError, match="must be an http"):
        _model(base_urls="http://127.0.0.1:9/v1,ftp://x")
    with pytest.raises(ValueError, match="password"):
        RunSpec.of(kg="k", specs=("s",), models=("openai:m",), model_options={
            "openai:m": {"base_urls": ["http://127.0.0.1:9/v1", "http://u:pw@127.0.0.1:10"]}})


def test_a_failed_replica_is_tried_last_until_its_cooldown_ends() -> None:
    now = [0.0]
    pool = ReplicaPool(["http://a", "http://b"], cooldown_s=30, clock=lambda: now[0])
    a, b = pool.replicas
    pool.set_aside(a)
    assert pool.order() == [b, a]
    now[0] = 31.0
    b.busy = 1
    assert pool.order() == [a, b]


def test_one_concurrency_limit_holds_over_every_replica() -> None:
    """Four calls at a time in all, not four per replica (each client could open four)."""
    in_flight = InFlight()
    with (serve(Script(in_flight=in_flight)) as (url_a, script_a),
          serve(Script(in_flight=in_flight)) as (url_b, script_b)):
        _model(base_urls=[url_a, url_b], concurrency=4).generate(REQUESTS)
    assert script_a.seen and script_b.seen
    assert 2 <= in_flight.most <= 4


def _prompt(index: int) -> Prompt:
    """The fake server answers the prompt's last character: right on some, wrong on others."""
    provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0, index=index,
                            setting="vanilla")
    return Prompt(f"Question {index}: which?\n1. a\n2. b\n3. c\n4. d\nPick {1 + index % 3}",
                  provenance, options=("a", "b", "c", "d"), option_ids=("a", "b", "c", "d"),
                  correct_option=1 + index % 4)


def _certified(tmp_path: Path, folder: str, options: dict[str, Any]) -> dict[str, Any]:
    """A run of 30 prompts from a run file naming the model's base URLs; its certificate."""
    run_file = tmp_path / f"{folder}.yaml"
    run_file.write_text(json.dumps({
        "kg": "toy", "specs": ["toy"], "models": ["openai:test-model"], "n": 30,
        "batch_size": 10, "cache": False, "model_options": {"openai:test-model": options}}))
    config = RunSpec.parse(run_file, {})
    slots = build_models(config, None)
    [path] = Runner(config, tmp_path / folder, [Job("toy", "toy", "vanilla", _prompt)],
                    slots).run()
    body = json.loads(path.read_text(encoding="utf-8"))
    return {key: body[key] for key in ("k", "n", "lower", "upper", "outcomes", "model")}


def test_a_run_over_replicas_from_its_run_file_certifies_as_one_endpoint_does(
        tmp_path: Path) -> None:
    with serve() as (url_a, script_a), serve(Script(die_after=8)) as (url_b, script_b):
        one = _certified(tmp_path, "one", {"base_url": url_a})
        script_a.seen.clear()
        spread = _certified(tmp_path, "spread", {"base_urls": [url_b, url_a],
                                                 "concurrency": 4})
    assert spread == one and 0 < one["k"] < one["n"] == 30
    assert one["outcomes"]["error"] == 0
    assert len(script_b.seen) > 8 and len(script_a.seen) >= 30 - 8  # b died; a took its calls


def test_each_reply_s_model_name_is_recorded_and_mixed_names_stop_the_run(
        tmp_path: Path) -> None:
    """Replicas serving different models would mix two models in one certificate (issue 46):
    each sample records the model name its reply gave, and a second name stops the run with
    one line naming both."""
    with serve(Script(model="llama-8b")) as (url_a, _), serve(Script(model="llama-8b")) as (
            url_b, _):
        same = _model(base_urls=[url_a, url_b], concurrency=4).generate(REQUESTS)
        _certified(tmp_path, "same", {"base_urls": [url_a, url_b], "concurrency": 4})
    assert {r.served_model for r in same} == {"llama-8b"} and all(r.error is None for r in same)
    records = [json.loads(line) for path in (tmp_path / "same" / "samples").rglob("*.jsonl")
               for line in path.read_text().splitlines()]
    assert len(records) == 30 and {r["response"]["served_model"] for r in records} == {
        "llama-8b"}
    with serve(Script(model="llama-8b")) as (url_a, _), serve(Script(model="qwen-7b")) as (
            url_b, _):
        with pytest.raises(InputError, match="replies name two models") as mixed:
            _model(base_urls=[url_a, url_b], concurrency=4).generate(REQUESTS)
        with pytest.raises(InputError, match="replies name two models"):
            _certified(tmp_path, "mixed", {"base_urls": [url_a, url_b], "concurrency": 4})
    assert "'llama-8b'" in str(mixed.value) and "'qwen-7b'" in str(mixed.value)
    assert "\n" not in str(mixed.value)
