"""Typed records a loader hands to the store: nodes and edges in columnar tables."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

NODE_PART = 50_000  # nodes per part handed to a writer
EDGE_PART = 200_000  # edges per part


@dataclass(frozen=True)
class RelationInfo:
    """One directed relation as the prompts name it, with the template of its sentence.

    `name` states the target type where the KG has types (PrimeKG: "indication (disease)").
    `template` uses {source} and {target}; it is empty when edges carry their own sentences.
    `original` is the relation as the source files name it (`type` is that name made a safe,
    distinct identifier).
    """

    type: str
    source_type: str
    target_type: str
    display: str
    name: str
    aliases: tuple[str, ...] = ()
    template: str = ""
    original: str = ""

    def as_row(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "source_type": self.source_type,
            "target_type": self.target_type,
            "display": self.display,
            "name": self.name,
            "aliases": list(self.aliases or (self.name,)),
            "template": self.template,
            "original": self.original or self.type,
        }

    def sentence(self, source_name: str, target_name: str) -> str:
        return self.template.format(source=source_name, target=target_name)


@dataclass
class NodeTable:
    """Nodes of one type. Each row has at least `id` (str) and `name`."""

    label: str
    rows: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rows)

    def parts(self, size: int = NODE_PART) -> Iterator[list[dict[str, Any]]]:
        """The rows in parts of at most `size`, in order (a columnar table makes each part
        only when it is asked for, so a writer holds one part at a time)."""
        for start in range(0, len(self.rows), size):
            yield self.rows[start:start + size]


@dataclass
class EdgePart:
    """Some edges of one type: source and target ids, and where the table knows them, the
    endpoints' positions among all nodes in the order they are written (a writer that
    remembers its nodes by position needs no id lookup)."""

    sources: list[str]
    targets: list[str]
    properties: list[dict[str, Any]] | None
    source_positions: np.ndarray | None = None
    target_positions: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.sources) if self.source_positions is None else \
            len(self.source_positions)


@dataclass
class EdgeTable:
    """Edges of one relationship type, as parallel columns (fast to build and to ship)."""

    rel_type: str
    sources: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    properties: list[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return len(self.sources)

    def parts(self, size: int = EDGE_PART) -> Iterator[EdgePart]:
        for start in range(0, len(self.sources), size):
            stop = start + size
            yield EdgePart(self.sources[start:stop], self.targets[start:stop],
                           None if self.properties is None else self.properties[start:stop])


@dataclass
class Problems:
    """Malformed input seen while reading, kept as a count plus the first few line numbers."""

    count: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, where: str) -> None:
        self.count += 1
        if len(self.examples) < 5:
            self.examples.append(where)

    def summary(self) -> str:
        more = ", ..." if self.count > len(self.examples) else ""
        return f"{self.count} malformed rows (first at {', '.join(self.examples)}{more})"


@dataclass
class KGData:
    """Everything a loader read, ready for the store."""

    nodes: dict[str, NodeTable] = field(default_factory=dict)  # or tables that act like one
    edges: dict[str, EdgeTable] = field(default_factory=dict)
    relations: list[RelationInfo] = field(default_factory=list)
    problems: Problems = field(default_factory=Problems)
    notes: list[str] = field(default_factory=list)

    @property
    def node_count(self) -> int:
        return sum(len(t) for t in self.nodes.values())

    @property
    def edge_count(self) -> int:
        return sum(len(t) for t in self.edges.values())

    def node_table(self, label: str) -> NodeTable:
        return self.nodes.setdefault(label, NodeTable(label))

    def edge_table(self, rel_type: str, with_properties: bool = False) -> EdgeTable:
        table = self.edges.get(rel_type)
        if table is None:
            table = EdgeTable(rel_type, properties=[] if with_properties else None)
            self.edges[rel_type] = table
        return table

    def release_node_rows(self) -> None:
        """Once the nodes are written, tables that can let go of what only their rows read
        (a columnar table's texts) do so; counts stay. Only for a KG written once."""
        for table in self.nodes.values():
            release = getattr(table, "release", None)
            if release is not None:
                release()

    def counts(self) -> dict[str, Any]:
        return {
            "nodes": self.node_count,
            "edges": self.edge_count,
            "labels": {label: len(t) for label, t in sorted(self.nodes.items())},
            "relationship_types": {rel: len(t) for rel, t in sorted(self.edges.items())},
        }
