"""The samplers' edge tables made from a KG's prompt snapshot, with no query.

A relation spec's sampler needs, per pattern edge `(:S)-[:R]->(:T)`, the distinct (source,
target) pairs (kgcert/specs/edge_tables.py), which it otherwise pulls over Bolt on its first
use: at full PrimeKG size the first `specs count` spent its minutes pulling them and the
snapshot. The snapshot already holds every edge with its ends' labels, so `kgcert load` stores
it and makes from it the table of each (S, R, T) whose S and T are the ends' own labels (not
Entity, which a pattern without a label means, nor the KG's scope label): the same arrays a
pull gives, so samples stay the same.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from kgcert.graphview.snapshot import GraphSnapshot, pull
from kgcert.specs.edge_tables import PairTable, TableCache
from kgcert.specs.schema import ENTITY
from kgcert.store.cypher import KG_LABEL_PREFIX
from kgcert.store.graph import GraphStore

TableKey = tuple[str, str, str]  # source label, relation type, target label


def _own_labels(labels: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(label for label in labels
                 if label != ENTITY and not label.startswith(KG_LABEL_PREFIX))


def snapshot_tables(snapshot: GraphSnapshot) -> Iterator[tuple[TableKey, PairTable]]:
    """Every (S, R, T) table of the snapshot's edges, S and T the ends' own labels."""
    own = [_own_labels(labels) for labels in snapshot.labels]
    if not any(own):
        return  # entities with no label but Entity: no table to make
    source_set = snapshot.label_set[snapshot.source]
    target_set = snapshot.label_set[snapshot.target]
    sets = len(snapshot.labels)
    for code, rel_type in enumerate(snapshot.types):
        of_type = np.flatnonzero(snapshot.type == code)
        pair_of_sets = source_set[of_type].astype(np.int64) * sets + target_set[of_type]
        wanted: dict[TableKey, list[np.ndarray]] = {}
        for pair in np.unique(pair_of_sets).tolist():
            edges = of_type[pair_of_sets == pair]
            for source in own[pair // sets]:
                for target in own[pair % sets]:
                    wanted.setdefault((source, rel_type, target), []).append(edges)
        for key, parts in sorted(wanted.items()):
            yield key, _table(snapshot, np.concatenate(parts))


def _table(snapshot: GraphSnapshot, edges: np.ndarray) -> PairTable:
    """The pairs of `edges` as a pull makes them (kgcert/specs/edge_tables.py's
    `_distinct_pairs`): positions into their own sorted ids, each pair once, in order."""
    source = snapshot.source[edges].astype(np.int64)
    target = snapshot.target[edges].astype(np.int64)
    used = np.unique(np.concatenate([source, target]))  # sorted: snapshot ids are
    ids = snapshot.ids[used]
    width = int(np.char.str_len(ids).max()) if len(ids) else 1
    ids = ids.astype(f"<U{width}")  # as narrow as an array made of these ids alone
    size = len(used)
    keys = np.unique(np.searchsorted(used, source) * size + np.searchsorted(used, target))
    return PairTable(ids, keys // max(size, 1), keys % max(size, 1))


def store_for_counts(store: GraphStore, cache_dir: Path) -> tuple[bool, int]:
    """The KG's prompt snapshot pulled into `cache_dir` (kept as runs keep it) and the edge
    tables made from it stored there, so the first count or run reads files instead of
    pulling them: whether a snapshot was stored, and how many tables."""
    snapshot = pull(store, cache_dir)
    if snapshot is None:  # sentences on an edge stored twice: per-entity reads
        return False, 0
    tables = TableCache(store, cache_dir)
    stored = sum(tables.keep(*key, table) for key, table in snapshot_tables(snapshot))
    return True, stored
