"""OpenAI-compatible runner against a local chat-completions server (127.0.0.1 only)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("httpx")

from kgcert.checker import Outcome, check_answer
from kgcert.errors import InputError
from kgcert.models import GenerationConfig, Message, ModelRequest, get_model
from kgcert.models.openai_compat import OpenAICompatModel
from kgcert.models.retry import RetryPolicy, parse_retry_after


@dataclass
class Script:
    """Faults to serve before succeeding: (status, headers, body) consumed in order."""

    faults: list[tuple[int, dict[str, str], str]] = field(default_factory=list)
    reply: str | None = None  # None: echo an answer built from the prompt
    raw_reply: str | None = None  # a non-JSON body with status 200
    seen: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str | None] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Handler(BaseHTTPRequestHandler):
    script: Script

    def log_message(self, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        script = self.server.script  # type: ignore[attr-defined]
        with script.lock:
            script.seen.append(body)
            script.auth.append(self.headers.get("Authorization"))
            fault = script.faults.pop(0) if script.faults else None
        if self.path != "/v1/chat/completions":
            self._send(404, {}, json.dumps({"error": {"message": "no such route"}}))
        elif fault is not None:
            self._send(*fault)
        elif script.raw_reply is not None:
            self._send(200, {}, script.raw_reply)
        else:
            prompt = body["messages"][-1]["content"]
            text = script.reply if script.reply is not None else f"correct answer: {prompt[-1]}."
            payload = {
                "id": "x",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 3},
            }
            self._send(200, {}, json.dumps(payload))

    def _send(self, status: int, headers: dict[str, str], body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[tuple[str, Script]]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.script = Script()  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", httpd.script  # type: ignore[attr-defined]
    finally:
        httpd.shutdown()
        httpd.server_close()


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
        model.generate([ModelRequest(prompt="q", n_options=2)], GenerationConfig(mode="choice"))
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
