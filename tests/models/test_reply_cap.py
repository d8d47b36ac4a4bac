"""A reply longer than max_new_tokens can produce is an error outcome, neither stored nor
cached (issue 33, cause 4); the OpenAI-compatible client stops reading at the cap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import message
from fake_anthropic import serve as serve_anthropic
from fake_gemini import GeminiServer
from fake_openai import completion
from fake_openai import serve as serve_openai

from kgcert.models import GenerationConfig, ModelRequest
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.models.reply_cap import reply_bytes, reply_chars

pytest.importorskip("httpx")

CONFIG = GenerationConfig(max_new_tokens=8)
HUGE = "x" * (3 * 1024 * 1024)  # a runaway reply: far more than 8 tokens can be


def _no_sleep() -> Any:
    async def sleep(seconds: float) -> None:
        pass
    return sleep


def _ask_cached(model: Any, tmp_path: Path) -> tuple[Any, int]:
    cache = ResponseCache(tmp_path / "cache")
    try:
        [response] = CachedModel(model, cache).generate([ModelRequest(prompt="q")])
        return response, len(cache)
    finally:
        cache.close()


def test_limits_follow_max_new_tokens() -> None:
    assert reply_bytes(8) < reply_bytes(4096) < 2 * 1024 * 1024
    assert reply_chars(256) >= 256 * 16  # room for any honest tokenizer's longest token


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
@pytest.mark.parametrize("body", [
    completion(HUGE),  # a huge answer text
    json.dumps({"choices": [{"message": {"content": "ok"}}], "padding": HUGE}),  # huge envelope
], ids=["text", "envelope"])
def test_openai_stops_reading_at_the_cap(tmp_path: Path, body: str, chunked: bool) -> None:
    from kgcert.models import openai_compat

    with serve_openai() as (url, script):
        script.raw_reply = body
        script.chunked = chunked  # no declared length: the cap counts what arrives
        model = openai_compat.OpenAICompatModel("m", CONFIG, base_url=url, api_key=None,
                                                api_key_env="K")
        model.sleep = _no_sleep()
        response, cached = _ask_cached(model, tmp_path)
    assert response.error is not None and response.error.startswith("reply too long")
    assert "bytes" in response.error  # stopped while reading, not judged after
    assert "max_new_tokens=8" in response.error and response.text == ""
    assert cached == 0 and len(script.seen) == 1  # not cached, not retried


def test_openai_text_over_the_token_room_is_an_error(tmp_path: Path) -> None:
    from kgcert.models import openai_compat

    with serve_openai() as (url, script):
        script.reply = "y" * (reply_chars(8) + 1)  # fits the byte cap, not the token room
        model = openai_compat.OpenAICompatModel("m", CONFIG, base_url=url, api_key=None,
                                                api_key_env="K")
        response, cached = _ask_cached(model, tmp_path)
        assert response.error is not None and "reply too long" in response.error
        assert cached == 0
        script.reply = "correct answer: 1. fine"
        response, cached = _ask_cached(model, tmp_path)
    assert response.error is None and cached == 1


def test_anthropic_reply_over_the_cap_is_an_error(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("anthropic")
    from kgcert.models import anthropic_messages

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123")
    with serve_anthropic() as (url, script):
        script.raw_reply = message(HUGE)
        model = anthropic_messages.create("m", CONFIG, base_url=url)
        response, cached = _ask_cached(model, tmp_path)
    assert response.error is not None and "reply too long" in response.error
    assert "bytes" in response.error  # the SDK's transport stopped reading at the cap
    assert cached == 0 and len(script.seen) == 1


def test_gemini_reply_over_the_cap_is_an_error(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("google.genai")
    from kgcert.models import gemini

    monkeypatch.setenv("GEMINI_API_KEY", "AIza-test-0123")
    server = GeminiServer()
    try:
        server.reply = HUGE
        model = gemini.create("g", CONFIG, base_url=server.url)
        response, cached = _ask_cached(model, tmp_path)
    finally:
        server.close()
    assert response.error is not None and "reply too long" in response.error
    assert "bytes" in response.error  # the SDK's transport stopped reading at the cap
    assert cached == 0 and len(server.keys) == 1
