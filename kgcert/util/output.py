"""Writing results: an OSError (disk full, read-only file system, no permission) becomes one
line naming the path and the system's reason instead of an internal error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kgcert.errors import KgcertError


@contextmanager
def output_to(target: Path) -> Iterator[None]:
    """Report a failed write under `target` as KgcertError; the OS names the exact file when
    it knows it (not for a write that ran out of space)."""
    try:
        yield
    except OSError as error:
        where = error.filename if error.filename is not None else target
        raise KgcertError(f"cannot write {where}: {error.strerror or error}") from None
