"""How much of a reply kgcert reads: what `max_new_tokens` can honestly produce, with a margin.

A server that sends more (a runaway proxy, an HTML page, a hostile endpoint) gets an *error*
outcome, which is neither stored in the samples nor cached; kgcert stops reading at the cap
instead of holding the whole body in memory.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

#: Bytes one token can take in a JSON body: its text with every character escaped
#: (``\\uXXXX``, twice for a surrogate pair), with room to spare.
BYTES_PER_TOKEN = 64
#: The envelope around the text: ids, usage, finish reasons, an error body.
MARGIN_BYTES = 256 * 1024
#: Characters one token can decode to (long runs of spaces or dashes are single tokens).
CHARS_PER_TOKEN = 64
MARGIN_CHARS = 4096


def reply_bytes(max_new_tokens: int) -> int:
    """The most bytes of a reply body read for a call allowed `max_new_tokens`."""
    return MARGIN_BYTES + BYTES_PER_TOKEN * max_new_tokens


def reply_chars(max_new_tokens: int) -> int:
    """The most characters of answer text accepted for `max_new_tokens`."""
    return MARGIN_CHARS + CHARS_PER_TOKEN * max_new_tokens


def too_long(limit: int, unit: str, max_new_tokens: int) -> str:
    """The one-line error of a reply over the cap."""
    return (f"reply too long: over {limit:,} {unit}, more than max_new_tokens={max_new_tokens} "
            "can produce; not stored")


def check_text(text: str, max_new_tokens: int) -> str | None:
    """The error for an answer text longer than `max_new_tokens` can produce, else None."""
    limit = reply_chars(max_new_tokens)
    return too_long(limit, "characters", max_new_tokens) if len(text) > limit else None


class ReplyTooLong(Exception):
    """A reply body passed its cap; reading stopped there."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"reply over {limit:,} bytes")
        self.limit = limit


def too_long_cause(error: BaseException | None) -> ReplyTooLong | None:
    """The ReplyTooLong behind `error` (an SDK wraps what its HTTP client raised), if any."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, ReplyTooLong):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def capped_transport(http: Any, limit: int, **options: Any) -> Any:
    """An async transport of `http` (httpx, or its fork httpx2 that recent SDKs use) that
    reads at most `limit` bytes of each response body and raises ReplyTooLong past it; the
    SDK clients of the other providers take it, so they never hold a runaway reply whole.
    `options` go to the module's own AsyncHTTPTransport (connection limits)."""

    class CappedStream(http.AsyncByteStream):
        def __init__(self, inner: Any, cap: int) -> None:
            self._inner, self._cap = inner, cap

        async def __aiter__(self) -> AsyncIterator[bytes]:
            size = 0
            async for chunk in self._inner:
                size += len(chunk)
                if size > self._cap:
                    raise ReplyTooLong(self._cap)
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    class CappedTransport(http.AsyncBaseTransport):
        def __init__(self) -> None:
            self._inner = http.AsyncHTTPTransport(**options)
            self.limit = limit  # a client kept across batches sets each batch's own

        async def handle_async_request(self, request: Any) -> Any:
            response = await self._inner.handle_async_request(request)
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > self.limit:
                await response.aclose()
                raise ReplyTooLong(self.limit)
            response.stream = CappedStream(response.stream, self.limit)
            return response

        async def aclose(self) -> None:
            await self._inner.aclose()

    return CappedTransport()
