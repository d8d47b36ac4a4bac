"""The CSV neo4j-admin reads: column types found from the values, one array delimiter that no
element contains, fields quoted or bare as neo4j-admin expects (see kgcert.export.neo4j_admin
for the rules), node files with entity ids checked unique."""

from __future__ import annotations

import csv
import gzip
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from kgcert.errors import InputError

# Tried in order; the first that no array element contains is the import's array delimiter.
ARRAY_DELIMITERS = (";", "|", "\x1f", "\x1e", "\x1d", "\x1c")
_BAD_KEY_CHARACTERS = set(':,"\r\n\x00')


class Bare(float):
    """A field the csv module writes bare, as its text (QUOTE_NONNUMERIC quotes all else).

    Used for missing values (an empty unquoted field: no property), booleans and the
    non-finite doubles, whose spelling neo4j-admin reads differently from Python's.
    """

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> Bare:
        bare = super().__new__(cls, 0.0)
        bare.text = text
        return bare

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


MISSING = Bare("")
_TRUE, _FALSE = Bare("true"), Bare("false")


def csv_writer(handle: IO[str]) -> Any:
    return csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")


@contextmanager
def open_text(path: Path, compress: bool) -> Iterator[IO[str]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    if compress:
        with gzip.open(path, "wt", encoding="utf-8", newline="", compresslevel=1) as zipped:
            yield zipped
    else:
        with path.open("w", encoding="utf-8", newline="") as plain:
            yield plain


def write_nodes(path: Path, rows: Sequence[Mapping[str, Any]], columns: list[Column],
                 id_header: str, labels: str, delimiter: str, ids: set[str] | None) -> None:
    """One node file; entity ids are checked unique across files (`ids` collects them)."""
    formats = [(c.key, c.formatter(delimiter)) for c in columns]
    with open_text(path, path.name.endswith(".gz")) as handle:
        handle.write(",".join([id_header, *(c.header for c in columns), ":LABEL"]) + "\n")
        writer = csv_writer(handle)
        for number, row in enumerate(rows):
            if ids is None:
                node_id = str(number)
            else:
                if row.get("id") is None:
                    raise InputError(f"an entity of {path.stem.split('.')[0]} has no id")
                node_id = str(row["id"])
                if node_id in ids:
                    raise InputError(f"entity id {node_id!r} appears twice; "
                                     "neo4j-admin would refuse the import")
                ids.add(node_id)
            writer.writerow([node_id, *(fmt(row.get(key)) for key, fmt in formats), labels])


def delimiter_option(delimiter: str) -> str:
    return delimiter if delimiter.isprintable() else f"U+{ord(delimiter):04X}"


# --- Column types ---------------------------------------------------------------------------

_NUMBER_KINDS = {"long", "double"}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    return "text"  # anything else is written as JSON text


def _merge(kinds: set[str]) -> str:
    if not kinds:
        return "string"
    if len(kinds) == 1:
        return next(iter(kinds))
    return "double" if kinds <= _NUMBER_KINDS else "text"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _double(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


@dataclass
class Column:
    key: str
    scalars: set[str] = field(default_factory=set)  # kinds of the non-list values
    elements: set[str] = field(default_factory=set)  # kinds of the list elements
    lists: bool = False

    @property
    def kind(self) -> str:
        """neo4j-admin's type: string, long, double, boolean, <one of them>[], or text."""
        if self.lists and not self.scalars:
            element = _merge(self.elements)
            return ("string" if element == "text" else element) + "[]"
        return "text" if self.lists else _merge(self.scalars)

    @property
    def header(self) -> str:
        kind = self.kind
        return self.key if kind in ("string", "text") else f"{self.key}:{kind}"

    def formatter(self, delimiter: str) -> Callable[[Any], Any]:
        kind = self.kind
        if kind == "string":
            return lambda v: MISSING if v is None else v
        if kind == "text":
            return lambda v: MISSING if v is None else _text(v)
        if kind == "long":
            return lambda v: MISSING if v is None else v
        if kind == "double":
            return lambda v: MISSING if v is None else (
                float(v) if math.isfinite(v) else Bare(_double(v)))
        if kind == "boolean":
            return lambda v: MISSING if v is None else (_TRUE if v else _FALSE)
        if kind == "string[]" and self.elements == {"string"}:
            return lambda v: delimiter.join(v) if v else MISSING
        return lambda v: delimiter.join(_text(x) for x in v) if v else MISSING


class Scan:
    """The first pass: column types, array delimiters still free, line breaks."""

    def __init__(self) -> None:
        self.free = list(ARRAY_DELIMITERS)
        self.multiline = False

    def _element(self, text: str) -> None:
        if any(c in text for c in self.free):
            self.free = [c for c in self.free if c not in text]
        self._string(text)

    def _string(self, text: str) -> None:
        if not self.multiline and ("\n" in text or "\r" in text):
            self.multiline = True

    def rows(self, rows: Iterable[Mapping[str, Any]], first: Sequence[str],
             skip: Sequence[str] = ()) -> list[Column]:
        """The columns of `rows` (those named in `first` first, then by name)."""
        columns: dict[str, Column] = {}
        for row in rows:
            for key, value in row.items():
                column = columns.get(key)
                if column is None:
                    _check_key(key)
                    column = columns[key] = Column(key)
                if value is None:
                    continue
                if isinstance(value, (list, tuple)):
                    column.lists = True
                    if all(isinstance(x, str) for x in value):  # the usual case, done at once
                        if value:
                            column.elements.add("string")
                            self._element("".join(value))
                        continue
                    for item in value:
                        kind = _kind(item)
                        column.elements.add(kind)
                        if kind in ("string", "text"):
                            self._element(_text(item))
                else:
                    column.scalars.add(_kind(value))
                    if isinstance(value, str):
                        self._string(value)
        for key in skip:
            columns.pop(key, None)
        return [columns.pop(k) for k in first if k in columns] + [
            columns[k] for k in sorted(columns)]

    def delimiter(self) -> str:
        if not self.free:
            raise InputError("every array delimiter neo4j-admin could use ("
                             + ", ".join(delimiter_option(c) for c in ARRAY_DELIMITERS)
                             + ") occurs inside some list value")
        return self.free[0]


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not key or key != key.strip() or (
            _BAD_KEY_CHARACTERS & set(key)):
        raise InputError(f"property name {key!r} cannot be a neo4j-admin column name")
