"""``gemini:<model>`` through ``google-genai`` (imported lazily; ``pip install 'kgcert[gemini]'``).

The key comes from ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY`` (or a variable named by
``api_key_env``). The SDK's own retries are switched off; ours are capped and honour
Retry-After like the OpenAI-compatible runner, and a failed call is an error outcome.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Sequence
from typing import Any

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models._async import gather_limited, run_sync
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.openai_compat import RETRY_STATUS, sample_seed
from kgcert.models.retry import (
    CallFailed,
    RetryableError,
    RetryPolicy,
    Sleep,
    call_with_retries,
    parse_retry_after,
)

KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")


def _import_genai() -> Any:
    try:
        from google import genai
    except ImportError as exc:
        raise MissingDependencyError(
            "model provider 'gemini' needs google-genai, which is not installed; "
            "install it with: pip install 'kgcert[gemini]'"
        ) from exc
    return genai


def _find_key(api_key_env: str | None) -> str:
    names = (api_key_env,) if api_key_env else KEY_VARIABLES
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    raise InputError(f"missing API key: set the environment variable {' or '.join(names)}")


class GeminiModel:
    cacheable = True

    def __init__(
        self,
        name: str,
        config: GenerationConfig,
        *,
        client: Any,
        concurrency: int,
        retry: RetryPolicy,
    ) -> None:
        self.model_name = name
        self.name = f"gemini:{name}"
        self.config = config
        self._client = client
        self.concurrency = concurrency
        self.retry = retry
        self.sleep: Sleep = asyncio.sleep
        self._rng = random.Random(0)

    def __repr__(self) -> str:
        return f"GeminiModel({self.model_name!r})"

    def identity(self) -> dict[str, Any]:
        return {"provider": "gemini", "model": self.model_name}

    def close(self) -> None:
        pass

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        return run_sync(self.agenerate(requests, config))

    async def agenerate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        config = config or self.config
        if config.mode == "choice":
            raise InputError("choice scoring needs a local model (hf:); use mode='generate'")
        return await gather_limited(requests, self.concurrency,
                                    lambda request: self._complete(request, config))

    def _request_parts(self, request: ModelRequest, config: GenerationConfig) -> tuple[Any, Any]:
        from google.genai import types

        messages = request.chat()
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system") or None
        contents = [
            types.Content(
                role="model" if m["role"] == "assistant" else "user",
                parts=[types.Part(text=m["content"])],
            )
            for m in messages
            if m["role"] != "system"
        ]
        seed = config.seed if config.greedy else sample_seed(config.seed, request.sample_index)
        gen_config = types.GenerateContentConfig(
            system_instruction=system,
            temperature=config.temperature,
            top_p=config.top_p,
            max_output_tokens=config.max_new_tokens,
            seed=seed,
            candidate_count=1,
        )
        return contents, gen_config

    async def _complete(self, request: ModelRequest, config: GenerationConfig) -> ModelResponse:
        from google.genai import errors

        contents, gen_config = self._request_parts(request, config)
        start = time.perf_counter()

        async def attempt() -> Any:
            try:
                return await self._client.aio.models.generate_content(
                    model=self.model_name, contents=contents, config=gen_config
                )
            except errors.APIError as exc:
                code = int(getattr(exc, "code", 0) or 0)
                message = " ".join(str(getattr(exc, "message", "") or exc).split())[:200]
                if code in RETRY_STATUS or code >= 500:
                    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
                    raise RetryableError(
                        f"HTTP {code}: {message}", parse_retry_after(dict(headers))
                    ) from exc
                raise CallFailed(f"request rejected (HTTP {code}: {message})") from exc
            except (TimeoutError, OSError) as exc:
                raise RetryableError(f"cannot reach the Gemini API ({type(exc).__name__})") from exc

        try:
            response = await call_with_retries(attempt, self.retry, self.sleep, self._rng)
        except CallFailed as exc:
            return ModelResponse.failure(str(exc), time.perf_counter() - start)
        try:
            text = response.text or ""
        except (ValueError, AttributeError):  # blocked or no candidates: no text
            text = ""
        usage = getattr(response, "usage_metadata", None)
        return ModelResponse(
            text=text,
            prompt_tokens=getattr(usage, "prompt_token_count", None),
            completion_tokens=getattr(usage, "candidates_token_count", None),
            latency_s=time.perf_counter() - start,
        )


def create(
    name: str,
    config: GenerationConfig,
    *,
    api_key_env: str | None = None,
    concurrency: int = 8,
    timeout_s: float = 120.0,
    max_attempts: int = 6,
    max_retry_delay_s: float = 60.0,
    base_retry_delay_s: float = 1.0,
) -> GeminiModel:
    key = _find_key(api_key_env)
    genai = _import_genai()
    from google.genai import types

    http_options = types.HttpOptions(
        timeout=int(timeout_s * 1000), retry_options=types.HttpRetryOptions(attempts=1)
    )
    client = genai.Client(api_key=key, http_options=http_options)
    retry = RetryPolicy(
        max_attempts=max_attempts, base_delay_s=base_retry_delay_s, max_delay_s=max_retry_delay_s
    )
    return GeminiModel(name, config, client=client, concurrency=concurrency, retry=retry)
