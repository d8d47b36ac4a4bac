"""``anthropic:<model>`` through the official ``anthropic`` SDK (imported lazily;
``pip install 'kgcert[anthropic]'``), speaking the Messages API.

The key comes from ``ANTHROPIC_API_KEY`` (or a variable named by ``api_key_env``) and is masked
in every text a call returns. The SDK's own retries are switched off; ours are capped and honour
Retry-After like the other API providers, every attempt has a deadline, and a failed call or a
response without text is an error outcome, never a wrong answer. The Messages API takes no
seed, so sampled (temperature > 0) answers are not reproducible; greedy ones mostly are.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from typing import Any

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import GenerationConfig, ModelRequest
from kgcert.models.remote import (
    RemoteModel,
    Reply,
    check_http_url,
    int_or_none,
    one_line,
    retry_policy,
    status_failure,
)
from kgcert.models.reply_cap import capped_transport, reply_bytes
from kgcert.models.retry import CallFailed, Refused, RetryableError, RetryPolicy
from kgcert.models.secrets import Redactor, key_from_env, split_credentials

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


class AnthropicModel(RemoteModel):
    provider = "anthropic"

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
        super().__init__(name, config, concurrency=concurrency, timeout_s=timeout_s,
                         retry=retry, redact=Redactor([api_key]), api_key_env=api_key_env,
                         base_url=base_url.rstrip("/") if base_url else None)
        self._api_key = api_key

    def session(self, config: GenerationConfig) -> contextlib.AbstractAsyncContextManager[Any]:
        anthropic = _import_sdk()
        # One client per batch: its connection pool belongs to the event loop of the batch.
        # Its transport stops reading a reply at what max_new_tokens can produce.
        http = _http_module(anthropic.DefaultAsyncHttpxClient)
        transport = capped_transport(http, reply_bytes(config.max_new_tokens),
                                     limits=http.Limits(max_connections=self.concurrency))
        client: contextlib.AbstractAsyncContextManager[Any] = anthropic.AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, max_retries=0,
            timeout=self.timeout_s,
            http_client=anthropic.DefaultAsyncHttpxClient(transport=transport))
        return client

    def body(self, request: ModelRequest, config: GenerationConfig) -> dict[str, Any]:
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

    async def call(self, target: Any, body: Any, config: GenerationConfig) -> Any:
        return await target.messages.create(**body)

    def classify(self, error: Exception, target: Any,
                 config: GenerationConfig) -> RetryableError | CallFailed | None:
        anthropic = _import_sdk()
        if isinstance(error, anthropic.APIStatusError):
            return status_failure(int(error.status_code), _error_detail(error, self._redact),
                                  dict(error.response.headers), self.api_key_env)
        if isinstance(error, anthropic.APITimeoutError):
            return self.timed_out()
        if isinstance(error, anthropic.APIConnectionError):
            return RetryableError(f"cannot reach {self.base_url or 'the Anthropic API'}")
        if isinstance(error, anthropic.APIResponseValidationError):
            return CallFailed("malformed response: not a Messages API reply")
        if isinstance(error, ValueError):  # the SDK parses the body as JSON and lets this through
            return CallFailed("malformed response: body is not JSON")
        return None

    def read(self, reply: Any) -> Reply:
        usage = getattr(reply, "usage", None)
        return Reply(_text(reply), int_or_none(getattr(usage, "input_tokens", None)),
                     int_or_none(getattr(usage, "output_tokens", None)))


def _http_module(client_class: type) -> Any:
    """The HTTP library (httpx, or its fork httpx2) the SDK's client class is built on."""
    base = next(c for c in client_class.__mro__ if c.__name__ == "AsyncClient")
    return importlib.import_module(base.__module__.split(".")[0])


def _error_detail(exc: Any, redact: Redactor) -> str:
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else body
    message = error.get("message", "") if isinstance(error, dict) else (error or exc.message)
    return one_line(str(message), redact)


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
    if stop == "refusal":
        raise Refused(f"refusal{ended}", "".join(texts))
    if texts:
        return "".join(texts)
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
        check_http_url(url)
        credentials = split_credentials(url)
        if credentials.basic_token() is not None:
            raise InputError(f"base_url {credentials.public_url!r} carries user:password, which "
                             f"the anthropic provider does not send; it authenticates with "
                             f"{key_env} only")
    retry = retry_policy(max_attempts, base_retry_delay_s, max_retry_delay_s)
    _import_sdk()
    return AnthropicModel(name, config, api_key=key, api_key_env=key_env, base_url=url,
                          concurrency=concurrency, timeout_s=timeout_s, retry=retry)
