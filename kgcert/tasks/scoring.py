"""Reading a model's reply: the paper's exact rules and a flexible reading.

Exact (KG-LLM-Bench's own rules, minus their crashes):
- Yes/No: the reply, trimmed of surrounding whitespace, is exactly the answer ("Yes").
- Counts: the first `Answer: <digits>` in the reply gives the number.
- Entities: the first `Answer:` in the reply; the rest of its line, trimmed, must be one of
  the correct labels exactly (the paper's `[\\w\\s]+` capture cut labels at an apostrophe
  or a hyphen; here any character of the label counts).
- Paths: the reply without `SHORTEST PATH:`, trimmed, must be one list literal of quoted
  labels, equal to a correct path. Quotes may be ' or " and a label may contain the other
  quote or its own (Côte d'Ivoire in single quotes is read correctly, where the paper's
  literal_eval failed).

Flexible (for replies that ignore the format): case, accents, punctuation, surrounding
quotes, markdown emphasis, bullets and headers are ignored; the answer is looked for after
the last "answer:" / "answer is" marker, else on the first or last line; "Yes." and
"**Answer:** 3" count. Both rules are total: an empty reply, or None, scores False.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

# --- normalisation -------------------------------------------------------------------------

_APOSTROPHES = "'\u2019\u2018`\u00b4\u02bc"
_NUMBER_WORDS = {
    word: value for value, word in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen", "twenty",
    ))
}
_LINE_PREFIX = re.compile(r"^(?:[-*+\u2022>#]+|\d+[.)])\s+")
_MARKER = re.compile(r"(?:final\s+)?answer\s*(?:is\b|:)", re.IGNORECASE)
_PATH_MARKER = re.compile(r"shortest\s+path\s*(?:is\b|:)", re.IGNORECASE)
_EXACT_COUNT = re.compile(r"Answer:\s*(\d+)")
_NUMBER = re.compile(r"\b\d[\d,]*\b")


def normalize(text: str) -> str:
    """Case-, accent- and punctuation-blind form of a label or reply fragment."""
    text = unicodedata.normalize("NFKD", text)
    out: list[str] = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Mn" or char in _APOSTROPHES:
            continue
        out.append(" " if category[0] in "PS" else char)
    return " ".join("".join(out).casefold().split())


def clean_markdown(text: str) -> str:
    """Drop bullets, quote marks, headers and list numbers at line starts, and emphasis."""
    lines = [_LINE_PREFIX.sub("", line.strip()) for line in text.splitlines()]
    return re.sub(r"\*\*|__|`+|~~", "", "\n".join(lines)).strip()


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _after_last_marker(text: str, marker: re.Pattern[str] = _MARKER) -> str | None:
    found = list(marker.finditer(text))
    if not found:
        return None
    return text[found[-1].end():].strip()


def _first_line(text: str) -> str:
    lines = _lines(text)
    return lines[0] if lines else ""


# --- Yes / No ------------------------------------------------------------------------------

def exact_yes_no(response: str, answer: str) -> bool:
    return response.strip() == answer


def _yes_no_word(text: str) -> str | None:
    words = normalize(text).split()
    if words and words[0] in ("yes", "no"):
        return words[0]
    return None


def flexible_yes_no(response: str, answer: str) -> bool:
    text = clean_markdown(response)
    marked = _after_last_marker(text)
    candidates = [_first_line(marked)] if marked is not None else []
    lines = _lines(text)
    candidates += lines[:1] + lines[-1:]
    for candidate in candidates:
        word = _yes_no_word(candidate)
        if word is not None:
            return word == answer.strip().lower()
    return False


# --- counts --------------------------------------------------------------------------------

def exact_count(response: str, answer: int) -> bool:
    match = _EXACT_COUNT.search(response)
    return match is not None and int(match.group(1)) == answer


def _first_number(text: str) -> int | None:
    for token in normalize(text.replace(",", "")).split():
        if token.isdigit():
            return int(token)
        if token in _NUMBER_WORDS:
            return _NUMBER_WORDS[token]
    return None


def flexible_count(response: str, answer: int) -> bool:
    text = clean_markdown(response)
    marked = _after_last_marker(text)
    if marked is not None:
        value = _first_number(_first_line(marked))
        if value is not None:
            return value == answer
    first = _first_line(text)
    words = normalize(first).split()
    if words and (words[0].isdigit() or words[0] in _NUMBER_WORDS):
        return _first_number(first) == answer
    numbers = {int(n.replace(",", "")) for n in _NUMBER.findall(text)}
    return numbers == {answer}


# --- entities ------------------------------------------------------------------------------

def exact_entity(response: str, labels: Iterable[str]) -> bool:
    start = response.find("Answer:")
    if start < 0:
        return False
    rest = response[start + len("Answer:"):]
    line = rest.split("\n", 1)[0].strip()
    return bool(line) and line in set(labels)


def _entity_variants(candidate: str) -> list[str]:
    variants = [candidate]
    trimmed = re.sub(r"\s*\([^()]*\)\s*[.!]?\s*$", "", candidate)
    if trimmed != candidate:
        variants.append(trimmed)
    return variants


def flexible_entity(response: str, labels: Iterable[str]) -> bool:
    wanted = {normalize(label) for label in labels} - {""}
    text = clean_markdown(response)
    marked = _after_last_marker(text)
    lines = _lines(text)
    candidates = [_first_line(marked)] if marked is not None else []
    candidates += lines[-1:] + lines[:1]
    for candidate in candidates:
        for variant in _entity_variants(candidate):
            if normalize(variant) in wanted:
                return True
    return False


# --- label lists (paths) -------------------------------------------------------------------

def _unescape(text: str) -> str:
    return re.sub(r"\\([\\'\"])", r"\1", text)


def parse_label_list(text: str) -> list[str] | None:
    """`['A', "B's", 'C']` -> ['A', "B's", 'C']; None unless the whole text is one list.

    A quoted item ends at its quote character when that is followed (after spaces) by a
    comma or the end of the list, so a label may contain either quote character.
    """
    text = text.strip()
    if len(text) < 2 or text[0] != "[" or text[-1] != "]":
        return None
    rest = text[1:-1].strip()
    items: list[str] = []
    while rest:
        quote = rest[0]
        if quote not in "'\"":
            return None
        search = 1
        while True:
            close = rest.find(quote, search)
            if close < 0:
                return None
            after = rest[close + 1:].lstrip()
            if not after or after[0] == ",":
                break
            search = close + 1
        items.append(_unescape(rest[1:close]))
        rest = after[1:].lstrip() if after else ""
    return items


def _loose_list(text: str) -> list[str] | None:
    """A list from free text: a bracketed list (quoted or not) or an arrow chain."""
    bracket = re.search(r"\[[^\[\]]*\]", text)
    if bracket:
        parsed = parse_label_list(bracket.group(0))
        if parsed is not None:
            return parsed
        inner = bracket.group(0)[1:-1]
        items = [item.strip().strip(_APOSTROPHES + '"') for item in inner.split(",")]
        return [item for item in items if item] or None
    line = _first_line(text)
    parts = re.split(r"\s*(?:->|=>|\u2192|\u27f6|-->|\u2014>)\s*", line)
    if len(parts) > 1:
        return [part.strip().strip(_APOSTROPHES + '".') for part in parts]
    return None


PathCheck = Callable[[list[str], Callable[[str], str]], bool]


def exact_path(response: str, check: PathCheck) -> bool:
    labels = parse_label_list(response.replace("SHORTEST PATH:", "").strip())
    return labels is not None and check(labels, lambda label: label)


def flexible_path(response: str, check: PathCheck) -> bool:
    text = clean_markdown(response)
    candidates: list[str] = []
    for marker in (_PATH_MARKER, _MARKER):
        marked = _after_last_marker(text, marker)
        if marked is not None:
            candidates.append(marked)
    lists = re.findall(r"\[[^\[\]]*\]", text)
    if lists:
        candidates.append(lists[-1])
    candidates += _lines(text)[-1:]
    for candidate in candidates:
        labels = _loose_list(candidate)
        if labels and check(labels, normalize):
            return True
    return False
