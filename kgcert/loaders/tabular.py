"""Reading delimited files with errors a user can act on: names, columns, line numbers."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from kgcert.errors import InputError
from kgcert.loaders.records import Problems

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # PrimeKG feature files hold long texts


def require_file(path: Path) -> Path:
    if not path.exists():
        raise InputError(f"file not found: {path}")
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
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) for each well-formed row.

    Rows with the wrong number of fields are counted in `problems` (with `strict`, the
    first one is an error). A missing required column or bytes that are not UTF-8 stop
    the load with a one-line message.
    """
    require_file(path)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            if has_header:
                header = next(reader, None)
                if header is None:
                    raise InputError(f"{path}: empty file, expected a header row")
                header = [h.strip().lstrip("\ufeff") for h in header]
            else:
                header = list(columns or [])
            missing = [c for c in required if c not in header]
            if missing:
                raise InputError(
                    f"{path}: missing column(s) {', '.join(missing)}; found {', '.join(header)}"
                )
            width = len(header)
            for fields in reader:
                if not fields or (len(fields) == 1 and not fields[0].strip()):
                    continue
                if len(fields) != width:
                    where = f"{path.name}:{reader.line_num}"
                    if strict:
                        raise InputError(
                            f"{where}: malformed row ({len(fields)} fields, expected {width})"
                        )
                    problems.add(where)
                    continue
                yield reader.line_num, dict(zip(header, fields, strict=True))
        except UnicodeDecodeError:
            line, byte = _first_bad_utf8(path)
            raise InputError(
                f"{path}: not valid UTF-8 at line {line} (byte 0x{byte:02x}); "
                "re-encode the file as UTF-8"
            ) from None
        except csv.Error as error:
            raise InputError(f"{path}:{reader.line_num}: unreadable row ({error})") from None
