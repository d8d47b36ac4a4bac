"""OpenAI-compatible runner against a local chat-completions server (127.0.0.1 only)."""

from __future__ import annotations

import base64
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_openai import Script, completion, serve

pytest.importorskip("httpx")

from kgcert.answer_format.checker import Outcome, check_answer
from kgcert.errors import InputError
from kgcert.models import GenerationConfig, Message, ModelRequest, get_model
from kgcert.models.openai_compat import OpenAICompatModel
from kgcert.models.retry import RetryPolicy, parse_retry_after


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    with serve() as running:
        yield running


def _model(url: str, **options: Any) -> tuple[OpenAICompatModel, list[float]]:
    model = get_model(
        "openai:test-model", GenerationConfig(max_new_tokens=20), base_url=url, **options
    )
    assert isinstance(model, OpenAICompatModel)
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    model.sleep = fake_sleep
    return model, delays


def test_answers_in_order_with_usage(server: tuple[str, Script]) -> None:
    url, script = server
    model, _ = _model(url, concurrency=4)
    requests = [ModelRequest(prompt=f"question {i} pick {i % 4 + 1}") for i in range(12)]
    out = model.generate(requests)
    assert [r.text for r in out] == [f"correct answer: {i % 4 + 1}." for i in range(12)]
    assert all(r.error is None and r.completion_tokens == 3 for r in out)
    assert out[0].prompt_tokens == 4
    body = script.seen[0]
    assert body["model"] == "test-model" and body["max_tokens"] == 20
    assert body["temperature"] == 0.0 and body["messages"][0]["role"] == "user"
    assert script.auth[0] is None  # a local server without a key: no Authorization header


