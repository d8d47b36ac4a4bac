"""Pieces the Wikidata-shaped loaders share: text handling and generic relation sentences.

- `read_tab_lines` reads the headerless, unquoted tab-separated files of the Wikidata5m
  release (its texts contain quote characters, so a CSV reader would mangle them).
- `split_sentences`, `word_key` and `AliasMatcher` find which sentences of an entity's text
  mention an alias of another entity: case-insensitive, whole words only. Texts and aliases
  are cut into word tokens (`\\w+`), and an alias matches where its token sequence occurs in
  the sentence's tokens, so the cost is one dictionary lookup per word whatever the number
  of aliases searched for (Wikidata hubs have tens of thousands of neighbours).
- `generic_template` turns a Wikidata property label into a sentence template.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Iterator, Sequence
from itertools import compress
from pathlib import Path
from typing import Any

from sentencex import segment

from kgcert.errors import InputError
from kgcert.loaders.fields import MAX_TYPE_CHARS, SURELY_SHORT, value_problem
from kgcert.loaders.tabular import require_file
from kgcert.loading import progress as loadprogress
from kgcert.store.kg_data import Problems

_WORD = re.compile(r"\w+")


# --- reading -------------------------------------------------------------------------------

def read_tab_lines(
    path: Path,
    columns: Sequence[str],
    problems: Problems,
    *,
    strict: bool = False,
    open_ended: bool = False,
    kinds: Sequence[str] = (),
) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number, fields) of a headerless tab-separated file.

    A line must have exactly len(columns) fields; with `open_ended` it must have at least that
    many (alias lists), and without it the last field keeps any further tabs (texts). When
    the first line does not have the columns, the file is not in this layout: that stops the
    load with a message naming them. Later bad lines are counted in `problems` (or raise
    with `strict`). Bytes that are not UTF-8 stop the load.

    `kinds` says what each column holds (fields.py): "key" (an id: non-empty), "type" (a
    relation id: non-empty and short), "name" (the further fields of open-ended lines too)
    or "text" (free). A field breaking its kind's rule makes the line malformed.
    """
    require_file(path)
    width = len(columns)
    more = " or more" if open_ended else ""
    expected = f"{width}{more} tab-separated columns ({', '.join(columns)})"
    first = True
    number = batch_start = batch_bytes = 0  # lines read, and not yet reported
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            batch_bytes += len(raw)
            if number - batch_start >= loadprogress.READ_BATCH_ROWS:
                loadprogress.read(batch_bytes, number - batch_start)
                batch_start, batch_bytes = number, 0
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise InputError(
                    f"{path}: not valid UTF-8 at line {number} (byte "
                    f"0x{raw[error.start]:02x}); re-encode the file as UTF-8"
                ) from None
            if first:
                line = line.lstrip("\ufeff")
            if not line.strip():
                continue
            fields = line.split("\t") if open_ended else line.split("\t", width - 1)
            fields = [f.strip() for f in fields]
            ok = len(fields) >= width if open_ended else len(fields) == width
            ok = ok and all(fields[:width])
            if not ok:
                if first:
                    raise InputError(
                        f"{path}: expected {expected}, found {len(fields)} on line {number}"
                    )
                where = f"{path.name}:{number}"
                if strict:
                    raise InputError(f"{where}: malformed line, expected {expected}")
                problems.add(where)
                continue
            reason = _field_problem(fields, columns, kinds, line) if kinds else None
            if reason is not None:
                where = f"{path.name}:{number}"
                if strict:
                    raise InputError(f"{where}: malformed line ({reason})")
                problems.add(f"{where} ({reason})")
                continue
            first = False
            yield number, fields
        loadprogress.read(batch_bytes, number - batch_start)


def _field_problem(fields: Sequence[str], columns: Sequence[str], kinds: Sequence[str],
                   line: str) -> str | None:
    """Why a line's fields break their kinds' rules; cheap for the common clean line."""
    # Not printable: a control character, or a tab kept in the last column.
    suspect = len(line) > SURELY_SHORT or not "".join(fields).isprintable()
    for index, value in enumerate(fields):
        kind = kinds[index] if index < len(kinds) else "name"
        column = columns[index] if index < len(columns) else columns[-1]
        if kind == "text" or not (suspect or (kind == "type" and len(value) > MAX_TYPE_CHARS)):
            continue
        found = value_problem(column, value, required=kind != "name", is_type=kind == "type")
        if found:
            return found
    return None


def setting_list(value: Any, name: str) -> list[str]:
    """A list setting given as a YAML list, a comma-separated string, or nothing."""
    if value is None or value == "" or value is False:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list | tuple | set):
        return [str(v).strip() for v in value if str(v).strip()]
    raise InputError(f"setting {name} must be a list or a comma-separated string, got {value!r}")


