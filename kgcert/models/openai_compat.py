"""OpenAI-compatible chat-completions runner (OpenAI, vLLM, Ollama, llama.cpp server, ...).

Async over ``httpx`` with a concurrency limit, a deadline on every attempt (connect to last
byte, so a server trickling bytes cannot hold a call open) and capped exponential retries that
honour ``Retry-After``. The API key comes from an environment variable only; it and any
``user:password@`` in the base URL are masked in every text a call returns and never appear
in the model's identity. Several base URLs (replicas serving the same model) share the
concurrency limit; a call that fails on one is retried at once on the others
(:mod:`kgcert.models.replicas`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

import httpx

from kgcert.errors import InputError
from kgcert.models._async import gather_limited, run_sync
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse, report_answers
from kgcert.models.replicas import Replica, ReplicaPool, parse_urls
from kgcert.models.reply_cap import check_text, reply_bytes, too_long
from kgcert.models.retry import (
    CallFailed,
    Refused,
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
    split_credentials,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
URLS_ENV = "OPENAI_BASE_URLS"  # several replicas, separated by commas
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


def sample_seed(seed: int, sample_index: int) -> int:
    """A per-sample seed, so sampled responses differ across sample indices."""
    digest = hashlib.sha256(f"{seed}:{sample_index}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def _error_detail(raw: bytes, redact: Redactor) -> str:
    try:
        body = json.loads(raw)
        err = body.get("error", body) if isinstance(body, dict) else body
        message = err.get("message", "") if isinstance(err, dict) else str(err)
    except ValueError:
        message = raw.decode("utf-8", "replace")
    # masked before cutting, so a cut cannot leave part of a secret unmasked
    return " ".join(redact(str(message)).split())[:200]


class OpenAICompatModel:
    cacheable = True

    def __init__(
        self,
        name: str,
        config: GenerationConfig,
        *,
        base_url: str,
        api_key: str | None,
        api_key_env: str,
        concurrency: int = 8,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
        replicas: Sequence[str] = (),
    ) -> None:
        if concurrency < 1:
            raise InputError(f"concurrency must be >= 1, got {concurrency}")
        self.model_name = name
        self.name = f"openai:{name}"
        self.config = config
        # credentials in the URL authenticate the requests but are never recorded
        self._credentials = split_credentials(base_url)
        self.base_url = self._credentials.public_url.rstrip("/")
        # replicas besides base_url; the identity names base_url alone, since replicas serve
        # the same model and a run's answers do not depend on which one served them
        self.pool = ReplicaPool([base_url, *replicas])
        self._api_key = api_key
        self._redact = Redactor([api_key, *(secret for r in self.pool.replicas for secret in (
            r.credentials.password, r.credentials.basic_token()))])
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.sleep: Sleep = asyncio.sleep  # replaceable in tests
        self._rng = random.Random(0)

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatModel({self.model_name!r}, base_url={self.base_url!r})"

    def identity(self) -> dict[str, Any]:
        return {"provider": "openai", "model": self.model_name, "base_url": self.base_url}

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
        try:
            made = [(replica, self._client(replica)) for replica in self.pool.replicas]
        except (UnicodeEncodeError, httpx.LocalProtocolError):  # a header it cannot send
            report_answers(self, len(requests))
            return [ModelResponse.failure(header_refusal(self.api_key_env)) for _ in requests]
        async with contextlib.AsyncExitStack() as stack:
            clients = {id(replica): await stack.enter_async_context(client)
                       for replica, client in made}
            return await gather_limited(requests, self.concurrency,
                                        lambda request: self._complete(clients, request, config))

    def _client(self, replica: Replica) -> httpx.AsyncClient:
        headers = {"Content-Type": "application/json"}
        auth = None
        credentials = replica.credentials
        if credentials.basic_token() is not None:  # URL credentials: HTTP Basic, as curl
            auth = httpx.BasicAuth(credentials.username or "", credentials.password or "")
        elif self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return httpx.AsyncClient(
            base_url=replica.url,
            headers=headers,
            auth=auth,
            timeout=httpx.Timeout(self.timeout_s),
            limits=httpx.Limits(max_connections=self.concurrency),
        )

    def _body(self, request: ModelRequest, config: GenerationConfig) -> dict[str, Any]:
        seed = config.seed if config.greedy else sample_seed(config.seed, request.sample_index)
        return {
            "model": self.model_name,
            "messages": request.chat(),
            "max_tokens": config.max_new_tokens,
            "temperature": config.temperature,
            "top_p": config.top_p,
            "seed": seed,
            "n": 1,
        }

    async def _complete(
        self, clients: dict[int, httpx.AsyncClient], request: ModelRequest,
        config: GenerationConfig,
    ) -> ModelResponse:
        body = self._body(request, config)
        start = time.perf_counter()

        limit = reply_bytes(config.max_new_tokens)

        async def attempt() -> dict[str, Any]:
            """One try on each replica in turn until one answers (one replica: one try)."""
            failure: RetryableError | None = None
            for replica in self.pool.order():
                replica.busy += 1
                try:
                    payload = await on(replica, clients[id(replica)])
                except RetryableError as exc:
                    failure = exc
                    if len(self.pool) > 1:
                        self.pool.set_aside(replica)
                    continue
                finally:
                    replica.busy -= 1
                self.pool.answered(replica)
                return payload
            assert failure is not None
            raise failure

        async def on(replica: Replica, client: httpx.AsyncClient) -> dict[str, Any]:
            try:
                # httpx's timeout bounds each read; this bounds the whole attempt
                async with asyncio.timeout(self.timeout_s):
                    response, raw = await _read_capped(client, body, limit)
            except (TimeoutError, httpx.TimeoutException) as exc:
                raise RetryableError(
                    f"timeout: no complete response within {self.timeout_s:g} s") from exc
            except (httpx.LocalProtocolError, UnicodeEncodeError) as exc:
                raise CallFailed(header_refusal(self.api_key_env)) from exc
            except httpx.TransportError as exc:
                reason = " ".join(self._redact(str(exc)).split())[:120] or type(exc).__name__
                raise RetryableError(f"cannot reach {replica.url} ({reason})") from exc
            status = response.status_code
            if raw is None:
                raise CallFailed(too_long(limit, "bytes", config.max_new_tokens))
            detail = _error_detail(raw, self._redact) if status >= 400 else ""
            if status in RETRY_STATUS or status >= 500:
                kind = "rate limited" if status == 429 else "server error"
                raise RetryableError(
                    f"{kind} (HTTP {status}: {detail})", parse_retry_after(response.headers)
                )
            if status in (401, 403):
                raise CallFailed(
                    f"authentication failed (HTTP {status}); check the key in {self.api_key_env}"
                )
            if status >= 400:
                raise CallFailed(f"request rejected (HTTP {status}: {detail})")
            try:
                payload = json.loads(raw)
            except ValueError as exc:
                raise CallFailed("malformed response: body is not JSON") from exc
            if not isinstance(payload, dict):
                raise CallFailed("malformed response: body is not a JSON object")
            return payload

        try:
            payload = await call_with_retries(attempt, self.retry, self.sleep, self._rng)
            text = _content(payload)
            overlong = check_text(text, config.max_new_tokens)
            if overlong is not None:
                raise CallFailed(overlong)
        except CallFailed as exc:
            report_answers(self, 1)
            return self._redact.response(
                ModelResponse.from_exception(exc, time.perf_counter() - start))
        report_answers(self, 1)
        usage = payload.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return self._redact.response(ModelResponse(
            text=text,
            prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
            completion_tokens=_int_or_none(usage.get("completion_tokens")),
            latency_s=time.perf_counter() - start,
        ))


async def _read_capped(client: httpx.AsyncClient, body: dict[str, Any], limit: int
                       ) -> tuple[httpx.Response, bytes | None]:
    """The response and at most `limit` bytes of its body (None when it has more: reading
    stops there, so a runaway reply never fills memory)."""
    async with client.stream("POST", "/chat/completions", json=body) as response:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return response, None
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                return response, None
            chunks.append(chunk)
    return response, b"".join(chunks)


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) else None


def _content(payload: dict[str, Any]) -> str:
    """The completion text; a response without one is malformed (an error outcome, not an
    unparseable answer: the model's answer never arrived)."""
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise CallFailed("malformed response: no choices")
    choice = choices[0]
    message = choice.get("message")
    finish = choice.get("finish_reason")
    ended = f" (finish_reason {str(finish)[:40]!r})" if finish is not None else ""
    if not isinstance(message, dict):
        what = "no message" if message is None else "a message that is not an object"
        raise CallFailed(f"malformed response: choices[0] has {what}{ended}")
    content = message.get("content")
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        raise Refused(f"refusal{ended}", refusal)  # the model declined: an answer, never right
    if isinstance(content, str):
        if not content.strip() and finish is not None:
            raise Refused(f"empty completion{ended}")
        return content  # empty without a finish reason: the model answered nothing
    if isinstance(content, list) and all(
            isinstance(p, dict) and isinstance(p.get("text", ""), str) for p in content):
        return "".join(p.get("text", "") for p in content)  # content parts
    what = "no content" if content is None else f"content of type {type(content).__name__}"
    raise CallFailed(f"malformed response: the message has {what}{ended}")


def create(
    name: str,
    config: GenerationConfig,
    *,
    base_url: str | None = None,
    base_urls: str | Sequence[str] | None = None,
    api_key_env: str | None = None,
    concurrency: int = 8,
    timeout_s: float = 120.0,
    max_attempts: int = 6,
    max_retry_delay_s: float = 60.0,
    base_retry_delay_s: float = 1.0,
) -> OpenAICompatModel:
    """``openai:<model>``; ``base_url`` (or ``OPENAI_BASE_URL``) points at any compatible server,
    ``base_urls`` (or ``OPENAI_BASE_URLS``, comma-separated) at several replicas of one model.

    The key is read from ``api_key_env`` (default ``OPENAI_API_KEY``). Local servers need none,
    unless ``api_key_env`` is given explicitly.
    """
    if base_url and base_urls:
        raise InputError("give base_url or base_urls, not both")
    listed = base_urls or ([] if base_url else os.environ.get(URLS_ENV))
    urls = (parse_urls(listed) if listed else []) or [
        base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL]
    for url in urls:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            shown = split_credentials(url).public_url
            raise InputError(f"base_url must be an http(s) URL, got {shown!r}")
    url, parsed = urls[0], urlparse(urls[0])
    key_env = api_key_env or DEFAULT_KEY_ENV
    key = key_from_env(key_env)
    needs_key = api_key_env is not None or parsed.netloc.endswith("api.openai.com")
    if key is None and needs_key:
        raise InputError(f"missing API key: set the environment variable {key_env}")
    if max_attempts < 1:
        raise InputError(f"max_attempts must be >= 1, got {max_attempts}")
    retry = RetryPolicy(
        max_attempts=max_attempts, base_delay_s=base_retry_delay_s, max_delay_s=max_retry_delay_s
    )
    return OpenAICompatModel(
        name,
        config,
        base_url=url,
        api_key=key,
        api_key_env=key_env,
        concurrency=concurrency,
        timeout_s=timeout_s,
        retry=retry,
        replicas=urls[1:],
    )
