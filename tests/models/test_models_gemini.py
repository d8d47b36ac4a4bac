"""Gemini provider: missing package and key messages, and retries with a fake client."""

from __future__ import annotations

import builtins
import importlib.util
import json
from typing import Any

import pytest
from fake_gemini import GeminiServer

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models import GenerationConfig, ModelRequest, gemini, get_model


def _has_google_genai() -> bool:
    # find_spec of a submodule raises when the parent package `google` is absent.
    return importlib.util.find_spec("google") is not None and (
        importlib.util.find_spec("google.genai") is not None)


def test_missing_key_names_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(InputError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        gemini.create("gemini-2.0-flash", GenerationConfig())
    with pytest.raises(InputError, match="MY_GEMINI"):
        gemini.create("gemini-2.0-flash", GenerationConfig(), api_key_env="MY_GEMINI")


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    real_import = builtins.__import__

    def no_google(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "google" or name.startswith("google."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_google)
    with pytest.raises(MissingDependencyError, match=r"pip install 'kgcert\[gemini\]'"):
        gemini.create("gemini-2.0-flash", GenerationConfig())


needs_genai = pytest.mark.skipif(
    not _has_google_genai(), reason="google-genai not installed"
)


@needs_genai
def test_construction_without_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "secret-key")
    model = get_model("gemini:gemini-2.0-flash")
    assert model.identity() == {"provider": "gemini", "model": "gemini-2.0-flash"}
    assert "secret" not in repr(model)


@needs_genai
def test_retries_then_error_outcome_with_fake_client(monkeypatch: pytest.MonkeyPatch) -> None:
    from google.genai import errors, types

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    model = gemini.create("g", GenerationConfig(max_new_tokens=8), max_attempts=3)
    calls: list[Any] = []
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    class FakeModels:
        def __init__(self, plan: list[Any]) -> None:
            self.plan = plan

        async def generate_content(self, **kwargs: Any) -> Any:
            calls.append(kwargs)
            step = self.plan.pop(0)
            if isinstance(step, Exception):
                raise step
            return step

    ok = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(role="model", parts=[types.Part(text="correct answer: 1.")])
            )
        ],
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=5, candidates_token_count=4
        ),
    )
    overloaded = errors.ServerError(503, {"error": {"message": "overloaded", "code": 503}})
    model._client = type(
        "C", (), {"aio": type("A", (), {"models": FakeModels([overloaded, ok])})()}
    )()
    model.sleep = fake_sleep
    [response] = model.generate([ModelRequest(prompt="q")])
    assert response.error is None and response.text == "correct answer: 1."
    assert response.prompt_tokens == 5 and response.completion_tokens == 4 and len(delays) == 1
    assert calls[0]["config"].max_output_tokens == 8

    model._client.aio.models = FakeModels([overloaded] * 3)
    [failed] = model.generate([ModelRequest(prompt="q")])
    assert failed.error is not None and "gave up after 3 attempts" in failed.error

    bad = errors.ClientError(400, {"error": {"message": "bad request", "code": 400}})
    model._client.aio.models = FakeModels([bad])
    [rejected] = model.generate([ModelRequest(prompt="q")])
    assert rejected.error is not None and "HTTP 400" in rejected.error


@pytest.fixture
def gemini_server() -> Any:
    server = GeminiServer()
    yield server
    server.close()


GEMINI_KEY = "AIza-test-SECRET-0123456789"


def _local_gemini(server: GeminiServer, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Any:
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    model = gemini.create("g", GenerationConfig(max_new_tokens=8), base_url=server.url,
                          **options)
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)

    model.sleep = fake_sleep
    return model, delays


