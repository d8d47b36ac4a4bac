"""Gemini provider: missing package and key messages, and retries with a fake client."""

from __future__ import annotations

import builtins
import importlib.util
from typing import Any

import pytest

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
