"""Write a file whole or not at all: write beside it, then rename over it.

A reader (another command, a resumed run) never sees half a file, and a killed or failed write
leaves the old file in place and no temporary behind. The temporary is made by `mkstemp`, so the
file is readable by its owner only.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


@contextlib.contextmanager
def replacing(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """The open temporary ("w" text in UTF-8, or "wb"); renamed over `path` when the block
    ends without an error, removed in every case that does not get that far."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, mode, encoding=None if "b" in mode else "utf-8") as out:
            yield out
        os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def write_cache_json(path: Path, body: Any) -> None:
    """A cache entry as JSON, its folder private; a cache that cannot be written (a full or
    read-only disk) is only slower, so the error is dropped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with replacing(path) as out:
            json.dump(body, out)
    except OSError:
        pass
