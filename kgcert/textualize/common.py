"""What every textualization shares: entity keys, the names shown for entities, escaping.

Entity keys. Each entity gets a short key, ``e1``, ``e2``, ... in the order of
``subgraph.nodes``. The RDF formats use it as the entity's IRI (``ent:e3``); the other formats
show it only where it is needed to tell entities apart. Keys are per rendering, never the KG
id, so a textualized prompt does not reveal the KG's identifiers (a Wikidata Q-id would undo
pseudonymization) and costs a few tokens per entity.

Shown names. The edge list, JSON and YAML formats write entities by name. An entity whose
name is unique in the subgraph is written as its bare name; entities that share a name are
written ``name [key]``, e.g. ``Paris [e1]`` and ``Paris [e4]``, so they never merge. The shown
names are pairwise distinct (see :func:`shown_names`), so parsing a rendering back by shown
name recovers the edges by entity id.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Iterable
from typing import Any

from kgcert.errors import InputError
from kgcert.textualize.subgraph import Subgraph

Triple = tuple[str, str, str]
"""(head, relation, tail): by shown name after parsing, by entity id after :func:`to_ids`."""


def entity_keys(subgraph: Subgraph) -> dict[str, str]:
    """Entity id -> short key (``e1``, ``e2``, ... in node order)."""
    return {node.id: f"e{position}" for position, node in enumerate(subgraph.nodes, start=1)}


def shown_names(subgraph: Subgraph) -> dict[str, str]:
    """Entity id -> the pairwise distinct name the edge list, JSON and YAML formats show.

    Names shared by several entities get the entity key as a suffix. A name that already
    looks like a marked one (a real entity called ``Paris [e1]``) could still clash with a
    marked name; such entities are marked as well, until nothing clashes. Marked names never
    clash with one another: keys contain neither spaces nor brackets, so the text after the
    last ``" ["`` identifies the key, and keys are distinct.
    """
    keys = entity_keys(subgraph)
    counts = Counter(node.name for node in subgraph.nodes)
    marked = {node.id for node in subgraph.nodes if counts[node.name] > 1}
    while True:
        shown = {
            node.id: f"{node.name} [{keys[node.id]}]" if node.id in marked else node.name
            for node in subgraph.nodes
        }
        counts = Counter(shown.values())
        clashing = {node_id for node_id, name in shown.items() if counts[name] > 1} - marked
        if not clashing:
            return shown
        marked |= clashing


def shown_edges(subgraph: Subgraph) -> list[Triple]:
    """The subgraph's edges as (shown head, relation, shown tail), in edge order."""
    shown = shown_names(subgraph)
    return [(shown[edge.source], edge.relation, shown[edge.target]) for edge in subgraph.edges]


def to_ids(triples: Iterable[Triple], subgraph: Subgraph) -> list[Triple]:
    """Map parsed (shown head, relation, shown tail) triples back to entity ids."""
    by_shown = {name: node_id for node_id, name in shown_names(subgraph).items()}
    out: list[Triple] = []
    for head, relation, tail in triples:
        for name in (head, tail):
            if name not in by_shown:
                raise InputError(f"parsed entity {name!r} is not in the subgraph")
        out.append((by_shown[head], relation, by_shown[tail]))
    return out


def grouped_edges(subgraph: Subgraph) -> dict[str, dict[str, list[str]]]:
    """Head id -> relation -> tail ids, for the formats that group edges by their head.

    Heads follow node order; a head's relations follow the order of their first edge; tails
    follow edge order. Parallel edges repeat the tail. Only heads with outgoing edges appear.
    """
    heads: dict[str, dict[str, list[str]]] = {node.id: {} for node in subgraph.nodes}
    for edge in subgraph.edges:
        heads[edge.source].setdefault(edge.relation, []).append(edge.target)
    return {head: relations for head, relations in heads.items() if relations}


def _escaped(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a JSON escape of an astral character is a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def hidden_char(char: str) -> bool:
    """True for characters that should not appear raw in a prompt: controls, line breaks.

    Control characters (category Cc, which includes tab, newline and NEL) and the Unicode
    line and paragraph separators would break the one-item-per-line layouts or be invisible.
    Format characters such as the zero-width non-joiner stay raw: some scripts need them.
    """
    return unicodedata.category(char) in ("Cc", "Zl", "Zp")


def json_string(text: str) -> str:
    """A JSON string literal for ``text``: non-ASCII raw, hidden characters escaped."""
    quoted = json.dumps(text, ensure_ascii=False)
    if not any(hidden_char(char) for char in quoted):
        return quoted
    return "".join(_escaped(char) if hidden_char(char) else char for char in quoted)


def structure(subgraph: Subgraph) -> dict[str, dict[str, list[str]]]:
    """Shown head -> relation -> shown tails: what the JSON and YAML formats write."""
    shown = shown_names(subgraph)
    grouped = grouped_edges(subgraph)
    linked = {edge.source for edge in subgraph.edges} | {edge.target for edge in subgraph.edges}
    out: dict[str, dict[str, list[str]]] = {}
    for node in subgraph.nodes:
        if node.id in grouped:
            out[shown[node.id]] = {
                relation: [shown[tail] for tail in tails]
                for relation, tails in grouped[node.id].items()
            }
        elif node.id not in linked:
            out[shown[node.id]] = {}
    return out


class Pairs(list[tuple[Any, Any]]):
    """A parsed mapping as its (key, value) pairs, told apart from a parsed list."""


def triples_from(data: Any, fmt: str) -> list[Triple]:
    """Edges from a parsed structure whose mappings are :class:`Pairs` (duplicates kept)."""
    if not isinstance(data, Pairs):
        raise InputError(f"{fmt} knowledge graph must be a mapping of entities")
    out: list[Triple] = []
    for head, relations in data:
        if not isinstance(head, str) or not isinstance(relations, Pairs):
            raise InputError(f"{fmt} entry {head!r} must map a name to its relations")
        for relation, tails in relations:
            if not isinstance(relation, str) or type(tails) is not list:
                raise InputError(f"{fmt} entry {head!r}: {relation!r} must list its objects")
            for tail in tails:
                if not isinstance(tail, str):
                    raise InputError(f"{fmt} entry {head!r}: object {tail!r} is not a name")
                out.append((head, relation, tail))
    return out
