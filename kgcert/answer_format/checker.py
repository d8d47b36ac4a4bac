"""Answer checker: find the option a response commits to and score it.

Algorithm 8 of LLMCert-C matched ``correct answer: N`` anywhere in the lower-cased response, so
an intermediate line earned credit and ``**Correct answer:** 2`` failed. This checker reads the
*last* committed answer, tolerates markdown, brackets, spacing, full-width characters, JSON,
``Answer: 3``, ``\\boxed{3}``, number words and option text given instead of a number, and tells
a wrong answer from an unparseable one and from a failed call.

Precedence: an explicit option number wins over the option text that follows it (as in the
paper). A number outside ``1..len(options)`` is a committed but wrong answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

__all__ = ["CheckResult", "Outcome", "check_answer", "parse_answer", "ParsedAnswer"]


class Outcome(str, Enum):
    CORRECT = "correct"
    WRONG = "wrong"
    UNPARSEABLE = "unparseable"
    ERROR = "error"


@dataclass(frozen=True)
class ParsedAnswer:
    option: int
    matched: str
    how: str  # "number", "word", "letter" or "text"
    note: str = ""


@dataclass(frozen=True)
class CheckResult:
    outcome: Outcome
    option: int | None = None
    matched: str | None = None
    how: str = ""
    note: str = ""

    @property
    def is_correct(self) -> bool:
        return self.outcome is Outcome.CORRECT


_STRONG = re.compile(
    r"(?<![a-z])(?:correct|final|right)\s*(?:answer|option|choice)s?"
    r"(?:\s+(?:is|would be|will be|should be|must be))?"
)
_WEAK = re.compile(
    r"(?<!incorrect )(?<!wrong )\b(?:answer|option chosen|choice)"
    r"(?:\s+(?:is|would be|will be|should be))?"
)
_SEPARATOR = re.compile(r"""^[\s:=\-–—>"'`\]\)\}|]*(?:is\b|:)?[\s:=\-–—>"'`|]*""")
_LEAD = re.compile(
    r"^(?:[\s\(\[\{\"'`<]|option\b|choice\b|number\b|no\.|num\.?|opt\.?|#)*", re.IGNORECASE
)
_NUMBER = re.compile(r"^(\d{1,3})(?![\d,]\d)")
_ALTERNATIVE = re.compile(r"^[\s\)\]\}\.]*(?:or|and|/|&|,)\s*(?:option\s*)?\(?\d{1,3}\b")
_WORDS = {
    w: i + 1
    for i, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    )
}
_WORD = re.compile(r"^(" + "|".join(_WORDS) + r")\b")
_LETTER = re.compile(r"^\(?([a-z])(?:\)|\.(?=\s|$)|$)")
_TYPE_PREFIX = re.compile(r"^\([^)]{1,40}\)\s*")
_BOXED = re.compile(r"\\boxed\s*\{([^{}]*)\}")
_TAG = re.compile(r"</?[a-z_][^<>\n]{0,60}>", re.IGNORECASE)
_CLAUSE_END = re.compile(r"\s*(?:,|;|\bbecause\b|\bsince\b|\bas\b\s|\s-\s|\(because| —|\.\s|\.$)")


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _BOXED.sub(lambda m: f"\ncorrect answer: {m.group(1)}\n", text)
    text = _TAG.sub(" ", text)
    text = text.replace("\r", "\n").replace("\u00a0", " ")
    text = re.sub(r"[*`~]+", "", text)
    text = re.sub(r"(?<![a-z0-9])_+|_+(?![a-z0-9])", "", text, flags=re.IGNORECASE)
    text = re.sub(r"(?i)correct_answer|correct-answer", "correct answer", text)
    text = re.sub(r"^[ \t]*(?:#+|>+|[-+] )[ \t]*", "", text, flags=re.MULTILINE)
    return text.lower()


