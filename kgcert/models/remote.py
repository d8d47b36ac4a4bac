"""What every provider served over the network shares (``openai:``, ``anthropic:``, ``gemini:``).

:class:`RemoteModel` owns the batch: sync-over-async, at most ``concurrency`` calls at a time,
a deadline on every attempt, capped retries that honour Retry-After, refusals as answers, the
reply size cap on the text, secrets masked in every text a call returns, progress per answer,
and the identity that keys the response cache (:class:`kgcert.models.cache.CachedModel`).
A provider implements one call and says which of its errors are worth a retry
(:meth:`RemoteModel.call`, :meth:`RemoteModel.classify`); the ``create`` functions share the
checks of their options (:func:`check_http_url`, :func:`retry_policy`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple
from urllib.parse import urlparse

from kgcert.errors import InputError
from kgcert.models._async import gather_limited, run_sync
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse, report_answers
from kgcert.models.reply_cap import check_text, too_long, too_long_cause
from kgcert.models.retry import (
    CallFailed,
    RetryableError,
    RetryPolicy,
    Sleep,
    call_with_retries,
    parse_retry_after,
)
from kgcert.models.secrets import Redactor, header_refusal, refused_header, split_credentials

#: HTTP statuses worth another try besides every 5xx: timeouts, conflicts, rate limits.
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


class Reply(NamedTuple):
    """The part of a provider's reply a response keeps."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str | None = None  # the model name the reply gives, where the provider says one


class RemoteModel(ABC):
    """A model behind an API. Subclasses set ``provider`` and implement :meth:`session`,
    :meth:`body`, :meth:`call`, :meth:`classify` and :meth:`read`."""

    provider: ClassVar[str]
    cacheable = True

    def __init__(self, name: str, config: GenerationConfig, *, concurrency: int,
                 timeout_s: float, retry: RetryPolicy | None, redact: Redactor,
                 api_key_env: str | None, base_url: str | None) -> None:
        if concurrency < 1:
            raise InputError(f"concurrency must be >= 1, got {concurrency}")
        self.model_name = name
        self.name = f"{self.provider}:{name}"
        self.config = config
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.api_key_env = api_key_env
        self.base_url = base_url  # without credentials: identity and messages show it
        self._redact = redact
        self.sleep: Sleep = asyncio.sleep  # replaceable in tests
        self._rng = random.Random(0)
        self._served_model: dict[str, str] = {}  # "model": the first model name a reply gave

    def __repr__(self) -> str:  # never shows a key
        return f"{type(self).__name__}({self.model_name!r}, base_url={self.base_url!r})"

    def identity(self) -> dict[str, Any]:
        identity = {"provider": self.provider, "model": self.model_name}
        if self.base_url is not None:  # only when set, so default cache keys stay as they were
            identity["base_url"] = self.base_url
        return identity

    def close(self) -> None:  # noqa: B027 (nothing to release: batches close their clients)
        return None

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        return run_sync(self.agenerate(requests, config))

    async def agenerate(self, requests: Sequence[ModelRequest],
                        config: GenerationConfig | None = None) -> list[ModelResponse]:
        config = config or self.config
        if config.mode == "choice":
            raise InputError("choice scoring needs a local model (hf:); use mode='generate'")
        try:
            session = self.session(config)
        except CallFailed as exc:  # no call can be made (a key no header can carry)
            report_answers(self, len(requests))
            return [ModelResponse.failure(str(exc)) for _ in requests]
        async with session as target:
            return await gather_limited(requests, self.concurrency,
                                        lambda request: self._answer(target, request, config))

    # -- what a provider implements ---------------------------------------------------------

    @abstractmethod
    def session(self, config: GenerationConfig) -> contextlib.AbstractAsyncContextManager[Any]:
        """The client(s) one batch calls through (their connections belong to its event
        loop); raise CallFailed when none can be made."""

    @abstractmethod
    def body(self, request: ModelRequest, config: GenerationConfig) -> Any:
        """What :meth:`call` sends for ``request``, built once for all its attempts."""

    @abstractmethod
    async def call(self, target: Any, body: Any, config: GenerationConfig) -> Any:
        """One attempt; may raise RetryableError or CallFailed itself."""

    @abstractmethod
    def classify(self, error: Exception, target: Any,
                 config: GenerationConfig) -> RetryableError | CallFailed | None:
        """What a call's own exception means: worth a retry, a failed call, or None for an
        exception this provider does not expect (it propagates)."""

    @abstractmethod
    def read(self, reply: Any) -> Reply:
        """The answer text and token counts; raise Refused for a declined answer and
        CallFailed for a reply without one."""

    async def attempt(self, target: Any, body: Any, config: GenerationConfig) -> Any:
        """One attempt of a call (a provider with several endpoints tries each here)."""
        return await self.try_once(target, body, config)

    # -- shared -----------------------------------------------------------------------------

    def timed_out(self) -> RetryableError:
        return RetryableError(f"timeout: no complete response within {self.timeout_s:g} s")

    async def try_once(self, target: Any, body: Any, config: GenerationConfig) -> Any:
        """:meth:`call` under the deadline, its failures sorted into retry or not."""
        try:
            # the client's timeout bounds each read; this bounds the whole attempt, so a
            # server trickling bytes cannot hold a call open
            async with asyncio.timeout(self.timeout_s):
                return await self.call(target, body, config)
        except (RetryableError, CallFailed):
            raise
        except TimeoutError as exc:
            raise self.timed_out() from exc
        except Exception as exc:
            capped = too_long_cause(exc)  # the client stopped reading at the cap
            if capped is not None:
                raise CallFailed(too_long(capped.limit, "bytes", config.max_new_tokens)) from exc
            if refused_header(exc):  # can never be sent: not retried
                raise CallFailed(header_refusal(self.api_key_env)) from exc
            meant = self.classify(exc, target, config)
            if meant is None:
                raise
            raise meant from exc

    async def _answer(self, target: Any, request: ModelRequest,
                      config: GenerationConfig) -> ModelResponse:
        body = self.body(request, config)
        start = time.perf_counter()
        try:
            reply = self.read(await call_with_retries(
                lambda: self.attempt(target, body, config), self.retry, self.sleep, self._rng))
            overlong = check_text(reply.text, config.max_new_tokens)
            if overlong is not None:  # read whole by the client; not stored
                raise CallFailed(overlong)
        except CallFailed as exc:
            report_answers(self, 1)
            return self._redact.response(
                ModelResponse.from_exception(exc, time.perf_counter() - start))
        report_answers(self, 1)
        self.check_served(reply.model)
        return self._redact.response(ModelResponse(
            text=reply.text, prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens, latency_s=time.perf_counter() - start,
            served_model=reply.model))

    def check_served(self, model: str | None) -> None:
        """Every reply must come from one model: replicas (or a server swapped mid-run)
        answering as different models would mix two models in one certificate."""
        if model is None:
            return
        first = self._served_model.setdefault("model", model)
        if model != first:
            first, model = self._redact(first), self._redact(model)
            raise InputError(f"{self.name}: replies name two models, {first!r} and {model!r} "
                             "(replicas serving different models?); a certificate is of one "
                             "model: serve the same model everywhere and run again")


