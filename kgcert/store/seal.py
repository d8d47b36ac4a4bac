"""Finding embedded KGs whose database files were cut short while no server ran.

ArcadeDB opens a database with a truncated page file without complaint and then answers from
what is left: a cut index gave `None` for every name looked up through it. So the server's
stop records the size of every page file of every KG (`seal.json` in the embedded home), and
the next start compares before anything is read. Page files only grow while a server writes
them and hold whole pages, so a file shorter than recorded, missing, or not a whole number
of pages is damage. The seal is removed at start: after a server that was killed there is none,
and only the whole-pages check applies until the next clean stop. A KG found damaged stays
damaged (its recorded sizes are carried over) until it is dropped or loaded again.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path

from kgcert.util.atomicfile import replacing

# <name>.<file id>.<page size>.v<version>.<kind>, e.g. drug_0.19.65536.v0.bucket
_PAGE_FILE = re.compile(r"^.+\.\d+\.(\d+)\.v\d+\.[a-z]+$")

Sizes = dict[str, int]


def page_file_sizes(database: Path) -> Sizes:
    sizes = {}
    for entry in os.scandir(database):
        if entry.is_file(follow_symlinks=False) and _PAGE_FILE.match(entry.name):
            sizes[entry.name] = entry.stat(follow_symlinks=False).st_size
    return sizes


def damage(database: Path, recorded: Sizes | None) -> str | None:
    """What is wrong with the page files of one database, or None."""
    sizes = page_file_sizes(database)
    for name, size in sorted(sizes.items()):
        match = _PAGE_FILE.match(name)
        assert match is not None
        page = int(match.group(1))
        if page and size % page:
            return (f"its database file {name} is {size:,} bytes, not a whole number of "
                    f"{page:,}-byte pages")
    for name, size in sorted((recorded or {}).items()):
        if name not in sizes:
            return f"its database file {name} is missing"
        if sizes[name] < size:
            return (f"its database file {name} is {sizes[name]:,} bytes, but was {size:,} when the "
                    "graph server last stopped")
    return None


class Seal:
    """The recorded page-file sizes of the KGs under `databases` (one folder per KG)."""

    def __init__(self, home: Path, databases: Path) -> None:
        self.path = home / "seal.json"
        self.databases = databases

    def _read(self) -> dict[str, Sizes]:
        try:
            recorded = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none (a killed server) or unreadable: the whole-pages check still runs
        return recorded if isinstance(recorded, dict) else {}

    def open(self) -> dict[str, tuple[str, Sizes]]:
        """Check every KG against the seal, then remove it: {kg: (what is wrong, sizes to
        carry over)} for the damaged ones."""
        recorded = self._read()
        found: dict[str, tuple[str, Sizes]] = {}
        if self.databases.is_dir():
            for folder in sorted(self.databases.iterdir()):
                if not folder.is_dir():
                    continue
                expected = recorded.get(folder.name)
                expected = expected if isinstance(expected, dict) else None
                problem = damage(folder, expected)
                if problem:
                    found[folder.name] = (problem, expected or page_file_sizes(folder))
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        return found

    def close(self, damaged: dict[str, tuple[str, Sizes]]) -> None:
        """Record the sizes after a clean stop; damaged KGs keep their earlier record."""
        recorded: dict[str, Sizes] = {}
        if self.databases.is_dir():
            for folder in sorted(self.databases.iterdir()):
                if folder.is_dir():
                    recorded[folder.name] = (damaged[folder.name][1] if folder.name in damaged
                                             else page_file_sizes(folder))
        try:
            with replacing(self.path) as out:
                json.dump(recorded, out)
        except OSError:  # a full disk: without a seal only the whole-pages check runs
            pass
