"""The embedded server's Java heap: KGCERT_JVM_HEAP when set, else sized from this machine.

A quarter of the memory this process may use (the machine's, or its cgroup's limit where
lower), between 1 GiB and 4 GiB: loads write in bounded parts, so the server needs no more
at Wikidata5m size, and the rest stays with Python and the page cache. The choice is said
in words (`describe`) so a load can print it before it starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HEAP_ENV = "KGCERT_JVM_HEAP"
GIB = 1 << 30
MIN_HEAP_GIB, MAX_HEAP_GIB = 1, 4
SHARE = 4  # a quarter of the memory
CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"),
                 Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


@dataclass(frozen=True)
class HeapChoice:
    size: str  # as the JVM's -Xmx takes it: "4g", "512m"
    memory_bytes: int | None  # what it was sized from; None when given by HEAP_ENV, 0 unknown

    def describe(self) -> str:
        if self.memory_bytes is None:
            return f"Java heap {self.size} (set by {HEAP_ENV})"
        if not self.memory_bytes:
            return f"Java heap {self.size} (this machine's memory is unknown; {HEAP_ENV} sets it)"
        return (f"Java heap {self.size} (a quarter of {self.memory_bytes / GIB:.1f} GiB memory, "
                f"between {MIN_HEAP_GIB}g and {MAX_HEAP_GIB}g; {HEAP_ENV} overrides)")


def memory_bytes() -> int | None:
    """Physical memory, or the cgroup's limit where that is lower; None when unknown."""
    try:
        total: int | None = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = None
    for path in CGROUP_LIMITS:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text.isdigit() and (total is None or int(text) < total):
            total = int(text)
    return total


def choose_heap(environ: dict[str, str] | None = None, memory: int | None = None) -> HeapChoice:
    given = (os.environ if environ is None else environ).get(HEAP_ENV, "").strip()
    if given:
        return HeapChoice(given, None)
    found = memory if memory is not None else memory_bytes()
    if not found:
        return HeapChoice(f"{MAX_HEAP_GIB}g", 0)
    gib = min(MAX_HEAP_GIB, max(MIN_HEAP_GIB, found // SHARE // GIB))
    return HeapChoice(f"{gib}g", found)
