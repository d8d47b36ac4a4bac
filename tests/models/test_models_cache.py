"""Response cache: re-runs reuse responses; keys cover config, prompt and sample index."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kgcert.models import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.cache import CachedModel, ResponseCache, cache_key


class CountingModel:
    """Answers with a counter, so a cache hit is visible."""

    cacheable = True
    name = "counting"

    def __init__(self, fail_on: str | None = None) -> None:
        self.config = GenerationConfig()
        self.calls = 0
        self.fail_on = fail_on

    def identity(self) -> dict[str, Any]:
        return {"provider": "counting", "model": "m"}

    def close(self) -> None:
        pass

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        out = []
        for request in requests:
            self.calls += 1
            if request.prompt == self.fail_on:
                out.append(ModelResponse.failure("HTTP 503"))
            else:
                out.append(
                    ModelResponse(text=f"answer {self.calls}", prompt_tokens=3, completion_tokens=2)
                )
        return out


def test_rerun_reuses_cache(tmp_path: Path) -> None:
    inner = CountingModel()
    model = CachedModel(inner, ResponseCache(tmp_path))
    requests = [ModelRequest(prompt=f"q{i}") for i in range(5)]
    first = model.generate(requests)
    assert inner.calls == 5 and not any(r.cached for r in first)
    # a new process: a fresh cache object on the same directory
    again = CachedModel(inner, ResponseCache(tmp_path)).generate(
        requests + [ModelRequest(prompt="new")]
    )
    assert inner.calls == 6
    assert [r.text for r in again[:5]] == [r.text for r in first]
    assert all(r.cached for r in again[:5]) and not again[5].cached
    assert again[0].prompt_tokens == 3


def test_errors_are_not_cached(tmp_path: Path) -> None:
    inner = CountingModel(fail_on="bad")
    model = CachedModel(inner, ResponseCache(tmp_path))
    model.generate([ModelRequest(prompt="bad"), ModelRequest(prompt="good")])
    out = model.generate([ModelRequest(prompt="bad"), ModelRequest(prompt="good")])
    assert inner.calls == 3 and out[0].error == "HTTP 503" and out[1].cached


def test_sampled_generations_cached_per_sample_index(tmp_path: Path) -> None:
    inner = CountingModel()
    model = CachedModel(inner, ResponseCache(tmp_path))
    sampled = GenerationConfig(temperature=0.8)
    reqs = [ModelRequest(prompt="q", sample_index=i) for i in range(3)]
    texts = [r.text for r in model.generate(reqs, sampled)]
    assert len(set(texts)) == 3 and inner.calls == 3
    assert [r.text for r in model.generate(reqs, sampled)] == texts and inner.calls == 3
    # greedy: the sample index does not matter
    greedy = model.generate(reqs)
    assert inner.calls == 4 and len({r.text for r in greedy}) == 1


def test_key_components() -> None:
    identity = {"provider": "openai", "model": "m", "base_url": "http://x"}
    request = ModelRequest(prompt="q")
    base = cache_key(identity, GenerationConfig(), request)
    assert base == cache_key(dict(identity), GenerationConfig(), ModelRequest(prompt="q"))
    assert base != cache_key(identity, GenerationConfig(max_new_tokens=10), request)
    assert base != cache_key({**identity, "model": "m2"}, GenerationConfig(), request)
    assert base != cache_key(identity, GenerationConfig(), ModelRequest(prompt="q "))
    choice = GenerationConfig(mode="choice", choice_prefix="correct answer: ")
    assert cache_key(identity, choice, ModelRequest(prompt="q", n_options=3)) != cache_key(
        identity, choice, ModelRequest(prompt="q", n_options=4)
    )
    # the known answer is not something the model sees: not part of the key
    assert base == cache_key(
        identity, GenerationConfig(), ModelRequest(prompt="q", correct_option=1)
    )


def test_choice_probs_round_trip(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    response = ModelResponse(
        text="correct answer: 2.", choice_probs=(0.25, 0.75), completion_tokens=0
    )
    cache.put_many([("k", "m", response)])
    [(key, stored)] = cache.get_many(["k", "missing"]).items()
    assert stored.choice_probs == (0.25, 0.75) and stored.cached and len(cache) == 1


def test_test_providers_bypass_cache(tmp_path: Path) -> None:
    from kgcert.models import get_model

    model = CachedModel(get_model("oracle"), ResponseCache(tmp_path))
    model.generate([ModelRequest(prompt="q", options=("a", "b"), correct_option=2)])
    assert len(model.cache) == 0


def test_url_credentials_do_not_change_the_key() -> None:
    """The key hashes the identity, which never holds credentials: the same server behind the
    same URL is the same model whether or not the URL carries a password."""
    pytest.importorskip("httpx")
    from kgcert.models import get_model

    plain = get_model("openai:m", base_url="http://127.0.0.1:8000/v1")
    secured = get_model("openai:m", base_url="http://bob:s3cret-pw@127.0.0.1:8000/v1")
    assert "s3cret" not in json.dumps(secured.identity())
    request = ModelRequest(prompt="q")
    assert cache_key(secured.identity(), GenerationConfig(), request) == cache_key(
        plain.identity(), GenerationConfig(), request)
