"""What a field of a KG file may hold, checked while parsing so bad rows never reach a server.

- Ids and names (`keys`, `names`) become indexed properties: the embedded server refuses
  index keys much over a few kB ("Key size ... is too big") and Neo4j at about 8 kB, so they
  are limited to MAX_KEY_BYTES of UTF-8. Keys must also be non-empty.
- Types and relations (`types`) become labels and relationship types, and the embedded
  server names files after them: at most MAX_TYPE_CHARS characters.
- None of them may hold a control character (NUL, tab, escape, ...): such a field would be
  stored, or sanitized into a junk label, silently. A line break in an id or type means an
  unbalanced quote swallowed the following lines; a quoted name may span lines (CSV allows
  it) unless it ends with the line break (a quote left open) or holds a whole row of the
  file (a quote that swallowed rows).
- Free text (descriptions, sentences) may be long and span lines.

A row breaking a rule is malformed: counted with its line number and reason, or, with
--strict, the end of the load.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

MAX_KEY_BYTES = 4096
MAX_TYPE_CHARS = 100
# A key no longer than this many characters is under MAX_KEY_BYTES whatever it holds.
SURELY_SHORT = MAX_KEY_BYTES // 4
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_BREAK = re.compile(r"\r\n|\r|\n")
_CONTROL_NOT_BREAK = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def value_problem(column: str, value: str, *, required: bool = False,
                  is_type: bool = False, breaks: bool = False) -> str | None:
    """Why one id, name or type value is unusable, or None. `breaks`: line breaks allowed
    (checked by FieldRules)."""
    if required and (not value or value.isspace()):
        return f"empty {column}"
    bad = (_CONTROL_NOT_BREAK if breaks else _CONTROL).search(value)
    if bad is not None:
        return f"control character U+{ord(bad.group()):04X} in {column}"
    if is_type and len(value) > MAX_TYPE_CHARS:
        return f"{column} is {len(value):,} characters, over the limit of {MAX_TYPE_CHARS}"
    if len(value) > SURELY_SHORT:
        size = len(value.encode("utf-8", errors="surrogatepass"))
        if size > MAX_KEY_BYTES:
            return f"{column} is {size:,} bytes, over the limit of {MAX_KEY_BYTES:,}"
    return None


@dataclass(frozen=True)
class FieldRules:
    """The columns of a delimited file that are ids, names and types (see the module doc)."""

    keys: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    multiline: tuple[str, ...] = ()  # may hold line breaks (quoted free text)

    def quick_check(self, header: Sequence[str]) -> Callable[[Sequence[str]], bool]:
        """A test for the fields of a row whose lines look clean: an empty key or an overlong
        type (the rest needs a line to show a control character, a break or a long text).
        Built from C-level pieces: it runs on every row of a file."""
        keys = _picker([header.index(c) for c in self.keys if c in header])
        types = _picker([header.index(c) for c in self.types if c in header])

        def suspect(fields: Sequence[str]) -> bool:
            return (not all(map(str.strip, keys(fields)))
                    or max(map(len, types(fields)), default=0) > MAX_TYPE_CHARS)

        return suspect

    def problem(self, row: Mapping[str, str], *, spans_lines: bool, long: bool,
                control: bool, delimiter: str = ",") -> str | None:
        """Why the row is malformed, or None. The flags say what the raw lines showed
        (several lines or a quote open at the end, over SURELY_SHORT characters, a field
        that is not all printable) so that the common clean row costs a few length checks."""
        for column in self.keys:
            value = row.get(column)
            if value is not None and (not value or value.isspace()):
                return f"empty {column}"
        for column in self.types:
            value = row.get(column)
            if value is not None and len(value) > MAX_TYPE_CHARS:
                return value_problem(column, value, is_type=True)
        if spans_lines:
            for column, value in row.items():
                if column in self.multiline or not ("\n" in value or "\r" in value):
                    continue
                if column in self.names and not _swallowed(value, delimiter, len(row)):
                    continue
                return (f"line break in {column}: an unbalanced quote joined the "
                        "following lines")
        if long or control:
            for group, kind in ((self.keys, "key"), (self.names, "name"), (self.types, "type")):
                for column in group:
                    value = row.get(column)
                    found = value_problem(column, value, is_type=kind == "type",
                                          breaks=kind == "name") if value else None
                    if found:
                        return found
        return None


def _swallowed(value: str, delimiter: str, width: int) -> bool:
    """Whether a multi-line value shows an unbalanced quote: it ends with its line break
    (the quote was left open) or one of its lines holds a whole row."""
    return value.endswith(("\n", "\r")) or any(
        line.count(delimiter) >= width - 1 for line in _BREAK.split(value))


def _picker(indexes: list[int]) -> Callable[[Sequence[str]], tuple[str, ...]]:
    """The fields at `indexes`, always as a tuple (itemgetter of one index gives the item)."""
    if len(indexes) == 1:
        index = indexes[0]
        return lambda fields: (fields[index],)
    return itemgetter(*indexes) if indexes else (lambda fields: ())
