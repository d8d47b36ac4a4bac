"""How much of a reply kgcert reads: what `max_new_tokens` can honestly produce, with a margin.

A server that sends more (a runaway proxy, an HTML page, a hostile endpoint) gets an *error*
outcome, which is neither stored in the samples nor cached; kgcert stops reading at the cap
instead of holding the whole body in memory.
"""

from __future__ import annotations

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