def _norm_option(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[*`~]+", "", text)
    return " ".join(text.split()).strip(" .,;:!?\"'")


def _segment_after(text: str, end: int) -> str:
    """The rest of the line after a marker, or the next non-empty line if that is empty."""
    rest = text[end:]
    rest = rest[_SEPARATOR.match(rest).end() :]  # type: ignore[union-attr]
    line, _, after = rest.partition("\n")
    if not line.strip(" .:-"):
        for nxt in after.split("\n")[:3]:
            if nxt.strip():
                line = nxt
                break
    return line.strip()


def _match_text(segment: str, options: Sequence[str]) -> tuple[int, str] | None:
    """The option whose text the segment starts with (the longest such option)."""
    seg = " ".join(segment.split()).strip(" \"'")
    candidates = [seg, _TYPE_PREFIX.sub("", seg), seg.lstrip("([{ ")]
    best: tuple[int, str] | None = None
    for i, option in enumerate(options, start=1):
        full = _norm_option(option)
        if not full:
            continue
        for opt in {full, _TYPE_PREFIX.sub("", full)}:
            if not opt:
                continue
            for cand in candidates:
                if not cand.startswith(opt):
                    continue
                whole_word = len(cand) == len(opt) or not cand[len(opt)].isalnum()
                if whole_word and (best is None or len(opt) > len(best[1])):
                    best = (i, opt)
    return best


def _parse_segment(
    segment: str, options: Sequence[str], allow_letters: bool
) -> ParsedAnswer | None:
    seg = segment.strip()
    if not seg or seg.startswith("not ") or seg.startswith("<"):
        return None
    body = seg[_LEAD.match(seg).end() :].strip()  # type: ignore[union-attr]
    number = _NUMBER.match(body)
    if number:
        after = body[number.end() :]
        if _ALTERNATIVE.match(after):
            return None  # "2 or 3": no single committed option
        option = int(number.group(1))
        note = ""
        named = _match_text(after.lstrip(" .):-]}"), options)
        if named and named[0] != option:
            note = f"text after the number names option {named[0]}"
        return ParsedAnswer(option, seg[:200], "number", note)
    # Option text before number words and letters: an option may start with "one" or "a".
    named = _match_text(body, options) or _match_text(seg, options)
    if named:
        return ParsedAnswer(named[0], seg[:200], "text")
    word = _WORD.match(body)
    if word and not _ALTERNATIVE.match(body[word.end() :]):
        return ParsedAnswer(_WORDS[word.group(1)], seg[:200], "word")
    if allow_letters:
        letter = _LETTER.match(body)
        if letter:
            index = ord(letter.group(1)) - ord("a") + 1
            if index <= len(options):
                return ParsedAnswer(index, seg[:200], "letter")
    return None


def parse_answer(text: str | None, options: Sequence[str]) -> ParsedAnswer | None:
    """The option (1-based) the response commits to, or None when there is none."""
    if text is None:
        return None
    norm = _normalize(text)
    if not norm.strip():
        return None
    for marker in (_STRONG, _WEAK):
        for match in reversed(list(marker.finditer(norm))):
            parsed = _parse_segment(_segment_after(norm, match.end()), options, True)
            if parsed is not None:
                return parsed
    # No marker: accept a bare "3", "(3)", "3. berlin" (text agreeing) or an exact option text.
    whole = norm.strip()
    if "\n" in whole:
        return None
    bare = re.fullmatch(r"[\(\[]?(\d{1,3})[\)\]]?\.?", whole)
    if bare:
        return ParsedAnswer(int(bare.group(1)), whole, "number")
    numbered = re.match(r"^[\(\[]?(\d{1,3})[\)\].:]\s*(.+)$", whole)
    if numbered:
        named = _match_text(numbered.group(2), options)
        if named and named[0] == int(numbered.group(1)):
            return ParsedAnswer(named[0], whole[:200], "number")
        return None
    named = _match_text(whole, options)
    if named and len(_norm_option(whole)) <= len(named[1]) + 1:
        return ParsedAnswer(named[0], whole[:200], "text")
    return None


def check_answer(
    text: str | None,
    options: Sequence[str],
    correct: int,
    error: str | None = None,
) -> CheckResult:
    """Score a response against the correct option number (1-based).

    ``error`` is the failed call's message, if any: such a response is an ERROR outcome, never
    a wrong answer.
    """
    if not 1 <= correct <= len(options):
        raise ValueError(f"correct option {correct} is not in 1..{len(options)}")
    if error is not None:
        return CheckResult(Outcome.ERROR, note=error)
    parsed = parse_answer(text, options)
    if parsed is None:
        note = "empty response" if not (text or "").strip() else "no committed answer found"
        return CheckResult(Outcome.UNPARSEABLE, note=note)
    note = parsed.note
    if not 1 <= parsed.option <= len(options):
        note = f"option {parsed.option} is not among 1..{len(options)}"
    outcome = Outcome.CORRECT if parsed.option == correct else Outcome.WRONG
    return CheckResult(outcome, parsed.option, parsed.matched, parsed.how, note)
