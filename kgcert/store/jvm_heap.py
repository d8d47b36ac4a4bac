"""The embedded server's Java heap: KGCERT_JVM_HEAP when set, else sized from what it must hold.

A load knows its KG's size before the server starts, so the heap is sized from that: a floor
for the server itself, plus room per node and per edge of one edge batch (the batch's close
holds the incoming lists of at most EDGE_BATCH_EDGES edges, see store/arcade_bulk.py). The
machine bounds it: a quarter of the memory this process may use (the machine's, or its
cgroup's limit where lower), between 1 GiB and 4 GiB. Without a KG (queries, runs, the warm
server) the heap is that bound. Sizing from the KG keeps the server's resident memory
proportional to the KG: the JVM fills whatever heap it is given (its page cache alone takes
a quarter of it), see the figures below. The choice is said in words (`describe`) so a load
can print it before it starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

HEAP_ENV = "KGCERT_JVM_HEAP"
GIB = 1 << 30
MIB = 1 << 20
MIN_HEAP_GIB, MAX_HEAP_GIB = 1, 4
SHARE = 4  # a quarter of the memory
CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"),
                 Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
# Why the heap is sized this tightly: the JVM's resident memory is the heap it is given, not
# what is live. On the synthetic Wikidata5m at scale 0.1 (benchmarks/bench_load_memory.py, G1,
# the default collector) the committed heap reached the cap on every load (887m of 896m,
# 1001m of 1g) while a full collection left at most 330 MB (ArcadeDB's page cache, a quarter
# of the heap, included); at scale 0.02 it stopped near 500m of 768m. Collector flags meant to
# make the committed heap follow the live set were measured and left out: G1 with
# MinHeapFreeRatio=10/MaxHeapFreeRatio=30 committed 808m of 896m for about 10% more CPU time,
# SerialGC (growing the old generation only when full) committed 851m and, with a fixed young
# generation, thrashed; capping the page cache at 64 MB saved under 60 MB. So the cap is what
# bounds resident memory, and it is set from what a load was measured to need.
#
# Two measured ends fix the coefficients. At scale 0.1 (299k nodes and 613k edges with
# unsupported edges dropped, 355k and 1.32M with them templated, all in one edge batch) loads
# ran in 640m in both settings, their live heap after each full collection at most 304 MB,
# with CPU time within the busy machine's noise of the 896m/1g heaps they had before. At full
# size (3.0M-3.6M nodes, edge batches of EDGE_BATCH_EDGES = 4M edges) the heap must not fall
# below the 2560m/2688m it was given before (about 1.1 GB live before an edge batch's close,
# at most 2.2 GB during it, by the earlier measurements): these give 2560m and 2816m. A linear
# size cannot give both ends with most of it per edge (the two settings differ by 0.56M nodes
# at full size but by 0.7M batched edges at 0.1), so most of it is per node: what grows past
# a batch's edges is the nodes (their records, the page cache holding them, the vertex side
# of each close). The floor covers the server and the part in flight; KG_HEAP_MIN is the
# 640m that scale 0.1 ran in, for every smaller KG (tests, samples).
KG_FLOOR = 128 * MIB  # the server itself and one part in flight
BYTES_PER_NODE = 576
BYTES_PER_BATCHED_EDGE = 192  # an edge of the open batch, with its incoming-list entry
KG_HEAP_STEP = 64 * MIB  # sizes are rounded up to this
KG_HEAP_MIN = 640 * MIB


@dataclass(frozen=True)
class KGSize:
    """What the server must hold for one load."""

    nodes: int
    edges: int


@dataclass(frozen=True)
class HeapChoice:
    size: str  # as the JVM's -Xmx takes it: "4g", "768m"
    memory_bytes: int | None  # what it was bounded by; None when given by HEAP_ENV, 0 unknown
    kg: KGSize | None = None  # the KG it was sized for, if any

    def describe(self) -> str:
        if self.memory_bytes is None:
            return f"Java heap {self.size} (set by {HEAP_ENV})"
        if not self.memory_bytes:
            return f"Java heap {self.size} (this machine's memory is unknown; {HEAP_ENV} sets it)"
        bound = (f"a quarter of {self.memory_bytes / GIB:.1f} GiB memory, "
                 f"kept between {MIN_HEAP_GIB}g and {MAX_HEAP_GIB}g")
        if self.kg is None:
            return f"Java heap {self.size} ({bound}; {HEAP_ENV} overrides)"
        # a small KG's heap is below the machine's bound, so say it is a ceiling, not a range
        ceiling = min(MAX_HEAP_GIB, max(MIN_HEAP_GIB, self.memory_bytes // SHARE // GIB))
        return (f"Java heap {self.size}, sized for {self.kg.nodes:,} nodes and "
                f"{self.kg.edges:,} edges (never above {ceiling}g: {bound}; {HEAP_ENV} "
                "overrides)")


_planned: KGSize | None = None


def plan_for_kg(kg: KGSize | None) -> None:
    """The KG this process's server is about to load: the heap is sized for it when the JVM
    starts (a JVM cannot change its maximum heap later)."""
    global _planned
    _planned = kg


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


def kg_heap_bytes(kg: KGSize, batch_edges: int) -> int:
    """The heap a load of `kg` needs, its edges written in batches of `batch_edges`."""
    need = (KG_FLOOR + BYTES_PER_NODE * kg.nodes
            + BYTES_PER_BATCHED_EDGE * min(kg.edges, batch_edges))
    steps = -(-need // KG_HEAP_STEP)
    return max(KG_HEAP_MIN, steps * KG_HEAP_STEP)


def _as_size(size: int) -> str:
    return f"{size // GIB}g" if size % GIB == 0 else f"{size // MIB}m"


def choose_heap(environ: dict[str, str] | None = None, memory: int | None = None,
                kg: KGSize | None = None) -> HeapChoice:
    given = (os.environ if environ is None else environ).get(HEAP_ENV, "").strip()
    if given:
        return HeapChoice(given, None)
    kg = kg if kg is not None else _planned
    found = memory if memory is not None else memory_bytes()
    if not found:
        return HeapChoice(f"{MAX_HEAP_GIB}g", 0)
    bound = min(MAX_HEAP_GIB, max(MIN_HEAP_GIB, found // SHARE // GIB)) * GIB
    if kg is None:
        return HeapChoice(_as_size(bound), found)
    from kgcert.store.arcade_bulk import EDGE_BATCH_EDGES

    return HeapChoice(_as_size(min(bound, kg_heap_bytes(kg, EDGE_BATCH_EDGES))), found, kg)
