"""``gemini:<model>`` through ``google-genai`` (imported lazily; ``pip install 'kgcert[gemini]'``).

The key comes from ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY`` (or a variable named by
``api_key_env``) and is masked in every text a call returns. The SDK's own retries are switched
off; ours are capped and honour Retry-After like the OpenAI-compatible runner, every attempt has
a deadline, and a failed call or a response without text is an error outcome.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import os
import random
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models._async import gather_limited, run_sync
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.openai_compat import RETRY_STATUS, sample_seed
from kgcert.models.reply_cap import (
    ReplyTooLong,
    capped_transport,
    check_text,
    reply_bytes,
    too_long,
)
from kgcert.models.retry import (
    CallFailed,
    RetryableError,
    RetryPolicy,
    Sleep,
    call_with_retries,
    parse_retry_after,
)
from kgcert.models.secrets import (
    Redactor,
    header_refusal,
    key_from_env,
    refused_header,
    split_credentials,
)

KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
BASE_URL_VARIABLE = "GOOGLE_GEMINI_BASE_URL"  # the SDK's own, read here so identity shows it


def _import_genai() -> Any:
    try:
        from google import genai
    except ImportError as exc:
        raise MissingDependencyError(
            "model provider 'gemini' needs google-genai, which is not installed; "
            "install it with: pip install 'kgcert[gemini]'"
        ) from exc
    return genai


def _find_key(api_key_env: str | None) -> tuple[str, str]:
    """The key and the variable it came from."""
    names = (api_key_env,) if api_key_env else KEY_VARIABLES
    for name in names:
        value = key_from_env(name)
        if value:
            return value, name
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
        timeout_s: float = 120.0,
        base_url: str | None = None,
        redact: Redactor | None = None,
        api_key_env: str | None = None,
        transport: Any = None,
    ) -> None:
        self.model_name = name
        self.name = f"gemini:{name}"
        self.config = config
        self._client = client
        self.concurrency = concurrency
        self.retry = retry
        self.timeout_s = timeout_s
        self.base_url = split_credentials(base_url).public_url if base_url else None
        self._redact = redact or Redactor(())
        self.api_key_env = api_key_env
        self._transport = transport  # capped_transport's, whose limit each batch sets
        self.sleep: Sleep = asyncio.sleep
        self._rng = random.Random(0)

    def __repr__(self) -> str:
        return f"GeminiModel({self.model_name!r})"

    def identity(self) -> dict[str, Any]:
        identity = {"provider": "gemini", "model": self.model_name}
        if self.base_url is not None:  # only when set, so default cache keys stay as they were
            identity["base_url"] = self.base_url
        return identity

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
        if self._transport is not None:
            self._transport.limit = reply_bytes(config.max_new_tokens)
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
                # the SDK's timeout bounds each read; this bounds the whole attempt
                async with asyncio.timeout(self.timeout_s):
                    return await self._client.aio.models.generate_content(
                        model=self.model_name, contents=contents, config=gen_config
                    )
            except errors.APIError as exc:
                code = int(getattr(exc, "code", 0) or 0)
                raw = self._redact(str(getattr(exc, "message", "") or exc))
                message = " ".join(raw.split())[:200]  # masked before cutting
                if code in RETRY_STATUS or code >= 500:
                    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
                    raise RetryableError(
                        f"HTTP {code}: {message}", parse_retry_after(dict(headers))
                    ) from exc
                raise CallFailed(f"request rejected (HTTP {code}: {message})") from exc
            except TimeoutError as exc:
                raise RetryableError(
                    f"timeout: no complete response within {self.timeout_s:g} s") from exc
            except UnicodeEncodeError as exc:  # a key no header can carry
                raise CallFailed(header_refusal(self.api_key_env)) from exc
            except ReplyTooLong as exc:
                raise CallFailed(too_long(exc.limit, "bytes", config.max_new_tokens)) from exc
            except _transport_errors() as exc:
                if refused_header(exc):
                    raise CallFailed(header_refusal(self.api_key_env)) from exc
                raise RetryableError(f"cannot reach the Gemini API ({type(exc).__name__})") from exc

        try:
            response = await call_with_retries(attempt, self.retry, self.sleep, self._rng)
            text = _text(response)
            overlong = check_text(text, config.max_new_tokens)
            if overlong is not None:  # the SDK read it; it is not stored
                raise CallFailed(overlong)
        except CallFailed as exc:
            return self._redact.response(
                ModelResponse.failure(str(exc), time.perf_counter() - start))
        usage = getattr(response, "usage_metadata", None)
        return self._redact.response(ModelResponse(
            text=text,
            prompt_tokens=getattr(usage, "prompt_token_count", None),
            completion_tokens=getattr(usage, "candidates_token_count", None),
            latency_s=time.perf_counter() - start,
        ))


def _http_module() -> Any:
    """The HTTP library the SDK would choose (httpx, or its fork httpx2), whose transport
    type it accepts."""
    from google.genai import _api_client

    choose = getattr(_api_client, "_get_http_client_backend", None)
    name = choose(None) if choose is not None else "httpx"
    return importlib.import_module(name)


@functools.cache
def _transport_errors() -> tuple[type[BaseException], ...]:
    """Connection failures of whichever HTTP client the SDK version uses (httpx, its fork
    httpx2, or aiohttp), none of which derive from OSError."""
    found: list[type[BaseException]] = [OSError]
    for module, name in (("httpx", "TransportError"), ("httpx2", "TransportError"),
                         ("aiohttp", "ClientError")):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def _text(response: Any) -> str:
    """The first candidate's text; without one the answer never arrived (an error outcome,
    not an unparseable answer)."""
    candidates = getattr(response, "candidates", None) or []
    if not candidates:
        blocked = getattr(getattr(response, "prompt_feedback", None), "block_reason", None)
        if blocked is not None:
            raise CallFailed(f"no answer: the prompt was blocked ({_name(blocked)})")
        raise CallFailed("malformed response: no candidates")
    candidate = candidates[0]
    parts = getattr(getattr(candidate, "content", None), "parts", None) or []
    texts = [p.text for p in parts if isinstance(getattr(p, "text", None), str)
             and not getattr(p, "thought", None)]
    if not texts:
        finish = getattr(candidate, "finish_reason", None)
        ended = f" (finish_reason {_name(finish)})" if finish is not None else ""
        raise CallFailed(f"malformed response: the candidate has no text{ended}")
    return "".join(texts)


def _name(value: Any) -> str:
    return str(getattr(value, "value", value))[:40]


def create(
    name: str,
    config: GenerationConfig,
    *,
    api_key_env: str | None = None,
    base_url: str | None = None,
    concurrency: int = 8,
    timeout_s: float = 120.0,
    max_attempts: int = 6,
    max_retry_delay_s: float = 60.0,
    base_retry_delay_s: float = 1.0,
) -> GeminiModel:
    """``gemini:<model>``; ``base_url`` (or ``GOOGLE_GEMINI_BASE_URL``) points at a proxy or
    another endpoint speaking the Gemini API; ``user:password@`` in it is used, never recorded.
    """
    key, key_env = _find_key(api_key_env)
    url = base_url or os.environ.get(BASE_URL_VARIABLE) or None
    if url is not None:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            shown = split_credentials(url).public_url
            raise InputError(f"base_url must be an http(s) URL, got {shown!r}")
    if max_attempts < 1:
        raise InputError(f"max_attempts must be >= 1, got {max_attempts}")
    genai = _import_genai()
    from google.genai import types

    # the SDK's HTTP client stops reading a reply at what max_new_tokens can produce
    transport = capped_transport(_http_module(), reply_bytes(config.max_new_tokens))
    http_options = types.HttpOptions(
        base_url=url,
        timeout=int(timeout_s * 1000),
        retry_options=types.HttpRetryOptions(attempts=1),
        async_client_args={"transport": transport},
    )
    client = genai.Client(api_key=key, http_options=http_options)
    retry = RetryPolicy(
        max_attempts=max_attempts, base_delay_s=base_retry_delay_s, max_delay_s=max_retry_delay_s
    )
    credentials = split_credentials(url) if url else None
    redact = Redactor([key] + ([credentials.password, credentials.basic_token()]
                               if credentials else []))
    return GeminiModel(name, config, client=client, concurrency=concurrency, retry=retry,
                       timeout_s=timeout_s, base_url=url, redact=redact, api_key_env=key_env,
                       transport=transport)