@needs_genai
def test_local_endpoint_answer_and_identity(
    gemini_server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, _ = _local_gemini(gemini_server, monkeypatch)
    [response] = model.generate([ModelRequest(prompt="q")])
    assert response.error is None and response.text == "ok"
    assert gemini_server.keys == [GEMINI_KEY] and gemini_server.paths[0].endswith(
        "/models/g:generateContent")
    assert model.identity() == {"provider": "gemini", "model": "g", "base_url": gemini_server.url}


@needs_genai
@pytest.mark.parametrize("body, reason", [
    ({"promptFeedback": {"blockReason": "SAFETY"}}, "the prompt was blocked (SAFETY)"),
    ({"candidates": [{"finishReason": "MAX_TOKENS"}]},
     "empty completion (finish_reason MAX_TOKENS)"),
    ({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}]},
     "empty completion (finish_reason SAFETY)"),
])
def test_a_safety_block_or_an_empty_completion_is_a_refusal_not_an_error(
    gemini_server: GeminiServer, monkeypatch: pytest.MonkeyPatch, body: dict[str, Any],
    reason: str
) -> None:
    """The model answered by declining: a model outcome (counted wrong), never a failed
    call, so a prompt-dependent refusal cannot be left out of the headline."""
    import json

    gemini_server.replies = [(200, json.dumps(body))]
    model, delays = _local_gemini(gemini_server, monkeypatch)
    [response] = model.generate([ModelRequest(prompt="q")])
    assert response.refused == reason and response.error is None and delays == []


@needs_genai
@pytest.mark.parametrize("body, reason", [
    ({}, "malformed response: no candidates"),
    ({"candidates": [{"content": {"role": "model", "parts": []}}]},
     "malformed response: the candidate has no text"),
])
def test_response_without_text_is_an_error(
    gemini_server: GeminiServer, monkeypatch: pytest.MonkeyPatch, body: dict[str, Any],
    reason: str
) -> None:
    import json

    from kgcert.answer_format.checker import Outcome, check_answer

    gemini_server.replies = [(200, json.dumps(body))]
    model, delays = _local_gemini(gemini_server, monkeypatch)
    [response] = model.generate([ModelRequest(prompt="q")])
    assert response.error == reason and delays == []
    assert check_answer(response.text, ["a", "b"], 1, error=response.error).outcome is (
        Outcome.ERROR)


@needs_genai
def test_echoed_key_is_masked(gemini_server: GeminiServer,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    echo = json.dumps({"error": {"code": 400, "status": "INVALID_ARGUMENT",
                                 "message": "API key not valid: {key}"}})
    gemini_server.replies = [(400, echo)]
    model, _ = _local_gemini(gemini_server, monkeypatch)
    [rejected] = model.generate([ModelRequest(prompt="q")])
    assert rejected.error == "request rejected (HTTP 400: API key not valid: ***)"
    gemini_server.replies = [(503, echo.replace("400", "503"))] * 2
    model, _ = _local_gemini(gemini_server, monkeypatch, max_attempts=2)
    [failed] = model.generate([ModelRequest(prompt="q")])
    assert failed.error is not None and "SECRET" not in failed.error and "***" in failed.error


@needs_genai
def test_trickled_reply_fails_at_the_deadline(
    gemini_server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    gemini_server.trickle_s = 0.5  # the default ~70-byte answer: 35 s when trickled
    model, delays = _local_gemini(gemini_server, monkeypatch, timeout_s=1.0, max_attempts=2)
    started = time.monotonic()
    [response] = model.generate([ModelRequest(prompt="q")])
    elapsed = time.monotonic() - started
    assert response.error == "timeout: no complete response within 1 s (gave up after 2 attempts)"
    assert len(gemini_server.keys) == 2 and len(delays) == 1
    assert elapsed < 2 * 1.0 + 3.0


@needs_genai
def test_unreachable_endpoint_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    model = gemini.create("g", GenerationConfig(), max_attempts=1,
                          base_url=f"http://bob:hunter22@127.0.0.1:{port}")
    [response] = model.generate([ModelRequest(prompt="q")])
    assert response.error is not None and "cannot reach the Gemini API" in response.error
    assert "hunter22" not in json.dumps(model.identity()) + repr(model)
    with pytest.raises(InputError) as bad:
        gemini.create("g", GenerationConfig(), base_url="ftp://bob:hunter22@x")
    assert "hunter22" not in str(bad.value)


@needs_genai
def test_a_base_url_answering_html_is_a_one_line_error(
    gemini_server: GeminiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxy's or web server's HTML page instead of the API (issue 46): the call fails with
    one line saying so, not retried, never an internal error."""
    gemini_server.replies = [(200, "<html><body><h1>Welcome to nginx</h1></body></html>")]
    model, delays = _local_gemini(gemini_server, monkeypatch)
    [response] = model.generate([ModelRequest(prompt="q")])
    assert response.error is not None and "body is not JSON" in response.error
    assert "\n" not in response.error and delays == []
