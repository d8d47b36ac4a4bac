"""Giving the embedded server's memory back once a command has read what it reads in bulk.

A `kgcert run` asks the server for most of what it reads while its jobs are built (the
snapshot when it is not cached yet, the samplers' pivot walks and edge tables); building the
prompts afterwards reads the arrays in this process. The JVM keeps the heap those reads
grew for the rest of the command: at full Wikidata5m size (50 pivot specs) 2.0 GB committed
of a 4 GB heap, 1.4 GB of it last used, while the prompts read nothing more from the server.
ArcadeDB's page cache is the part still live (760 MB there), held for reads that do not
come; emptying it and running one full collection leaves some 15 MB live, and the
collector (G1, the JVM's default here) gives the committed heap beyond its free share
(MaxHeapFreeRatio, 70% by default) back to the system: 54 MB committed there, in 0.3
CPU-s. Later reads still work, from the disk's pages instead of the cache.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class HeapGivenBack:
    """The JVM's committed heap and ArcadeDB's page cache (bytes), before and after."""

    committed_before: int
    committed_after: int
    page_cache_before: int
    page_cache_after: int


def give_back_heap() -> HeapGivenBack | None:
    """Empty ArcadeDB's page cache and collect, so the JVM returns what it no longer uses;
    None when no JVM runs in this process."""
    if "jpype" not in sys.modules:
        return None
    import jpype

    if not jpype.isJVMStarted():
        return None
    pages = jpype.JClass("com.arcadedb.engine.PageManager").INSTANCE
    runtime = jpype.JClass("java.lang.Runtime").getRuntime()
    committed, cached = int(runtime.totalMemory()), int(pages.getReadCacheRAM())
    pages.reclaimReadCacheRAM(cached)  # pages written but not yet flushed are not in it
    jpype.JClass("java.lang.System").gc()  # a full collection: G1 shrinks the heap after it
    return HeapGivenBack(committed, int(runtime.totalMemory()), cached,
                         int(pages.getReadCacheRAM()))