def check_settings(settings: dict[str, Any], known: Iterable[str], loader: str) -> None:
    known = sorted(known)
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise InputError(
            f"unknown setting(s) for the {loader} loader: {', '.join(unknown)}; "
            f"known: {', '.join(known)}"
        )


# --- text ----------------------------------------------------------------------------------

def split_sentences(text: str) -> list[str]:
    """Sentences of an English paragraph (sentencex), stripped, empty ones left out."""
    return [s.strip() for s in segment("en", text) if s.strip()]


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def word_key(alias: str) -> tuple[str, ...]:
    """The word tokens an alias is matched by; empty for aliases too short to match safely.

    One-character aliases ("A", "5") are skipped: matched case-insensitively they would hit
    almost every sentence.
    """
    key = tuple(words(alias))
    return () if len("".join(key)) < 2 else key


class AliasMatcher:
    """Finds, in a token list, which owners' aliases occur as whole-word sequences."""

    def __init__(self) -> None:
        self._owners: dict[tuple[str, ...], set[Hashable]] = {}
        self._lengths: dict[str, set[int]] = {}

    def add(self, alias: str | tuple[str, ...], owner: Hashable) -> None:
        key = alias if isinstance(alias, tuple) else word_key(alias)
        if not key:
            return
        self._owners.setdefault(key, set()).add(owner)
        self._lengths.setdefault(key[0], set()).add(len(key))

    def add_keys(self, keyed: Iterable[tuple[tuple[str, ...], Hashable]]) -> None:
        """`add` of many (word key, owner) pairs, in order, with the loop's lookups hoisted."""
        owners, lengths = self._owners, self._lengths
        for key, owner in keyed:
            if key:
                owners.setdefault(key, set()).add(owner)
                lengths.setdefault(key[0], set()).add(len(key))

    def __bool__(self) -> bool:
        return bool(self._owners)

    def scan(self, tokens: Sequence[str]) -> Iterator[tuple[int, int, set[Hashable]]]:
        """Yield (position, length in words, owners) of every alias occurrence."""
        lengths, owners = self._lengths, self._owners
        size = len(tokens)
        # Most tokens start no alias: C-level passes pick those that may, and the loop visits
        # only them, not a Python step per token.
        for position in compress(range(size), map(lengths.__contains__, tokens)):
            for length in lengths[tokens[position]]:
                if position + length <= size:
                    found = owners.get(tuple(tokens[position:position + length]))
                    if found:
                        yield position, length, found

    def owners_in(self, tokens: Sequence[str]) -> set[Hashable]:
        found: set[Hashable] = set()
        for _, _, owners in self.scan(tokens):
            found |= owners
        return found


def mentions(sentences: Sequence[str], aliases: Iterable[str]) -> list[int]:
    """Indexes of the sentences that mention any of `aliases` (case-insensitive, whole words)."""
    matcher = AliasMatcher()
    for alias in aliases:
        matcher.add(alias, 0)
    if not matcher:
        return []
    return [i for i, sentence in enumerate(sentences) if matcher.owners_in(words(sentence))]


def earliest_alias(text: str, aliases: Sequence[str]) -> str | None:
    """The alias that occurs first in `text` (the longest one where several start together)."""
    matcher = AliasMatcher()
    for index, alias in enumerate(aliases):
        matcher.add(alias, index)
    best: tuple[int, int, int] | None = None
    for position, length, owners in matcher.scan(words(text)):
        if best is not None and position > best[0]:
            break  # occurrences come in text order
        candidate = (position, -length, min(o for o in owners if isinstance(o, int)))
        if best is None or candidate < best:
            best = candidate
    return aliases[best[2]] if best else None


# --- sentences for relations without text ---------------------------------------------------

_VERB_STARTS = {"has", "have", "contains", "shares", "follows", "replaces", "uses", "is",
                "owns", "includes", "applies"}
# Participles and prepositions: "{source} is <label> {target}."
_PREDICATE_STARTS = {"located", "named", "owned", "founded", "replaced", "followed", "studied",
                     "depicted", "described", "inspired", "merged", "separated", "designated",
                     "said", "published", "valid", "based", "used", "on", "in", "at"}
_PREPOSITIONS = {"of", "by", "with", "in", "into", "from", "after", "as", "to", "within", "on",
                 "at", "for", "than"}


def generic_template(label: str) -> str:
    """A sentence template for a relation known only by its (Wikidata property) label.

    "shares border with" -> "{source} shares border with {target}."
    "capital of"         -> "{source} is capital of {target}."
    "official language"  -> "{source} has {target} as official language."
    """
    label = " ".join(label.split())
    tokens = label.casefold().split()
    if not tokens:
        return "{source} is related to {target}."
    if tokens[0] in _VERB_STARTS:
        return "{source} " + label + " {target}."
    if tokens[0] in _PREDICATE_STARTS or tokens[-1] in _PREPOSITIONS:
        return "{source} is " + label + " {target}."
    return "{source} has {target} as " + label + "."
