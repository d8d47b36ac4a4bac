"""What a reply to a multiple-choice prompt looks like, and the rules that read one.

The prompt asks for one answer line, ``correct answer: <option_number>. <answer>, because
<succinct reason>``; a reasoning strategy asks for its reasoning first, between
``<reasoning>`` and ``</reasoning>``. A reply's answer part is what follows the last closing
tag (:func:`answer_part`), and generation may stop once its answer line has ended
(:func:`answer_line_complete`, the stop rule a run hands local models).
"""

from __future__ import annotations

import re

#: The prefix of the committed answer line; choice mode scores the option numbers after it.
ANSWER_PREFIX = "correct answer: "
ANSWER_RULE = ("Begin your reply with one line in exactly this form, choosing only among the "
               "options above:")
ANSWER_LINE = f"{ANSWER_PREFIX}<option_number>. <answer>, because <succinct reason>"
OPEN, CLOSE = "<reasoning>", "</reasoning>"

_MARKER = ANSWER_PREFIX.rstrip(": ")  # "correct answer", however the reply punctuates it


def answer_line(number: int, answer: str, reason: str) -> str:
    """A filled-in answer line (worked examples, the test models' replies)."""
    return f"{ANSWER_PREFIX}{number}. {answer}, because {reason}."


def answer_part(text: str) -> tuple[str, str | None]:
    """The part of a reasoning reply that holds the answer, and a note when there is none:
    the text after the last closing tag; "" when the reasoning was opened and never closed;
    the whole reply when it has no tags."""
    closed = text.rfind(CLOSE)
    if closed >= 0:
        return text[closed + len(CLOSE):], None
    if OPEN in text:
        return "", (f"the reasoning never reached {CLOSE} (out of tokens?): no answer given; "
                    "raise --max-new-tokens or reasoning_tokens")
    return text, None


def answer_line_complete(text: str) -> bool:
    """True once the last ``correct answer`` line has content and has ended with a newline;
    in a reasoning reply (chain or tree of thought), only after the reasoning has closed."""
    if OPEN in text:
        closed = text.rfind(CLOSE)
        if closed < 0:
            return False
        text = text[closed:]
    idx = text.lower().rfind(_MARKER)
    if idx < 0:
        return False
    rest = text[idx + len(_MARKER) :]
    match = re.search(r"\w[^\n]*\n", rest)
    if match is None:
        return False
    line = match.group(0)
    return not ("<" in line and ">" in line and "option" in line.lower())  # an echoed template
