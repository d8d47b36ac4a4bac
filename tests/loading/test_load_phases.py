"""The writer hears when every node is written and before the first edge: where Neo4j
settles the KG's id index that the edge statements then look ends up in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kgcert.loaders import get_loader
from kgcert.loading.pipeline import read_source, write_kg
from kgcert.store.bulk import BulkWriter, Progress
from kgcert.store.kg_data import EdgePart


class _NotingWriter(BulkWriter):
    """The server's own writer, noting the order of the pipeline's calls."""

    def __init__(self, inner: BulkWriter) -> None:
        super().__init__(inner.store)
        self.inner = inner
        self.calls: list[str] = []

    def prepare(self, labels: Sequence[str], rel_types: Sequence[str]) -> None:
        self.inner.prepare(labels, rel_types)

    def write_nodes(self, label: str, rows: Sequence[dict[str, Any]],
                    progress: Progress | None = None) -> None:
        self.calls.append("nodes")
        self.inner.write_nodes(label, rows, progress)

    def write_node_parts(self, label: str, parts: Iterable[Sequence[dict[str, Any]]],
                         progress: Progress | None = None) -> None:
        self.calls.append("nodes")
        self.inner.write_node_parts(label, parts, progress)

    def nodes_written(self) -> None:
        self.calls.append("nodes written")
        self.inner.nodes_written()

    def write_edges(self, rel_type: str, sources: Sequence[str], targets: Sequence[str],
                    properties: Sequence[dict[str, Any]] | None,
                    progress: Progress | None = None) -> None:
        self.calls.append("edges")
        self.inner.write_edges(rel_type, sources, targets, properties, progress)

    def write_edge_part(self, rel_type: str, part: EdgePart,
                        progress: Progress | None = None) -> None:
        self.calls.append("edges")
        self.inner.write_edge_part(rel_type, part, progress)

    def finish(self) -> None:
        self.inner.finish()


def test_nodes_written_comes_once_between_the_last_node_and_the_first_edge(
        embedded_server, shared_data) -> None:
    source = read_source(get_loader("primekg"),
                         [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "phases")
    writers: list[_NotingWriter] = []

    def noting(store: Any) -> BulkWriter:
        writers.append(_NotingWriter(embedded_server.bulk_writer(store)))
        return writers[0]

    try:
        write_kg(embedded_server, "phases", source.data, source.manifest,
                 writer_factory=noting)
    finally:
        embedded_server.drop("phases")
    calls = writers[0].calls
    assert calls.count("nodes written") == 1
    settled = calls.index("nodes written")
    assert set(calls[:settled]) == {"nodes"} and set(calls[settled + 1:]) == {"edges"}
