"""``anthropic:<model>`` through the official ``anthropic`` SDK (imported lazily;
``pip install 'kgcert[anthropic]'``), speaking the Messages API.

The key comes from ``ANTHROPIC_API_KEY`` (or a variable named by ``api_key_env``) and is masked
in every text a call returns. The SDK's own retries are switched off; ours are capped and honour
Retry-After like the other API providers, every attempt has a deadline, and a failed call or a
response without text is an error outcome, never a wrong answer. The Messages API takes no
seed, so sampled (temperature > 0) answers are not reproducible; greedy ones mostly are.
"""

from __future__ import annotations

import asyncio
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
from kgcert.models.openai_compat import RETRY_STATUS
from kgcert.models.reply_cap import (
    capped_transport,
    check_text,
    reply_bytes,
    too_long,
    too_long_cause,
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

KEY_VARIABLE = "ANTHROPIC_API_KEY"
BASE_URL_VARIABLE = "ANTHROPIC_BASE_URL"  # the SDK's own, read here so identity shows it


def _import_sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:
        raise MissingDependencyError(
            "model provider 'anthropic' needs anthropic, which is not installed; "
            "install it with: pip install 'kgcert[anthropic]'"
        ) from exc
    return anthropic


class AnthropicModel:
    cacheable = True

    def __init__(
        self,
        name: str,
        config: GenerationConfig,
        *,
        api_key: str,
        api_key_env: str,
        base_url: str | None = None,
        concurrency: int = 8,
        timeout_s: float = 120.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        if concurrency < 1:
            raise InputError(f"concurrency must be >= 1, got {concurrency}")
        self.model_name = name
        self.name = f"anthropic:{name}"
        self.config = config
        self.base_url = base_url.rstrip("/") if base_url else None
        self._api_key = api_key
        self.api_key_env = api_key_env
        self._redact = Redactor([api_key])
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.sleep: Sleep = asyncio.sleep  # replaceable in tests
        self._rng = random.Random(0)

    def __repr__(self) -> str:  # never show the key
        return f"AnthropicModel({self.model_name!r}, base_url={self.base_url!r})"

    def identity(self) -> dict[str, Any]:
        identity = {"provider": "anthropic", "model": self.model_name}
        if self.base_url is not None:
            identity["base_url"] = self.base_url
        return identity

    def close(self) -> None:
        pass

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        return run_sync(self.agenerate(requests, config))

    def _client(self, config: GenerationConfig) -> Any:
        anthropic = _import_sdk()
        # One client per batch: its connection pool belongs to the event loop of the batch.
        # Its transport stops reading a reply at what max_new_tokens can produce.
        http = _http_module(anthropic.DefaultAsyncHttpxClient)
        transport = capped_transport(http, reply_bytes(config.max_new_tokens),
                                     limits=http.Limits(max_connections=self.concurrency))
        return anthropic.AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, max_retries=0,
            timeout=self.timeout_s,
            http_client=anthropic.DefaultAsyncHttpxClient(transport=transport))

    async def agenerate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        config = config or self.config
        if config.mode == "choice":
            raise InputError("choice scoring needs a local model (hf:); use mode='generate'")
        async with self._client(config) as client:
            return await gather_limited(requests, self.concurrency,
                                        lambda request: self._complete(client, request, config))

    def _body(self, request: ModelRequest, config: GenerationConfig) -> dict[str, Any]:
        messages = request.chat()
        # Sampling settings go in extra_body: recent SDKs dropped them from create()'s
        # signature, the API still reads them; recent models refuse temperature and top_p
        # together, so top_p is sent only when it is not the default.
        sampling: dict[str, Any] = {"temperature": config.temperature}
        if config.top_p < 1.0:
            sampling["top_p"] = config.top_p
        body: dict[str, Any] = {
            "model": self.model_name,
            "max_tokens": config.max_new_tokens,
            "messages": [m for m in messages if m["role"] != "system"],
            "extra_body": sampling,
        }
        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        if system:
            body["system"] = system
        return body

    async def _complete(self, client: Any, request: ModelRequest,
                        config: GenerationConfig) -> ModelResponse:
        anthropic = _import_sdk()
        body = self._body(request, config)
        limit = reply_bytes(config.max_new_tokens)
        start = time.perf_counter()

        async def attempt() -> Any:
            try:
                # the SDK's timeout bounds each read; this bounds the whole attempt
                async with asyncio.timeout(self.timeout_s):
                    return await client.messages.create(**body)
            except anthropic.APIStatusError as exc:
                status = int(exc.status_code)
                detail = _error_detail(exc, self._redact)
                if status in RETRY_STATUS or status >= 500:
                    kind = "rate limited" if status == 429 else "server error"
                    raise RetryableError(f"{kind} (HTTP {status}: {detail})",
                                         parse_retry_after(dict(exc.response.headers))) from exc
                if status in (401, 403):
                    raise CallFailed(f"authentication failed (HTTP {status}); check the key "
                                     f"in {self.api_key_env}") from exc
                raise CallFailed(f"request rejected (HTTP {status}: {detail})") from exc
            except (TimeoutError, anthropic.APITimeoutError) as exc:
                raise RetryableError(
                    f"timeout: no complete response within {self.timeout_s:g} s") from exc
            except anthropic.APIConnectionError as exc:
                if too_long_cause(exc) is not None:
                    raise CallFailed(too_long(limit, "bytes", config.max_new_tokens)) from exc
                if refused_header(exc):
                    raise CallFailed(header_refusal(self.api_key_env)) from exc
                where = self.base_url or "the Anthropic API"
                raise RetryableError(f"cannot reach {where}") from exc
            except anthropic.APIResponseValidationError as exc:
                raise CallFailed("malformed response: not a Messages API reply") from exc
            except UnicodeEncodeError as exc:  # a key no header can carry, not wrapped
                raise CallFailed(header_refusal(self.api_key_env)) from exc
            except ValueError as exc:  # the SDK parses the body as JSON and lets this through
                raise CallFailed("malformed response: body is not JSON") from exc

        try:
            message = await call_with_retries(attempt, self.retry, self.sleep, self._rng)
            text = _text(message)
            overlong = check_text(text, config.max_new_tokens)
            if overlong is not None:  # the SDK read it; it is not stored
                raise CallFailed(overlong)
        except CallFailed as exc:
            return self._redact.response(
                ModelResponse.failure(str(exc), time.perf_counter() - start))
        usage = getattr(message, "usage", None)
        return self._redact.response(ModelResponse(
            text=text,
            prompt_tokens=_int_or_none(getattr(usage, "input_tokens", None)),
            completion_tokens=_int_or_none(getattr(usage, "output_tokens", None)),
            latency_s=time.perf_counter() - start,
        ))


def _http_module(client_class: type) -> Any:
    """The HTTP library (httpx, or its fork httpx2) the SDK's client class is built on."""
    base = next(c for c in client_class.__mro__ if c.__name__ == "AsyncClient")
    return importlib.import_module(base.__module__.split(".")[0])


def _error_detail(exc: Any, redact: Redactor) -> str:
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else body
    message = error.get("message", "") if isinstance(error, dict) else (error or exc.message)
    # masked before cutting, so a cut cannot leave part of a secret unmasked
    return " ".join(redact(str(message)).split())[:200]


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def _text(message: Any) -> str:
    """The text blocks of the reply joined; without any the answer never arrived (an error
    outcome), except a refusal, which is an answer, though not a parseable one."""
    content = getattr(message, "content", None)
    stop = getattr(message, "stop_reason", None)
    ended = f" (stop_reason {str(stop)[:40]!r})" if stop is not None else ""
    if not isinstance(content, list):
        what = "no content" if content is None else "content that is not a list"
        raise CallFailed(f"malformed response: {what}{ended}")
    texts = [block.text for block in content
             if getattr(block, "type", None) == "text" and isinstance(block.text, str)]
    if texts:
        return "".join(texts)
    if stop == "refusal":
        return ""
    raise CallFailed(f"malformed response: no text block{ended}")


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
) -> AnthropicModel:
    """``anthropic:<model>``; ``base_url`` (or ``ANTHROPIC_BASE_URL``) points at a proxy or
    another endpoint speaking the Messages API. The API key is its only credential (recent SDKs
    send it as a bearer token), so a ``user:password@`` in the URL is refused."""
    key_env = api_key_env or KEY_VARIABLE
    key = key_from_env(key_env)
    if key is None:
        raise InputError(f"missing API key: set the environment variable {key_env}")
    url = base_url or os.environ.get(BASE_URL_VARIABLE) or None
    if url is not None:
        parsed = urlparse(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            shown = split_credentials(url).public_url
            raise InputError(f"base_url must be an http(s) URL, got {shown!r}")
        credentials = split_credentials(url)
        if credentials.basic_token() is not None:
            raise InputError(f"base_url {credentials.public_url!r} carries user:password, which "
                             f"the anthropic provider does not send; it authenticates with "
                             f"{key_env} only")
    if max_attempts < 1:
        raise InputError(f"max_attempts must be >= 1, got {max_attempts}")
    _import_sdk()
    retry = RetryPolicy(
        max_attempts=max_attempts, base_delay_s=base_retry_delay_s, max_delay_s=max_retry_delay_s
    )
    return AnthropicModel(name, config, api_key=key, api_key_env=key_env, base_url=url,
                          concurrency=concurrency, timeout_s=timeout_s, retry=retry)
