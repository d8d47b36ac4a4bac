"""``gemini:<model>`` through ``google-genai`` (imported lazily; ``pip install 'kgcert[gemini]'``).

The key comes from ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY`` (or a variable named by
``api_key_env``) and is masked in every text a call returns. The SDK's own retries are switched
off; ours are capped and honour Retry-After like the OpenAI-compatible runner, every attempt has
a deadline, and a failed call or a response without text is an error outcome.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
from typing import Any

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import GenerationConfig, ModelRequest
from kgcert.models.remote import (
    RemoteModel,
    Reply,
    check_http_url,
    one_line,
    retry_policy,
    sample_seed,
    status_failure,
)
from kgcert.models.reply_cap import capped_transport, reply_bytes
from kgcert.models.retry import CallFailed, Refused, RetryableError, RetryPolicy
from kgcert.models.secrets import Redactor, key_from_env, split_credentials

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


class GeminiModel(RemoteModel):
    provider = "gemini"

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
        super().__init__(name, config, concurrency=concurrency, timeout_s=timeout_s,
                         retry=retry, redact=redact or Redactor(()), api_key_env=api_key_env,
                         base_url=split_credentials(base_url).public_url if base_url else None)
        self._client = client  # kept across batches: the SDK opens a connection per call
        self._transport = transport  # capped_transport's, whose limit each batch sets

    def session(self, config: GenerationConfig) -> contextlib.AbstractAsyncContextManager[Any]:
        if self._transport is not None:
            self._transport.limit = reply_bytes(config.max_new_tokens)
        return contextlib.nullcontext(self._client)

    def body(self, request: ModelRequest, config: GenerationConfig) -> tuple[Any, Any]:
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

    async def call(self, target: Any, body: tuple[Any, Any], config: GenerationConfig) -> Any:
        contents, gen_config = body
        return await target.aio.models.generate_content(
            model=self.model_name, contents=contents, config=gen_config)

    def classify(self, error: Exception, target: Any,
                 config: GenerationConfig) -> RetryableError | CallFailed | None:
        from google.genai import errors

        if isinstance(error, errors.APIError):
            message = one_line(str(getattr(error, "message", "") or error), self._redact)
            headers = getattr(getattr(error, "response", None), "headers", None) or {}
            return status_failure(int(getattr(error, "code", 0) or 0), message, dict(headers),
                                  self.api_key_env)
        if isinstance(error, _transport_errors()):
            return RetryableError(f"cannot reach the Gemini API ({type(error).__name__})")
        if isinstance(error, ValueError) and type(error).__name__ == "JSONDecodeError":
            # the SDK parses the body itself: an HTML page (a proxy, a wrong base URL) ends here
            return CallFailed("malformed response: body is not JSON (is the base URL a Gemini "
                              "API endpoint?)")
        return None

    def read(self, reply: Any) -> Reply:
        usage = getattr(reply, "usage_metadata", None)
        return Reply(_text(reply), getattr(usage, "prompt_token_count", None),
                     getattr(usage, "candidates_token_count", None))


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
            raise Refused(f"the prompt was blocked ({_name(blocked)})")
        raise CallFailed("malformed response: no candidates")
    candidate = candidates[0]
    parts = getattr(getattr(candidate, "content", None), "parts", None) or []
    texts = [p.text for p in parts if isinstance(getattr(p, "text", None), str)
             and not getattr(p, "thought", None)]
    if not texts:
        finish = getattr(candidate, "finish_reason", None)
        if finish is not None:  # e.g. SAFETY, RECITATION: the model ended without answering
            raise Refused(f"empty completion (finish_reason {_name(finish)})")
        raise CallFailed("malformed response: the candidate has no text")
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
        check_http_url(url)
    retry = retry_policy(max_attempts, base_retry_delay_s, max_retry_delay_s)
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
    credentials = split_credentials(url) if url else None
    redact = Redactor([key] + ([credentials.username, credentials.password,
                                credentials.basic_token()]
                               if credentials else []))
    return GeminiModel(name, config, client=client, concurrency=concurrency, retry=retry,
                       timeout_s=timeout_s, base_url=url, redact=redact, api_key_env=key_env,
                       transport=transport)
