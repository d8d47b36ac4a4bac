"""The files prompts read through memory maps, and handing their read pages back.

A page read through a map stays in the process's resident memory (RssFile) until it is
unmapped, though the kernel's page cache owns it. The edges' own sentences of a full-size
Wikidata5m (kgcert/graphview/edge_sentences.py: a 365 MB pool and 307 MB of numbers) are
mapped so, and a run's hub pivots read most of them: 700 MB resident by the run's end. Each
spec's prompts read their own pivot's part, so a run hands the pages back between its
specs (`drop_read_pages`): what the next spec reads is mapped again from the page cache, a
minor fault per few pages, without a disk read while the machine's memory holds the file.
"""

from __future__ import annotations

import mmap
import weakref
from collections.abc import Iterable

import numpy as np

_mapped: weakref.WeakSet[mmap.mmap] = weakref.WeakSet()


def track(maps: Iterable[mmap.mmap | np.ndarray | bytes]) -> None:
    """Remember these maps (an mmap, or an array over one as np.load(mmap_mode="r") gives)
    for `drop_read_pages`; anything else (bytes, an array in memory) is not mapped."""
    for found in maps:
        under = _map_under(found) if isinstance(found, np.ndarray) else found
        if isinstance(under, mmap.mmap):
            _mapped.add(under)


def _map_under(array: np.ndarray) -> mmap.mmap | None:
    base: object = array
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "_mmap", None) or getattr(base, "base", None)
    return base


def drop_read_pages() -> int:
    """Hand back the read pages of every tracked map still open (they are read again from
    the page cache when asked); the number of maps."""
    dropped = 0
    for found in list(_mapped):
        if not found.closed:
            found.madvise(mmap.MADV_DONTNEED)
            dropped += 1
    return dropped
