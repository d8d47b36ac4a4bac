"""Reading delimited files with errors a user can act on: names, columns, line numbers."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from kgcert.errors import InputError
from kgcert.loaders.fields import SURELY_SHORT, FieldRules
from kgcert.loading import progress as loadprogress
from kgcert.store.kg_data import Problems
from kgcert.util.paths import missing_file

NO_RULES = FieldRules()

# PrimeKG feature files hold long texts; a field over this is malformed (and bounds what an
# unbalanced quote can swallow).
csv.field_size_limit(64 * 2**20)


def require_file(path: Path) -> Path:
    if not path.exists():
        raise missing_file(path)  # or a link loop
    if not path.is_file():
        raise InputError(f"not a file: {path}")
    return path


def _first_bad_utf8(path: Path) -> tuple[int, int]:
    """Line number and value of the first byte that is not UTF-8 (only on the error path)."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as error:
                return number, raw[error.start]
    return 0, 0


def read_rows(
    path: Path,
    required: Sequence[str],
    problems: Problems,
    *,
    delimiter: str = ",",
    strict: bool = False,
    has_header: bool = True,
    columns: Sequence[str] | None = None,
    rules: FieldRules = NO_RULES,
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for each well-formed row.

    Malformed rows are counted in `problems` with their line number and reason (with
    `strict`, the first one is an error): a wrong number of fields, a field breaking `rules`
    (fields.py), or a record that runs over several lines where the file has no multi-line
    fields. The last is an unbalanced quote: it is reported at the line of the quote and the
    lines it swallowed are read again as rows of their own. A missing required column or
    bytes that are not UTF-8 stop the load with a one-line message.
    """
    require_file(path)
    # The text layer over a binary file whose position (`raw.tell()`) the progress reads.
    with path.open("rb") as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="") as handle:
        reader = CarefulReader(path, problems, delimiter=delimiter, strict=strict, rules=rules)
        reader.lines = iter(handle)
        try:
            header = reader.read_header() if has_header else list(columns or [])
            check_columns(path, header, required)
            told, done = 0, reader.done  # bytes and lines reported (the header is no row)
            for row in reader.rows(header):
                yield row
                if reader.done - done >= loadprogress.READ_BATCH_ROWS:
                    loadprogress.read(raw.tell() - told, reader.done - done)
                    told, done = raw.tell(), reader.done
            loadprogress.read(raw.tell() - told, reader.done - done)
        except UnicodeDecodeError:
            raise not_utf8(path) from None


def check_columns(path: Path, header: Sequence[str], required: Sequence[str]) -> None:
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)}; found {', '.join(header)}"
        )


def not_utf8(path: Path) -> InputError:
    line, byte = _first_bad_utf8(path)
    return InputError(f"{path}: not valid UTF-8 at line {line} (byte 0x{byte:02x}); "
                      "re-encode the file as UTF-8")


class CarefulReader:
    """The row-by-row reader of one file (see read_rows). It reads the lines of `lines`;
    where those end inside a record (a quoted field spanning lines), it goes on with the
    lines `more` gives, so that a caller can hand it the file a block at a time (fastcsv.py).
    `done` counts the physical lines read so far."""

    def __init__(self, path: Path, problems: Problems, *, delimiter: str = ",",
                 strict: bool = False, rules: FieldRules = NO_RULES) -> None:
        self.path, self.problems, self.delimiter = path, problems, delimiter
        self.strict, self.rules = strict, rules
        self.lines: Iterator[str] = iter(())
        self.more: Callable[[], str | None] | None = None
        self.again: list[str] = []  # swallowed lines to read again, the next one last
        self.taken: list[str] = []  # the physical lines of the record being read
        self.done = 0  # lines before the record being read

    def _feed(self) -> Iterator[str]:
        again, taken = self.again, self.taken
        while True:
            line = again.pop() if again else next(self.lines, None)
            if line is None and taken and self.more is not None:
                line = self.more()
            if line is None:
                return
            taken.append(line)
            yield line

    def _malformed(self, reason: str) -> None:
        where = f"{self.path.name}:{self.done + 1}"
        if self.strict:
            raise InputError(f"{where}: malformed row ({reason})")
        self.problems.add(f"{where} ({reason})")

    def _reread_swallowed(self) -> None:
        """Count the record read so far as its first line alone; read the rest again."""
        self.again.extend(reversed(self.taken[1:]))
        self.taken.clear()
        self.done += 1

    def read_header(self) -> list[str]:
        path, taken = self.path, self.taken
        try:
            header = next(csv.reader(self._feed(), delimiter=self.delimiter), None)
        except csv.Error as error:
            raise InputError(f"{path}:{self.done + 1}: unreadable header ({error})") from None
        if header is None:
            raise InputError(f"{path}: empty file, expected a header row")
        if len(taken) > 1:
            raise InputError(f"{path}:1: the header runs over {len(taken)} lines "
                             "(an unbalanced quote?)")
        self.done, taken[:] = 1, []
        return [h.strip().lstrip("\ufeff") for h in header]

    def rows(self, header: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
        """(line number, row) for each well-formed row of the lines left."""
        taken, rules, delimiter = self.taken, self.rules, self.delimiter
        malformed, reread_swallowed = self._malformed, self._reread_swallowed
        width = len(header)
        quick_problem = rules.quick_check(header)
        reader = csv.reader(self._feed(), delimiter=delimiter)
        while True:
            try:
                for fields in reader:
                    spans = len(taken)
                    if not fields or (len(fields) == 1 and not fields[0].strip()):
                        self.done += spans
                        taken.clear()
                        continue
                    if len(fields) != width:
                        reason = f"{len(fields)} fields, expected {width}"
                        if spans > 1:
                            malformed(f"{reason}: an unbalanced quote joined lines "
                                      f"{self.done + 1}-{self.done + spans}")
                            reread_swallowed()
                            break
                        malformed(reason)
                        self.done += 1
                        taken.clear()
                        continue
                    row = dict(zip(header, fields, strict=True))
                    text = taken[0] if spans == 1 else "".join(taken)
                    # A quote left open on the last line holds its line end.
                    broken = spans > 1 or fields[-1][-1:] in ("\n", "\r")
                    # isprintable() is false for every control character (and a few rare
                    # spaces, which the exact check then lets pass); a regex over each
                    # line cost more than the csv parse.
                    control = not "".join(fields).isprintable()
                    long = len(text) > SURELY_SHORT
                    if quick_problem(fields) or broken or control or long:
                        problem = rules.problem(row, spans_lines=broken, long=long,
                                                control=control, delimiter=delimiter)
                        if problem is not None:
                            malformed(problem)
                            if spans > 1:
                                reread_swallowed()
                                break
                            self.done += 1
                            taken.clear()
                            continue
                    line = self.done + 1
                    self.done += spans
                    taken.clear()
                    yield line, row
                else:
                    return
            except csv.Error as error:
                # A field over the size limit, say: skip the record's first line.
                malformed(f"unreadable ({error})")
                reread_swallowed()
            reader = csv.reader(self._feed(), delimiter=delimiter)