def status_failure(status: int, detail: str, headers: Mapping[str, str],
                   api_key_env: str | None) -> RetryableError | CallFailed:
    """An HTTP error status as a retry (rate limits, 5xx) or a failed call; ``detail`` is the
    server's message, already masked and cut."""
    if status in RETRY_STATUS or status >= 500:
        kind = "rate limited" if status == 429 else "server error"
        return RetryableError(f"{kind} (HTTP {status}: {detail})", parse_retry_after(headers))
    if status in (401, 403):
        where = f" in {api_key_env}" if api_key_env else ""
        return CallFailed(f"authentication failed (HTTP {status}); check the key{where}")
    return CallFailed(f"request rejected (HTTP {status}: {detail})")


def one_line(text: str, redact: Redactor, width: int = 200) -> str:
    """``text`` masked, on one line, cut to ``width`` (masked before cutting, so a cut cannot
    leave part of a secret unmasked)."""
    return " ".join(redact(text).split())[:width]


def sample_seed(seed: int, sample_index: int) -> int:
    """A per-sample seed, so sampled responses differ across sample indices."""
    digest = hashlib.sha256(f"{seed}:{sample_index}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def check_http_url(url: str) -> None:
    """A one-line error unless ``url`` is an http(s) URL (credentials never shown)."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        shown = split_credentials(url).public_url
        raise InputError(f"base_url must be an http(s) URL, got {shown!r}")


def retry_policy(max_attempts: int, base_retry_delay_s: float,
                 max_retry_delay_s: float) -> RetryPolicy:
    if max_attempts < 1:
        raise InputError(f"max_attempts must be >= 1, got {max_attempts}")
    return RetryPolicy(max_attempts=max_attempts, base_delay_s=base_retry_delay_s,
                       max_delay_s=max_retry_delay_s)
