"""Hand memory the process has freed back to the operating system.

Parsing a KG makes and drops millions of small Python objects (the lines of a block, the
rows of a part). glibc keeps what they freed in its heap for later use rather than returning
it, so the process's resident memory stays at its high-water mark for the rest of the load,
beside the server's heap: at Wikidata5m scale 0.1 about 170 MB of 530 MB held after the read
was such free space (benchmarks/bench_load_memory.py). `malloc_trim(0)` gives it back.
Elsewhere than glibc (macOS, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from typing import Any


@cache
def _libc_trim() -> Any:
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


def return_freed_memory() -> bool:
    """Return the allocator's free pages; False where the C library cannot. (No cyclic
    collection first: over a KG parsed into millions of Python rows it would take seconds.)
    Arrow's own allocator (mimalloc) keeps freed columns too: it is asked the same where
    Arrow is already in use (never imported for this)."""
    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()
    trim = _libc_trim()
    if trim is None:
        return False
    trim(0)
    return True