def test_key_from_environment_only(
    server: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, script = server
    monkeypatch.setenv("MY_LLM_KEY", "sk-secret-123")
    model, _ = _model(url, api_key_env="MY_LLM_KEY")
    model.generate([ModelRequest(messages=(Message("system", "s"), Message("user", "q 1")))])
    assert script.auth == ["Bearer sk-secret-123"]
    assert "sk-secret" not in repr(model) and "sk-secret" not in json.dumps(model.identity())
    assert [m["role"] for m in script.seen[0]["messages"]] == ["system", "user"]


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY"):
        get_model("openai:gpt-4o-mini")
    with pytest.raises(InputError, match="MY_MISSING_KEY"):
        get_model("openai:m", base_url="http://127.0.0.1:9/v1", api_key_env="MY_MISSING_KEY")


def test_429_with_retry_after_then_success(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [
        (429, {"Retry-After": "3"}, '{"error": {"message": "slow down"}}'),
        (429, {"retry-after-ms": "250"}, "{}"),
        (500, {}, "{}"),
    ]
    model, delays = _model(url, base_retry_delay_s=0.5)
    [response] = model.generate([ModelRequest(prompt="q 2")])
    assert response.error is None and response.text == "correct answer: 2."
    assert delays[:2] == [3.0, 0.25]
    assert 2.0 <= delays[2] <= 2.0 * 1.25  # third failure: backoff 0.5 * 2**2 plus jitter
    assert len(script.seen) == 4


def test_5xx_storm_gives_error_outcome_after_cap(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [(503, {}, '{"error": {"message": "overloaded"}}')] * 10
    model, delays = _model(url, max_attempts=4, base_retry_delay_s=1.0, max_retry_delay_s=3.0)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error is not None
    assert "HTTP 503" in response.error and "gave up after 4 attempts" in response.error
    assert len(script.seen) == 4 and len(delays) == 3
    assert all(d <= 3.0 for d in delays) and delays[-1] == 3.0  # capped
    result = check_answer(response.text, ["a", "b"], 1, error=response.error)
    assert result.outcome is Outcome.ERROR  # never a wrong answer


def test_retry_after_is_capped(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [(429, {"Retry-After": "3600"}, "{}")]
    model, delays = _model(url, max_retry_delay_s=5.0)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error is None and delays == [5.0]


def test_client_errors_are_not_retried(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [(400, {}, '{"error": {"message": "context length exceeded"}}')]
    model, delays = _model(url)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error == "request rejected (HTTP 400: context length exceeded)"
    assert delays == [] and len(script.seen) == 1
    script.faults = [(401, {}, "{}")]
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error is not None and "authentication failed" in response.error


def test_server_down_is_error_outcome() -> None:
    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model, delays = _model(f"http://127.0.0.1:{port}/v1", max_attempts=3)
    out = model.generate([ModelRequest(prompt="q 1"), ModelRequest(prompt="q 2")])
    for response in out:
        assert response.error is not None and "cannot reach" in response.error
        assert "gave up after 3 attempts" in response.error
    assert len(delays) == 4


def test_empty_and_garbage_completions(server: tuple[str, Script]) -> None:
    url, script = server
    script.reply = ""
    model, _ = _model(url)
    [empty] = model.generate([ModelRequest(prompt="q 1")])
    assert empty.error is None and empty.text == ""
    assert check_answer(empty.text, ["a", "b"], 1).outcome is Outcome.UNPARSEABLE
    script.reply = "%%%% ### lorem"
    [garbage] = model.generate([ModelRequest(prompt="q 1")])
    assert check_answer(garbage.text, ["a", "b"], 1).outcome is Outcome.UNPARSEABLE
    script.raw_reply = "<html>bad gateway</html>"
    [broken] = model.generate([ModelRequest(prompt="q 1")])
    assert broken.error == "malformed response: body is not JSON"


def test_sampling_seeds_differ_per_sample_index(server: tuple[str, Script]) -> None:
    url, script = server
    model, _ = _model(url)
    config = GenerationConfig(temperature=0.7, seed=3)
    model.generate([ModelRequest(prompt="q 1", sample_index=i) for i in range(3)], config)
    seeds = {body["seed"] for body in script.seen}
    assert len(seeds) == 3
    assert all(body["temperature"] == 0.7 for body in script.seen)


def test_choice_mode_rejected_and_bad_url() -> None:
    model, _ = _model("http://127.0.0.1:9/v1")
    with pytest.raises(InputError, match="local model"):
        choice = GenerationConfig(mode="choice", choice_prefix="correct answer: ")
        model.generate([ModelRequest(prompt="q", n_options=2)], choice)
    with pytest.raises(InputError, match="http"):
        get_model("openai:m", base_url="localhost:8000")


def test_retry_after_http_date() -> None:
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None


def test_policy_delay_is_capped_exponential() -> None:
    import random

    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=10.0, jitter=0.0)
    rng = random.Random(0)
    assert [policy.delay(a, None, rng) for a in range(6)] == [1, 2, 4, 8, 10, 10]


@pytest.mark.parametrize("choice, reason", [
    ({"index": 0, "finish_reason": "length"}, "choices[0] has no message (finish_reason 'length')"),
    ({"index": 0, "message": "correct answer: 1."}, "a message that is not an object"),
    ({"index": 0, "message": {"role": "assistant", "content": 1}}, "content of type int"),
    ({"index": 0, "message": {"role": "assistant", "content": {"text": "1"}}}, "of type dict"),
    ({"index": 0, "message": {"role": "assistant"}, "finish_reason": "length"},
     "the message has no content (finish_reason 'length')"),
])
def test_response_without_a_message_text_is_an_error(
    server: tuple[str, Script], choice: dict[str, Any], reason: str
) -> None:
    url, script = server
    script.raw_reply = json.dumps({"id": "x", "choices": [choice]})
    model, delays = _model(url)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error is not None and response.error.startswith("malformed response: ")
    assert reason in response.error
    assert check_answer(response.text, ["a", "b"], 1, error=response.error).outcome is (
        Outcome.ERROR)  # the answer never arrived: neither wrong nor unparseable
    assert delays == []  # a malformed body is not retried


def test_content_parts_and_refusals_are_answers(server: tuple[str, Script]) -> None:
    url, script = server
    model, _ = _model(url)
    parts = [{"type": "text", "text": "correct answer: "}, {"type": "text", "text": "2."}]
    script.raw_reply = json.dumps({"choices": [{"message": {"content": parts}}]})
    [joined] = model.generate([ModelRequest(prompt="q 1")])
    assert joined.error is None and joined.text == "correct answer: 2."
    script.raw_reply = json.dumps(
        {"choices": [{"message": {"content": None, "refusal": "I cannot help with that."}}]})
    [refused] = model.generate([ModelRequest(prompt="q 1")])
    assert refused.error is None and refused.refused == "refusal"  # an answer, never right
    assert refused.text == "I cannot help with that."
    script.raw_reply = json.dumps(
        {"choices": [{"message": {"content": ""}, "finish_reason": "content_filter"}]})
    [filtered] = model.generate([ModelRequest(prompt="q 1")])
    assert filtered.error is None
    assert filtered.refused == "empty completion (finish_reason 'content_filter')"


def test_trickled_reply_fails_at_the_deadline(server: tuple[str, Script]) -> None:
    """One byte every 0.5 s never trips a per-read timeout; the attempt deadline does."""
    url, script = server
    script.raw_reply = completion("correct answer: 1.")  # ~180 bytes: 90 s when trickled
    script.trickle_s = 0.5
    model, delays = _model(url, timeout_s=1.0, max_attempts=2)
    started = time.monotonic()
    [response] = model.generate([ModelRequest(prompt="q 1")])
    elapsed = time.monotonic() - started
    assert response.error == (
        "timeout: no complete response within 1 s (gave up after 2 attempts)")
    assert len(script.seen) == 2 and len(delays) == 1  # retries stay capped
    assert elapsed < 2 * 1.0 + 3.0  # two deadlines plus slack for a busy machine


SECRET_KEY = "sk-test-SECRET-0123456789abcdef"


def test_echoed_key_is_masked_in_error_texts(
    server: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, script = server
    monkeypatch.setenv("MY_LLM_KEY", SECRET_KEY)
    script.echo_auth = lambda call: 400
    model, _ = _model(url, api_key_env="MY_LLM_KEY", max_attempts=2)
    [rejected] = model.generate([ModelRequest(prompt="q 1")])
    assert script.auth[-1] == f"Bearer {SECRET_KEY}"  # the key was sent, and echoed
    assert rejected.error == ("request rejected (HTTP 400: invalid credentials in header "
                              "Authorization: Bearer ***)")
    script.echo_auth = lambda call: 503  # the retried path, out of retries
    [failed] = model.generate([ModelRequest(prompt="q 1")])
    assert failed.error is not None and "Bearer ***" in failed.error
    # a long body cut at 200 characters must not leave a piece of the key behind
    padding = "x" * 185
    script.echo_auth = lambda call: None
    script.faults = [(400, {}, json.dumps({"error": {"message": f"{padding} {SECRET_KEY}"}}))]
    [cut] = model.generate([ModelRequest(prompt="q 1")])
    assert cut.error is not None and "sk-test" not in cut.error
    # a 200 reply echoing the key: the stored answer text is masked too
    script.reply = f"correct answer: 1. Your key is {SECRET_KEY}"
    [answered] = model.generate([ModelRequest(prompt="q 1")])
    assert answered.text == "correct answer: 1. Your key is ***"


def test_url_credentials_are_used_but_never_recorded(
    server: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, script = server
    password = "pa55:w0rd/secret"  # needs percent-encoding in a URL
    credentialed = url.replace("http://", "http://alice:pa55%3Aw0rd%2Fsecret@")
    monkeypatch.setenv("OPENAI_BASE_URL", credentialed)
    model = get_model("openai:test-model", GenerationConfig(max_new_tokens=5))
    assert isinstance(model, OpenAICompatModel)
    [ok] = model.generate([ModelRequest(prompt="q 1")])
    token = base64.b64encode(f"alice:{password}".encode()).decode()
    assert ok.error is None and script.auth[-1] == f"Basic {token}"  # used for the request
    described = json.dumps(model.identity()) + repr(model) + model.base_url
    assert model.identity()["base_url"] == url
    assert "pa55" not in described and "alice" not in described
    script.echo_auth = lambda call: 400
    [rejected] = model.generate([ModelRequest(prompt="q 1")])
    assert rejected.error is not None and token not in rejected.error
    assert "Basic ***" in rejected.error
    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = f"http://alice:pa55%3Aw0rd%2Fsecret@127.0.0.1:{port}/v1"
    [unreachable] = get_model("openai:m", base_url=down, max_attempts=1).generate(
        [ModelRequest(prompt="q 1")])
    assert unreachable.error is not None and unreachable.error.startswith(
        f"cannot reach http://127.0.0.1:{port}/v1 (")
    assert "pa55" not in unreachable.error and "alice" not in unreachable.error
    with pytest.raises(InputError) as bad:
        get_model("openai:m", base_url="ftp://alice:pa55word@host/v1")
    assert "pa55word" not in str(bad.value)
