"""Capped exponential retries for API calls, honouring Retry-After.

A call that still fails after ``max_attempts`` raises :class:`CallFailed`; runners turn that into
an *error* outcome for the request, never a wrong answer.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TypeVar

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


class RetryableError(Exception):
    """A transient failure: rate limit, 5xx, timeout, connection refused."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class CallFailed(Exception):
    """A failure that is not retried (or is out of retries); ``str()`` is one line."""


class Refused(CallFailed):
    """The model declined to answer (a safety block, a refusal, an empty completion with a
    finish reason): an answer, counted wrong, not a failed call. Never retried."""

    def __init__(self, refused: str, text: str = "") -> None:
        super().__init__(f"refused: {refused}")
        self.refused = refused
        self.text = text


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    jitter: float = 0.25

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (0-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay_s)
        backoff = min(self.max_delay_s, self.base_delay_s * 2.0**attempt)
        return min(self.max_delay_s, backoff * (1.0 + self.jitter * rng.random()))


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    lower = {k.lower(): v for k, v in headers.items()}
    raw_ms = lower.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lower.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    sleep: Sleep = asyncio.sleep,
    rng: random.Random | None = None,
) -> T:
    rng = rng or random.Random()
    last: RetryableError | None = None
    for attempt in range(policy.max_attempts):
        try:
            return await call()
        except RetryableError as exc:
            last = exc
            if attempt + 1 < policy.max_attempts:
                await sleep(policy.delay(attempt, exc.retry_after, rng))
    assert last is not None
    raise CallFailed(f"{last.message} (gave up after {policy.max_attempts} attempts)")
