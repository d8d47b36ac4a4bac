"""A small subgraph of the KG, as prompts, textualizers and tasks see it.

Entities are keyed by their KG id, never by name: two entities may share a name and must stay
distinct. Edges keep their own id so parallel edges (same head, relation and tail) survive.
Order is meaningful: textualizers render nodes and edges in the order given, so callers decide
it (sorted, or shuffled by a seeded RNG) and the rendering is reproducible.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Node:
    id: str
    name: str
    type: str = ""


@dataclass(frozen=True)
class Edge:
    id: str
    source: str
    relation: str
    target: str


@dataclass(frozen=True)
class Subgraph:
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    _index: dict[str, Node] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        index = {node.id: node for node in self.nodes}
        if len(index) != len(self.nodes):
            raise ValueError("subgraph has duplicate node ids")
        for edge in self.edges:
            if edge.source not in index or edge.target not in index:
                raise ValueError(f"edge {edge.id} names a node outside the subgraph")
        object.__setattr__(self, "_index", index)

    @classmethod
    def build(cls, nodes: Iterable[Node], edges: Iterable[Edge]) -> Subgraph:
        return cls(tuple(nodes), tuple(edges))

    def node(self, node_id: str) -> Node:
        return self._index[node_id]

    def triples(self) -> Iterator[tuple[Node, str, Node]]:
        for edge in self.edges:
            yield self._index[edge.source], edge.relation, self._index[edge.target]

    def renamed(self, names: dict[str, str]) -> Subgraph:
        """The same graph with some entities renamed (pseudonymization); ids are kept."""
        nodes = tuple(
            Node(node.id, names.get(node.id, node.name), node.type) for node in self.nodes
        )
        return Subgraph(nodes, self.edges)
