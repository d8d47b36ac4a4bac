"""Edge tables pulled from the graph server once and cached on disk.

A sampler needs, for each pattern edge, the distinct (source, target) entity pairs the server
finds for `(:S)-[:R]->(:T)`. The server does the filtering; the pairs are kept as integer
arrays in a local file keyed by the KG's fingerprint (from its load manifest), so a second
run, or another spec using the same relation, starts without a query. A KG without a
manifest (not loaded by kgcert) is pulled fresh each time.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kgcert.loading.manifest import read_manifest
from kgcert.store.cypher import named
from kgcert.store.graph import GraphStore
from kgcert.util.atomicfile import replacing


@dataclass(frozen=True)
class PairTable:
    """Distinct (source id, target id) pairs as positions into `ids`."""

    ids: np.ndarray  # unicode strings
    sources: np.ndarray  # int64
    targets: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.sources)


PAGE_SOURCES = 20_000  # sources per page: bounds each query's rows on the server


def _source_pages(store: GraphStore, source: str, page: int) -> list[tuple[str, str]]:
    """[low, high] id ranges covering every source entity, `page` sources each.

    Ranges rely on the server ordering ids as numpy does: true for ids within the Basic
    Multilingual Plane below U+E000 (Java compares UTF-16 units, numpy code points); any
    other id puts every source in one page."""
    rows = store.rows(named("specs", "source_ids", source=source))
    ids = np.unique(np.array([str(node_id) for node_id, in rows], dtype=str))
    if not len(ids):
        return []
    if np.ascontiguousarray(ids).view(np.uint32).max() >= 0xE000:  # UCS-4 code points
        return [(str(ids[0]), str(ids[-1]))]
    return [(str(ids[start]), str(ids[min(start + page, len(ids)) - 1]))
            for start in range(0, len(ids), page)]


def _pull(store: GraphStore, source: str, rel_type: str, target: str,
          page: int = PAGE_SOURCES) -> PairTable:
    left: list[str] = []
    right: list[str] = []
    cypher = named("specs", "edge_pairs", source=source, rel=rel_type, target=target)
    for low, high in _source_pages(store, source, page):
        for source_id, target_ids in store.rows(cypher, low=low, high=high):
            left.extend([str(source_id)] * len(target_ids))
            right.extend(str(target_id) for target_id in target_ids)
    return _distinct_pairs(left, right)


def _distinct_pairs(left: list[str], right: list[str]) -> PairTable:
    """Pairs as positions into their sorted ids, each pair once, in (source, target) order,
    never the server's row order, so samples never depend on it."""
    ids, inverse = np.unique(np.array(left + right, dtype=str), return_inverse=True)
    inverse = inverse.astype(np.int64)
    # One int64 key per pair: sorted and distinct in one np.unique (ids < 3e9 fit).
    keys = np.unique(inverse[:len(left)] * len(ids) + inverse[len(left):])
    return PairTable(ids, keys // max(len(ids), 1), keys % max(len(ids), 1))


class TableCache:
    def __init__(self, store: GraphStore, cache_dir: Path | None) -> None:
        self.store = store
        manifest = read_manifest(store)
        fingerprint = manifest.fingerprint if manifest and manifest.status == "complete" else None
        self.folder = cache_dir / fingerprint[:24] if cache_dir and fingerprint else None
        self._memory: dict[tuple[str, str, str], PairTable] = {}
        self.pulled = 0  # tables fetched from the server (the rest came from disk or memory)

    def _path(self, key: tuple[str, str, str]) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256("\x00".join(key).encode()).hexdigest()[:24]
        return self.folder / f"pairs-{digest}.npz"

    def pairs(self, source: str, rel_type: str, target: str) -> PairTable:
        key = (source, rel_type, target)
        if key in self._memory:
            return self._memory[key]
        path = self._path(key)
        table: PairTable | None = None
        if path is not None and path.exists():
            try:
                with np.load(path, allow_pickle=False) as data:
                    table = PairTable(data["ids"], data["sources"], data["targets"])
            except (OSError, ValueError, KeyError):
                table = None  # a damaged cache file is rebuilt, never trusted
        if table is None:
            table = _pull(self.store, source, rel_type, target)
            self.pulled += 1
            if path is not None:
                _save(path, table)
        self._memory[key] = table
        return table

    def keep(self, source: str, rel_type: str, target: str, table: PairTable) -> bool:
        """Stores `table` as the pairs of (source, rel_type, target), made without a pull
        (kgcert load makes them from the prompt snapshot); False where there is no folder to
        store it in (a KG with no manifest)."""
        path = self._path((source, rel_type, target))
        if path is None:
            return False
        _save(path, table)
        return True


def _save(path: Path, table: PairTable) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Write then rename: a killed run leaves no half-written table behind.
    with replacing(path, "wb") as out:
        np.savez(out, ids=table.ids, sources=table.sources, targets=table.targets)
