"""Progress of a load's phases (reading the files, preprocessing, writing), told to one
listener: the CLI's progress display.

The readers sit several calls deep inside the loaders, so they report through the module's
active listener (set by `listening`) rather than a callback handed down every call. With no
listener, reporting costs a function call per batch of rows and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

READING = "reading files"
READ_BATCH_ROWS = 1 << 16  # readers report once per this many lines, not per line


@dataclass(frozen=True)
class Tick:
    """Where one phase stands: `done` units so far, `fraction` of the phase when known."""

    phase: str
    done: int
    unit: str
    fraction: float | None = None


Listener = Callable[[Tick], None]

_listener: Listener | None = None
_read_total_bytes = 0
_read_bytes = 0
_read_rows = 0


@contextmanager
def listening(listener: Listener | None, files: Sequence[Path] = ()) -> Iterator[None]:
    """Send the ticks of the enclosed steps to `listener`; reading `files` is one phase, its
    fraction the share of their bytes read."""
    global _listener, _read_total_bytes, _read_bytes, _read_rows
    previous = _listener
    _listener = listener
    _read_total_bytes = sum(_size(f) for f in files)
    _read_bytes = _read_rows = 0
    if listener is not None and files:
        listener(Tick(READING, 0, "rows", 0.0))  # the phase's clock starts
    try:
        yield
        if listener is not None and _read_rows:
            listener(Tick(READING, _read_rows, "rows", 1.0))
    finally:
        _listener = previous


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def read(nbytes: int, rows: int) -> None:
    """A reader got through `nbytes` more bytes of a source file holding `rows` more rows."""
    global _read_bytes, _read_rows
    if _listener is None:
        return
    _read_bytes += nbytes
    _read_rows += rows
    fraction = min(1.0, _read_bytes / _read_total_bytes) if _read_total_bytes else None
    _listener(Tick(READING, _read_rows, "rows", fraction))


def tick(phase: str, done: int, total: int | None, unit: str) -> None:
    """A step other than reading has done `done` of `total` units."""
    if _listener is not None:
        _listener(Tick(phase, done, unit, min(1.0, done / total) if total else None))
