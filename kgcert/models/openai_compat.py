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

import contextlib
import json
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlparse

import httpx

from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig, ModelRequest
from kgcert.models.remote import (
    RemoteModel,
    Reply,
    check_http_url,
    int_or_none,
    one_line,
    retry_policy,
    sample_seed,
    status_failure,
)
from kgcert.models.replicas import Replica, ReplicaPool, parse_urls
from kgcert.models.reply_cap import reply_bytes, too_long
from kgcert.models.retry import CallFailed, Refused, RetryableError, RetryPolicy
from kgcert.models.secrets import Redactor, header_refusal, key_from_env, split_credentials

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
URLS_ENV = "OPENAI_BASE_URLS"  # several replicas, separated by commas

# One replica and its client: what a call goes through.
Target = tuple[Replica, httpx.AsyncClient]


def _error_detail(raw: bytes, redact: Redactor) -> str:
    try:
        body = json.loads(raw)
        err = body.get("error", body) if isinstance(body, dict) else body
        message = err.get("message", "") if isinstance(err, dict) else str(err)
    except ValueError:
        message = raw.decode("utf-8", "replace")
    return one_line(str(message), redact)


class OpenAICompatModel(RemoteModel):
    provider = "openai"

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
        # replicas besides base_url; the identity names base_url alone, since replicas serve
        # the same model and a run's answers do not depend on which one served them
        pool = ReplicaPool([base_url, *replicas])
        redact = Redactor([api_key, *(secret for r in pool.replicas for secret in (
            r.credentials.username, r.credentials.password, r.credentials.basic_token()))])
        # credentials in the URL authenticate the requests but are never recorded
        super().__init__(name, config, concurrency=concurrency, timeout_s=timeout_s,
                         retry=retry, redact=redact, api_key_env=api_key_env,
                         base_url=split_credentials(base_url).public_url.rstrip("/"))
        self.pool = pool
        self._api_key = api_key

    def session(self, config: GenerationConfig) -> contextlib.AbstractAsyncContextManager[Any]:
        try:
            made = [(replica, self._client(replica)) for replica in self.pool.replicas]
        except (UnicodeEncodeError, httpx.LocalProtocolError) as exc:  # a header it cannot send
            raise CallFailed(header_refusal(self.api_key_env)) from exc
        return _opened(made)

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

    def body(self, request: ModelRequest, config: GenerationConfig) -> dict[str, Any]:
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

    async def attempt(self, target: dict[int, httpx.AsyncClient], body: Any,
                      config: GenerationConfig) -> Any:
        """One try on each replica in turn until one answers (one replica: one try)."""
        failure: RetryableError | None = None
        for replica in self.pool.order():
            replica.busy += 1
            try:
                payload = await self.try_once((replica, target[id(replica)]), body, config)
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

    async def call(self, target: Target, body: Any, config: GenerationConfig) -> Any:
        limit = reply_bytes(config.max_new_tokens)
        response, raw = await _read_capped(target[1], body, limit)
        if raw is None:
            raise CallFailed(too_long(limit, "bytes", config.max_new_tokens))
        if response.status_code >= 400:
            raise status_failure(response.status_code, _error_detail(raw, self._redact),
                                 response.headers, self.api_key_env)
        try:
            payload = json.loads(raw)
        except ValueError as exc:
            raise CallFailed("malformed response: body is not JSON") from exc
        if not isinstance(payload, dict):
            raise CallFailed("malformed response: body is not a JSON object")
        return payload

    def classify(self, error: Exception, target: Target,
                 config: GenerationConfig) -> RetryableError | CallFailed | None:
        if isinstance(error, httpx.TimeoutException):
            return self.timed_out()
        if isinstance(error, httpx.TransportError):
            reason = one_line(str(error), self._redact, 120) or type(error).__name__
            return RetryableError(f"cannot reach {target[0].url} ({reason})")
        return None

    def read(self, reply: dict[str, Any]) -> Reply:
        usage = reply.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        served = reply.get("model")
        return Reply(_content(reply), int_or_none(usage.get("prompt_tokens")),
                     int_or_none(usage.get("completion_tokens")),
                     served if isinstance(served, str) and served else None)


@contextlib.asynccontextmanager
async def _opened(made: list[Target]) -> AsyncIterator[dict[int, httpx.AsyncClient]]:
    """Each replica's client, by the replica's id, open for one batch."""
    async with contextlib.AsyncExitStack() as stack:
        yield {id(replica): await stack.enter_async_context(client) for replica, client in made}


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
        check_http_url(url)
    url = urls[0]
    key_env = api_key_env or DEFAULT_KEY_ENV
    key = key_from_env(key_env)
    needs_key = api_key_env is not None or urlparse(url).netloc.endswith("api.openai.com")
    if key is None and needs_key:
        raise InputError(f"missing API key: set the environment variable {key_env}")
    retry = retry_policy(max_attempts, base_retry_delay_s, max_retry_delay_s)
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
