"""Text from outside (a model's reply, a file) made safe to print on a terminal."""

from __future__ import annotations

import unicodedata

_KEPT = frozenset("\n\t")


def escaped_controls(text: str) -> str:
    """`text` with every control character but newline and tab shown as an escape (`\\x1b`),
    and the format characters that reorder or hide text (bidi overrides, zero-width marks)
    as `\\u202e`: a reply holding terminal escapes cannot clear the screen, retitle the
    window or make text read differently from what was stored."""
    if text.isprintable():
        return text
    shown = []
    for char in text:
        kind = unicodedata.category(char)
        if char in _KEPT or kind not in ("Cc", "Cf"):
            shown.append(char)
        elif ord(char) < 0x100:
            shown.append(f"\\x{ord(char):02x}")
        else:
            shown.append(f"\\u{ord(char):04x}")
    return "".join(shown)
