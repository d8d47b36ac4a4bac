"""Large delimited files read a block at a time: pyarrow parses the clean blocks in C++, the
careful row reader (tabular.py) the rest, so the rows kept and the problems reported are
exactly those of `read_rows`, at several times its speed.

A block is clean when no row in it could be malformed or need csv quoting: no quote
character, no control byte (C0, DEL, C1), no line break but LF or CRLF, the header's
number of fields on every line, and ids, names and types within the limits of fields.py.
Anything else, down to one stray quote, sends the block through the careful reader, which
may read on past the block's end when a quoted field runs over it.
"""

from __future__ import annotations

import io
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from kgcert.loaders.fields import MAX_KEY_BYTES, MAX_TYPE_CHARS, FieldRules
from kgcert.loaders.tabular import NO_RULES, CarefulReader, not_utf8, read_rows, require_file
from kgcert.loading import progress as loadprogress
from kgcert.store.kg_data import Problems

BLOCK_BYTES = 16 * 2**20
# Bytes that can never make a row malformed: printable ASCII but the quote, LF, CR and every
# byte of a multi-byte character (C1 controls, \xc2\x80-\xc2\x9f, are looked for apart).
_PLAIN = bytes(range(0x20, 0x7F)).replace(b'"', b"") + b"\n\r" + bytes(range(0x80, 0x100))
_C1 = tuple(bytes([0xC2, low]) for low in range(0x80, 0xA0))


def read_blocks(
    path: Path,
    columns: Sequence[str],
    problems: Problems,
    *,
    strict: bool = False,
    rules: FieldRules = NO_RULES,
    delimiter: str = ",",
    block_bytes: int | None = None,
) -> Iterator[Any]:
    """The well-formed rows of a delimited file with a header, as pyarrow Tables of string
    `columns` (all required), in file order, each from about `block_bytes` of the file
    (BLOCK_BYTES when not given)."""
    import pyarrow as pa

    require_file(path)
    with path.open("rb") as handle:
        stream = _Lines(handle)
        first = stream.raw_line()
        header = _plain_header(first, delimiter)
        if header is None or len(header) < 2 or any(c not in header for c in columns):
            # Quotes, odd bytes or missing columns in the header: the careful reader reads
            # (and reports) it all.
            yield from _tables(read_rows(path, columns, problems, delimiter=delimiter,
                                         strict=strict, rules=rules), columns, pa)
            return
        careful = CarefulReader(path, problems, delimiter=delimiter, strict=strict,
                                rules=rules)
        careful.done = 1
        careful.more = stream.text_line
        while True:
            block = stream.block(block_bytes or BLOCK_BYTES)
            if not block:
                break
            loadprogress.read(len(block), block.count(b"\n"))
            table = _clean_table(block, header, rules, delimiter)
            if table is not None:
                careful.done += block.count(b"\n") + (not block.endswith(b"\n"))
                yield table.select(list(columns))
                continue
            try:
                careful.lines = iter(io.StringIO(block.decode("utf-8"), newline=""))
                yield from _tables(careful.rows(header), columns, pa)
                while stream.text:  # lines split off a line `more` read
                    careful.lines = stream.drain()
                    yield from _tables(careful.rows(header), columns, pa)
            except UnicodeDecodeError:
                raise not_utf8(path) from None


def _plain_header(line: bytes, delimiter: str) -> list[str] | None:
    try:
        text = line.decode("utf-8").rstrip("\r\n").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None
    if '"' in text or not text.isprintable():
        return None
    header = [h.strip().lstrip("\ufeff") for h in text.split(delimiter)]
    return header if len(set(header)) == len(header) else None


def _clean_table(block: bytes, header: list[str], rules: FieldRules, delimiter: str) -> Any:
    """The block parsed by pyarrow, or None where a row in it may be malformed."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    if block.translate(None, _PLAIN) or (b"\xc2" in block and any(c in block for c in _C1)):
        return None
    if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
        return None
    try:
        table = pcsv.read_csv(
            pa.py_buffer(block),
            read_options=pcsv.ReadOptions(column_names=header),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, quote_char=False,
                                            newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(column_types=dict.fromkeys(header, pa.string()),
                                                strings_can_be_null=False),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None  # a row of another width, or bytes that are not UTF-8
    present = set(header)
    for column in set(rules.keys + rules.names + rules.types) & present:
        if table.num_rows and pc.max(pc.binary_length(table[column])).as_py() > MAX_KEY_BYTES:
            return None
    for column in set(rules.types) & present:
        if table.num_rows and pc.max(pc.utf8_length(table[column])).as_py() > MAX_TYPE_CHARS:
            return None
    for column in set(rules.keys) & present:
        # Few distinct ids per block: checking each in Python keeps str.isspace's meaning.
        if any(not v or v.isspace() for v in pc.unique(table[column]).to_pylist()):
            return None
    return table


def row_tables(rows: Iterator[tuple[int, dict[str, str]]], columns: Sequence[str]
               ) -> Iterator[Any]:
    """The rows of the row reader (read_rows) gathered into pyarrow Tables of `columns`."""
    import pyarrow as pa

    return _tables(rows, columns, pa)


def _tables(rows: Iterator[tuple[int, dict[str, str]]], columns: Sequence[str], pa: Any,
            size: int = 100_000) -> Iterator[Any]:
    """Rows from the careful reader gathered into Tables."""
    gathered: list[dict[str, str]] = []
    for _, row in rows:
        gathered.append(row)
        if len(gathered) >= size:
            yield _table(gathered, columns, pa)
            gathered = []
    if gathered:
        yield _table(gathered, columns, pa)


def _table(rows: list[dict[str, str]], columns: Sequence[str], pa: Any) -> Any:
    return pa.table({c: pa.array([row[c] for row in rows], pa.string()) for c in columns})


class _Lines:
    """A binary file read as blocks of whole lines, or a text line at a time."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.rest = b""
        self.text: deque[str] = deque()  # text lines split off the last raw line

    def block(self, size: int) -> bytes:
        """The next bytes up to and including a line end (or the file's end)."""
        data = self.rest
        while True:
            more = self.handle.read(size)
            data += more
            cut = data.rfind(b"\n") + 1
            if not more or cut:
                break
        if not more:
            self.rest = b""
            return data
        self.rest = data[cut:]
        return data[:cut]

    def raw_line(self) -> bytes:
        cut = self.rest.find(b"\n") + 1
        if not cut:
            self.rest += self.handle.readline()
            cut = len(self.rest)
        line, self.rest = self.rest[:cut], self.rest[cut:]
        return line

    def text_line(self) -> str | None:
        """The next line as the text reader splits lines (a lone CR ends one too)."""
        if not self.text:
            raw = self.raw_line()
            if not raw:
                return None
            self.text.extend(io.StringIO(raw.decode("utf-8"), newline=""))
        return self.text.popleft()

    def drain(self) -> Iterator[str]:
        while self.text:
            yield self.text.popleft()
