"""The anthropic provider (official SDK) against a local Messages API server (127.0.0.1 only)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_anthropic import content, error, message, serve
from fake_openai import Script

pytest.importorskip("anthropic")

from kgcert.answer_format.checker import Outcome, check_answer
from kgcert.errors import InputError
from kgcert.models import GenerationConfig, Message, ModelRequest, get_model
from kgcert.models.anthropic_messages import AnthropicModel
from kgcert.models.cache import CachedModel, ResponseCache

KEY = "sk-ant-test-SECRET-0123456789abcdef"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Script]]:
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with serve() as running:
        yield running


def _model(url: str, **options: Any) -> tuple[AnthropicModel, list[float]]:
    model = get_model("anthropic:claude-test", GenerationConfig(max_new_tokens=20),
                      base_url=url, **options)
    assert isinstance(model, AnthropicModel)
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    model.sleep = fake_sleep
    return model, delays


def test_answers_in_order_with_usage_and_the_key(server: tuple[str, Script]) -> None:
    url, script = server
    model, _ = _model(url, concurrency=4)
    requests = [ModelRequest(prompt=f"question {i} pick {i % 4 + 1}") for i in range(12)]
    out = model.generate(requests)
    assert [r.text for r in out] == [f"correct answer: {i % 4 + 1}." for i in range(12)]
    assert all(r.error is None and r.completion_tokens == 3 for r in out)
    assert out[0].prompt_tokens == 4
    body = script.seen[0]
    assert body["model"] == "claude-test" and body["max_tokens"] == 20
    assert body["temperature"] == 0.0 and "top_p" not in body  # never both on recent models
    assert sorted(seen["messages"][0]["content"] for seen in script.seen) == sorted(
        f"question {i} pick {i % 4 + 1}" for i in range(12))  # one user message each
    assert set(script.auth) == {KEY}  # sent as x-api-key, from the environment
    described = json.dumps(model.identity()) + repr(model)
    assert "SECRET" not in described
    assert model.identity() == {"provider": "anthropic", "model": "claude-test",
                                "base_url": url}


def test_system_messages_become_the_system_field(server: tuple[str, Script]) -> None:
    url, script = server
    model, _ = _model(url)
    model.generate([ModelRequest(messages=(Message("system", "be brief"),
                                           Message("user", "q 2")))])
    body = script.seen[0]
    assert body["system"] == "be brief"
    assert [m["role"] for m in body["messages"]] == ["user"]


def test_missing_key_and_bad_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(InputError, match="ANTHROPIC_API_KEY"):
        get_model("anthropic:claude-test")
    with pytest.raises(InputError, match="MY_MISSING_KEY"):
        get_model("anthropic:m", api_key_env="MY_MISSING_KEY")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with pytest.raises(InputError) as bad:
        get_model("anthropic:m", base_url="ftp://alice:pa55word@host")
    assert "pa55word" not in str(bad.value)
    with pytest.raises(InputError, match="choice scoring needs a local model"):
        choice = GenerationConfig(mode="choice", choice_prefix="correct answer: ")
        get_model("anthropic:m", choice).generate([ModelRequest(prompt="q 1")])


def test_429_and_529_retried_honouring_retry_after(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [
        (429, {"Retry-After": "3"}, error("rate_limit_error", "slow down")),
        (529, {"retry-after-ms": "250"}, error("overloaded_error", "overloaded")),
        (500, {}, error("api_error", "oops")),
    ]
    model, delays = _model(url, base_retry_delay_s=0.5)
    [response] = model.generate([ModelRequest(prompt="q 2")])
    assert response.error is None and response.text == "correct answer: 2."
    assert delays[:2] == [3.0, 0.25]
    assert 2.0 <= delays[2] <= 2.0 * 1.25  # third failure: backoff 0.5 * 2**2 plus jitter
    assert len(script.seen) == 4  # the SDK's own retries are off: only ours


def test_overload_storm_is_an_error_outcome_after_the_cap(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [(529, {}, error("overloaded_error", "Overloaded"))] * 10
    model, delays = _model(url, max_attempts=4, max_retry_delay_s=3.0)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error == ("server error (HTTP 529: Overloaded) (gave up after 4 attempts)")
    assert len(script.seen) == 4 and len(delays) == 3 and max(delays) == 3.0
    assert check_answer(response.text, ["a", "b"], 1, error=response.error).outcome is (
        Outcome.ERROR)  # never a wrong answer


def test_client_errors_are_not_retried(server: tuple[str, Script]) -> None:
    url, script = server
    script.faults = [(400, {}, error("invalid_request_error", "prompt is too long"))]
    model, delays = _model(url)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error == "request rejected (HTTP 400: prompt is too long)"
    assert delays == [] and len(script.seen) == 1
    script.faults = [(401, {}, error("authentication_error", "invalid x-api-key"))]
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error == ("authentication failed (HTTP 401); check the key in "
                              "ANTHROPIC_API_KEY")


def test_server_down_is_an_error_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model, delays = _model(f"http://127.0.0.1:{port}", max_attempts=3)
    out = model.generate([ModelRequest(prompt="q 1"), ModelRequest(prompt="q 2")])
    for response in out:
        assert response.error == (f"cannot reach http://127.0.0.1:{port} "
                                  "(gave up after 3 attempts)")
    assert len(delays) == 4


@pytest.mark.parametrize("reply, reason", [
    (content([], "max_tokens"), "no text block (stop_reason 'max_tokens')"),
    (content([{"type": "tool_use", "id": "t", "name": "f", "input": {}}], "tool_use"),
     "no text block (stop_reason 'tool_use')"),
    (json.dumps({"id": "msg_x", "type": "message", "role": "assistant"}), "no content"),
    ("not json at all", "body is not JSON"),
    ("[1, 2]", "no content"),
])
def test_a_reply_without_text_is_an_error(server: tuple[str, Script], reply: str,
                                          reason: str) -> None:
    url, script = server
    script.raw_reply = reply
    model, delays = _model(url)
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error is not None and response.error.startswith("malformed response: ")
    assert reason in response.error
    assert check_answer(response.text, ["a", "b"], 1, error=response.error).outcome is (
        Outcome.ERROR)  # the answer never arrived: neither wrong nor unparseable
    assert delays == []  # a malformed body is not retried


def test_text_blocks_join_and_a_refusal_is_an_answer(server: tuple[str, Script]) -> None:
    url, script = server
    model, _ = _model(url)
    script.raw_reply = content([{"type": "thinking", "thinking": "hmm", "signature": "s"},
                                {"type": "text", "text": "correct answer: "},
                                {"type": "text", "text": "2."}])
    [joined] = model.generate([ModelRequest(prompt="q 1")])
    assert joined.error is None and joined.text == "correct answer: 2."
    script.raw_reply = content([], "refusal")
    [refused] = model.generate([ModelRequest(prompt="q 1")])
    assert refused.error is None and refused.refused == "refusal (stop_reason 'refusal')"


def test_trickled_reply_fails_at_the_deadline(server: tuple[str, Script]) -> None:
    """One byte every 0.5 s never trips a per-read timeout; the attempt deadline does."""
    url, script = server
    script.raw_reply = message("correct answer: 1.")
    script.trickle_s = 0.5
    model, delays = _model(url, timeout_s=1.0, max_attempts=2)
    started = time.monotonic()
    [response] = model.generate([ModelRequest(prompt="q 1")])
    assert response.error == (
        "timeout: no complete response within 1 s (gave up after 2 attempts)")
    assert len(script.seen) == 2 and len(delays) == 1
    assert time.monotonic() - started < 2 * 1.0 + 3.0  # two deadlines plus slack


def test_echoed_key_is_masked(server: tuple[str, Script]) -> None:
    url, script = server
    script.echo_auth = lambda call: 400
    model, _ = _model(url, max_attempts=2)
    [rejected] = model.generate([ModelRequest(prompt="q 1")])
    assert rejected.error == "request rejected (HTTP 400: invalid x-api-key: ***)"
    script.echo_auth = lambda call: 503  # the retried path, out of retries
    [failed] = model.generate([ModelRequest(prompt="q 1")])
    assert failed.error is not None and "***" in failed.error and "SECRET" not in failed.error
    script.echo_auth = lambda call: None
    padding = "x" * 185  # a long body cut at 200 characters keeps no piece of the key
    script.faults = [(400, {}, error("invalid_request_error", f"{padding} {KEY}"))]
    [cut] = model.generate([ModelRequest(prompt="q 1")])
    assert cut.error is not None and "sk-ant" not in cut.error
    script.reply = f"correct answer: 1. Your key is {KEY}"
    [answered] = model.generate([ModelRequest(prompt="q 1")])
    assert answered.text == "correct answer: 1. Your key is ***"


def test_url_credentials_are_refused_unshown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://alice:pa55%3Aw0rd@127.0.0.1:9")
    with pytest.raises(InputError) as refused:
        get_model("anthropic:claude-test")
    assert "user:password" in str(refused.value) and "ANTHROPIC_API_KEY" in str(refused.value)
    assert "pa55" not in str(refused.value) and "alice" not in str(refused.value)


def test_responses_are_cached(server: tuple[str, Script], tmp_path: Any) -> None:
    url, script = server
    model, _ = _model(url)
    cached = CachedModel(model, ResponseCache(tmp_path))
    first = cached.generate([ModelRequest(prompt="q 3")])
    again = cached.generate([ModelRequest(prompt="q 3")])
    assert [r.text for r in again] == [r.text for r in first] == ["correct answer: 3."]
    assert again[0].cached and len(script.seen) == 1
