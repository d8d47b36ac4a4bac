"""Bulk writers for `kgcert load`: UNWIND batches over Bolt, or the embedded server's own API."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from kgcert.store.cypher import named, statement
from kgcert.store.graph import GraphStore

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
        query = named("load", "create_edges", rel_type=rel_type)
        for start in range(0, len(sources), self.batch_size):
            stop = min(start + self.batch_size, len(sources))
            rows = [
                {"s": sources[i], "t": targets[i], "p": properties[i] if properties else {}}
                for i in range(start, stop)
            ]
            self.store.execute(query, rows=rows)
            if progress:
                progress(stop - start)
