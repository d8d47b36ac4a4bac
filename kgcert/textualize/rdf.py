"""The RDF graph behind the Turtle and JSON-LD formats.

Entities. One IRI per entity: ``urn:kgcert:entity:`` plus the entity's short key
(``ent:e3``, see :mod:`kgcert.textualize.common`), with the name as ``rdfs:label``. Two
entities with the same name are two IRIs with equal labels.

Relations. One IRI per relation name: ``urn:kgcert:relation:`` plus the name escaped as a
Turtle local name (``rel:capital_of``), with the name as ``rdfs:label``. The escape is
reversible, so distinct relation names never share an IRI: a space becomes ``_``; ASCII
letters and digits, ``:``, ``-`` (except first) and letters of other scripts that Turtle
allows stay; everything else, ``_`` included, is percent-encoded as UTF-8
(``language_used`` -> ``language%5Fused``).

Parallel edges. RDF is a set of triples, so two edges with the same head, relation and tail
are one triple: the RDF formats write it once. Node types are not rendered (as in the other
formats).

Order. Relations are written first, in the order of their first edge; then every entity in
node order with its outgoing edges grouped by relation (relations in the order of their first
edge from that entity, objects in edge order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgcert.textualize.common import entity_keys, hidden_char
from kgcert.textualize.subgraph import Subgraph

if TYPE_CHECKING:
    import rdflib

ENTITY_NS = "urn:kgcert:entity:"
RELATION_NS = "urn:kgcert:relation:"
RDFS_NS = "http://www.w3.org/2000/01/rdf-schema#"
PREFIXES = (("rdfs", RDFS_NS), ("ent", ENTITY_NS), ("rel", RELATION_NS))

# Turtle's PN_CHARS_BASE beyond ASCII letters (Turtle 1.1 grammar, production [163s]).
_NAME_RANGES = (
    (0x00C0, 0x00D6), (0x00D8, 0x00F6), (0x00F8, 0x02FF), (0x0370, 0x037D),
    (0x037F, 0x1FFF), (0x200C, 0x200D), (0x2070, 0x218F), (0x2C00, 0x2FEF),
    (0x3001, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFFD), (0x10000, 0xEFFFF),
)  # fmt: skip


def _kept(char: str, first: bool) -> bool:
    if char.isascii():
        return char.isalnum() or char == ":" or (char == "-" and not first)
    code = ord(char)
    return char.isalnum() and any(low <= code <= high for low, high in _NAME_RANGES)


def relation_local_name(relation: str) -> str:
    """``relation`` escaped as the local part of its IRI (reversible; see the module doc)."""
    out = []
    for position, char in enumerate(relation):
        if char == " ":
            out.append("_")
        elif _kept(char, first=position == 0):
            out.append(char)
        else:
            out.append("".join(f"%{byte:02X}" for byte in char.encode("utf-8")))
    return "".join(out)


def turtle_string(text: str) -> str:
    """A one-line Turtle string literal for ``text``."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char in _TURTLE_ESCAPES:
            out.append(_TURTLE_ESCAPES[char])
        elif hidden_char(char):
            code = ord(char)
            out.append(f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


_TURTLE_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


@dataclass(frozen=True)
class Statement:
    """One subject with its label and its (relation local name, object keys) groups."""

    subject: str
    label: str
    links: tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Layout:
    """What the RDF formats write, in writing order; subjects are local names."""

    relations: tuple[Statement, ...]
    entities: tuple[Statement, ...]


def layout(subgraph: Subgraph) -> Layout:
    keys = entity_keys(subgraph)
    relation_names: dict[str, str] = {}
    links: dict[str, dict[str, dict[str, None]]] = {node.id: {} for node in subgraph.nodes}
    for edge in subgraph.edges:
        local = relation_names.setdefault(edge.relation, relation_local_name(edge.relation))
        objects = links[edge.source].setdefault(local, {})
        objects[keys[edge.target]] = None  # a dict keeps the first occurrence's position
    return Layout(
        relations=tuple(Statement(local, name, ()) for name, local in relation_names.items()),
        entities=tuple(
            Statement(
                keys[node.id],
                node.name,
                tuple((local, tuple(objects)) for local, objects in links[node.id].items()),
            )
            for node in subgraph.nodes
        ),
    )


def rdf_graph(subgraph: Subgraph) -> rdflib.Graph:
    """The subgraph's RDF graph, built term by term (what the RDF formats must parse back to)."""
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import RDFS

    keys = entity_keys(subgraph)
    graph = Graph()
    for node in subgraph.nodes:
        graph.add((URIRef(ENTITY_NS + keys[node.id]), RDFS.label, Literal(node.name)))
    for edge in subgraph.edges:
        predicate = URIRef(RELATION_NS + relation_local_name(edge.relation))
        head, tail = URIRef(ENTITY_NS + keys[edge.source]), URIRef(ENTITY_NS + keys[edge.target])
        graph.add((predicate, RDFS.label, Literal(edge.relation)))
        graph.add((head, predicate, tail))
    return graph
