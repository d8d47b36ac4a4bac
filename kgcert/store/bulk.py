"""Bulk writers for `kgcert load`: UNWIND batches over Bolt, or the embedded server's own API."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kgcert.store.cypher import KG_SCOPE, escape_identifier, named, statement
from kgcert.store.graph import GraphStore
from kgcert.store.kg_data import EdgePart

Progress = Callable[[int], None]

SCHEMA_STATEMENTS = ("entity_id_unique", "entity_name_index", "relation_type_index")
# A shared database: the server makes each KG's own id index (ids repeat across KGs).
SHARED_SCHEMA_STATEMENTS = ("entity_name_index", "relation_type_index")


class BulkWriter(ABC):
    """Writes nodes (all first), then edges, into a fresh KG database."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store

    def prepare(self, labels: Sequence[str], rel_types: Sequence[str]) -> None:
        """Declare types where the server wants them, then the shared constraints and indexes."""
        for name in SHARED_SCHEMA_STATEMENTS if self.store.shared else SCHEMA_STATEMENTS:
            self.store.execute(statement("schema", name))

    @abstractmethod
    def write_nodes(self, label: str, rows: Sequence[dict[str, Any]],
                    progress: Progress | None = None) -> None: ...

    @abstractmethod
    def write_edges(
        self,
        rel_type: str,
        sources: Sequence[str],
        targets: Sequence[str],
        properties: Sequence[dict[str, Any]] | None,
        progress: Progress | None = None,
    ) -> None: ...

    def nodes_written(self) -> None:  # noqa: B027 - optional hook
        """Every node is written and no edge yet: the moment to settle what the edge
        statements will be planned on."""

    def write_node_parts(self, label: str, parts: Iterable[Sequence[dict[str, Any]]],
                         progress: Progress | None = None) -> None:
        """Nodes of one label handed over in parts (made one at a time by the table)."""
        for part in parts:
            self.write_nodes(label, part, progress)

    def write_edge_part(self, rel_type: str, part: EdgePart,
                        progress: Progress | None = None) -> None:
        self.write_edges(rel_type, part.sources, part.targets, part.properties, progress)

    def finish(self) -> None:  # noqa: B027 - optional hook, most writers flush as they go
        """Flush whatever is buffered."""


class BoltBulkWriter(BulkWriter):
    """Batched UNWIND over Bolt: works on any server, used for Neo4j."""

    def __init__(self, store: GraphStore, batch_size: int = 20_000) -> None:
        super().__init__(store)
        self.batch_size = batch_size

    def write_nodes(self, label: str, rows: Sequence[dict[str, Any]],
                    progress: Progress | None = None) -> None:
        query = named("load", "create_nodes", label=label)
        for start in range(0, len(rows), self.batch_size):
            part = list(rows[start : start + self.batch_size])
            self.store.execute(query, rows=part)
            if progress:
                progress(len(part))

    def write_edges(
        self,
        rel_type: str,
        sources: Sequence[str],
        targets: Sequence[str],
        properties: Sequence[dict[str, Any]] | None,
        progress: Progress | None = None,
    ) -> None:
        for start in range(0, len(sources), self.batch_size):
            stop = min(start + self.batch_size, len(sources))
            part = properties[start:stop] if properties else ()
            keys = sorted({key for found in part for key in found})
            ends = zip(sources[start:stop], targets[start:stop], strict=True)
            rows = ([{"s": s, "t": t, "p": p} for (s, t), p in zip(ends, part, strict=True)]
                    if keys else [{"s": s, "t": t} for s, t in ends])
            self.store.execute(edge_statement(rel_type, keys, by_kg_index=self.store.shared),
                               rows=rows)
            if progress:
                progress(stop - start)


def edge_statement(rel_type: str, keys: Sequence[str], by_kg_index: bool = False) -> str:
    """`create_edges` for rows {s, t, p}, setting the keys of p one by one. `SET e = row.p`
    made Neo4j plan an Eager before the CREATE (a map may write a key that the MATCHes
    read), which holds every row of a batch first (benchmarks/bench_load.py times it).
    `by_kg_index`: a KG sharing its database finds both ends through its own id index,
    named in a hint (`create_edges_by_kg_index`)."""
    name = "create_edges_by_kg_index" if by_kg_index else "create_edges"
    query = named("load", name, rel_type=rel_type)
    if not keys:
        return query
    if any(KG_SCOPE in key for key in keys):  # the store would fill its KG label in there
        return query + "\nSET e = row.p"
    named_keys = [escape_identifier(key) for key in keys]
    return query + "\nSET " + ", ".join(f"e.{key} = row.p.{key}" for key in named_keys)
