"""What the task sampler reads from the KG: core entities, neighbourhoods, ego graphs, names.

Two readers give identical answers (tests check it); they differ only in where the work is:

- `CypherView` composes every ego graph on the server: one `ego_layer` query per ring (the
  distinct neighbours of the previous ring) and one `ego_edges` query for all edges between
  the collected entities (the far end is tested with a map lookup on the server). Nothing is
  kept between instances. Right for a huge KG or a remote server shared with others.
- `CachedView` keeps the adjacency of every entity it has touched, fetched with one
  `incident_edges` query per BFS ring for the entities not seen before, and composes ego
  graphs from it. On the countries KG a radius-2 ego graph has ~3,000 entities and ~10,000
  edges; re-reading that from the server costs about a second per instance, while the cache
  is filled once (the whole countries KG is 63k edges) and then serves every instance.
  `max_cached_edges` bounds it: past the bound it is emptied at the start of the next call.

Edges are identified by a stable key, (head id, relationship type, tail id, ordinal): the
ordinal numbers exact duplicates of one (head, type, tail), in element-id order, and is 0 for
every edge of a KG whose loader collapses exact duplicates (all of kgcert's do). The key, not
the server's element id, is the edge id in instances, so an instance is the same after a
reload or on another server. Every list returned is sorted by key or id.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from kgcert.errors import InputError
from kgcert.store.graph import GraphStore

STATEMENTS = "tasks"
_CHUNK = 5_000  # ids per query parameter list
DEFAULT_CACHE_EDGES = 5_000_000


class KGEdge(NamedTuple):
    head: str
    type: str
    tail: str
    ordinal: int = 0

    @property
    def id(self) -> str:
        return edge_id(self.head, self.type, self.tail, self.ordinal)


def edge_id(head: str, rel_type: str, tail: str, ordinal: int = 0) -> str:
    """The stable id of an edge in instances: `head|type|tail|ordinal`."""
    return f"{head}|{rel_type}|{tail}|{ordinal}"


def _sort_key(head: str, rel_type: str, tail: str, ordinal: int) -> str:
    """One string ordering like the tuple (head, type, tail, ordinal): ids hold no NUL."""
    return f"{head}\x00{rel_type}\x00{tail}\x00{ordinal:09d}"


@dataclass(frozen=True)
class EgoGraph:
    """A composed ego graph: `edges` sorted by key; `heads[i]`, `tails[i]` number the ends
    of edge i in `entities` (its entity ids, sorted)."""

    edges: list[KGEdge]
    heads: np.ndarray
    tails: np.ndarray
    entities: list[str]

    @classmethod
    def of(cls, edges: Sequence[KGEdge]) -> EgoGraph:
        ordered = sorted(edges)
        entities = sorted({e.head for e in ordered} | {e.tail for e in ordered})
        number = {node_id: i for i, node_id in enumerate(entities)}
        heads = np.array([number[e.head] for e in ordered], dtype=np.int64)
        tails = np.array([number[e.tail] for e in ordered], dtype=np.int64)
        return cls(ordered, heads, tails, entities)

    def __len__(self) -> int:
        return len(self.edges)


def _chunks(items: Sequence[str], size: int = _CHUNK) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _with_ordinals(rows: Iterable[tuple[str, str, str, str]]) -> list[KGEdge]:
    """(head, type, tail, element) rows -> keyed edges, ordinals in element order."""
    edges: list[KGEdge] = []
    previous: tuple[str, str, str] | None = None
    ordinal = 0
    for head, rel_type, tail, _element in sorted(rows):
        key = (head, rel_type, tail)
        ordinal = ordinal + 1 if key == previous else 0
        previous = key
        edges.append(KGEdge(head, rel_type, tail, ordinal))
    return edges


class KGView(ABC):
    """Read access to one loaded KG for the task sampler."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._core: dict[tuple[str, int], list[str]] = {}
        self._relation_names: dict[str, str] | None = None

    def _query(self, name: str, identifiers: dict[str, str] | None = None,
               **params: Any) -> list[dict[str, Any]]:
        return self.store.named_query(STATEMENTS, name, identifiers=identifiers, **params)

    def core_entities(self, label: str, min_degree: int) -> list[str]:
        """Ids of the entities of type `label` with at least `min_degree` edges, sorted."""
        key = (label, min_degree)
        if key not in self._core:
            rows = self._query("core_entities", {"core_label": label}, min_degree=min_degree)
            self._core[key] = sorted(str(row["id"]) for row in rows)
        return self._core[key]

    def relation_name(self, rel_type: str) -> str:
        """The relation's display name (its KgcertRelation record), else the type itself."""
        if self._relation_names is None:
            names: dict[str, str] = {}
            for row in self._query("relation_names"):
                if row.get("name") and row["type"] not in names:
                    names[str(row["type"])] = str(row["name"])
            self._relation_names = names
        return self._relation_names.get(rel_type, rel_type)

    def _fetch_entity_info(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        info: dict[str, tuple[str, str]] = {}
        for chunk in _chunks(sorted(set(ids))):
            for row in self._query("entity_names", ids=list(chunk)):
                node_id = str(row["id"])
                info[node_id] = (str(row.get("name") or node_id), str(row.get("type") or ""))
        missing = sorted(set(ids) - set(info))
        if missing:
            raise InputError(f"entities {', '.join(missing[:5])} are not in the KG")
        return info

    @abstractmethod
    def entity_info(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """id -> (name, type) for every id given."""

    @abstractmethod
    def neighbours(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """id -> sorted distinct neighbours (either direction) for every id given."""

    @abstractmethod
    def ego_edges(self, centres: Sequence[str], radius: int) -> EgoGraph:
        """Every edge whose two ends lie within `radius` undirected hops of some centre."""


class CypherView(KGView):
    """Ego graphs composed on the server, nothing kept between calls."""

    def entity_info(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        return self._fetch_entity_info(ids)

    def neighbours(self, ids: Sequence[str]) -> dict[str, list[str]]:
        result: dict[str, list[str]] = {node_id: [] for node_id in ids}
        for chunk in _chunks(sorted(set(ids))):
            for row in self._query("neighbours", ids=list(chunk)):
                result[str(row["id"])] = sorted({str(n) for n in row["neighbours"]})
        return result

    def ego_edges(self, centres: Sequence[str], radius: int) -> EgoGraph:
        inside = set(centres)
        ring = sorted(inside)
        for _ in range(radius):
            if not ring:
                break
            found: set[str] = set()
            for chunk in _chunks(ring):
                found.update(str(row["id"]) for row in self._query("ego_layer", ids=list(chunk)))
            ring = sorted(found - inside)
            inside.update(ring)
        members = sorted(inside)
        flags = dict.fromkeys(members, True)
        rows: list[tuple[str, str, str, str]] = []
        for chunk in _chunks(members):
            for row in self._query("ego_edges", ids=list(chunk), inside=flags):
                rows.append((str(row["head"]), str(row["type"]), str(row["tail"]),
                             str(row["element"])))
        return EgoGraph.of(_with_ordinals(rows))


class CachedView(KGView):
    """Ego graphs composed from an adjacency cache filled ring by ring from the server."""

    def __init__(self, store: GraphStore, max_cached_edges: int = DEFAULT_CACHE_EDGES) -> None:
        super().__init__(store)
        self.max_cached_edges = max_cached_edges
        self.fetch_queries = 0  # incident_edges queries run (for benchmarks and tests)
        self._clear()

    def _clear(self) -> None:
        self._index: dict[str, int] = {}
        self._ids: list[str] = []
        self._adjacent: list[list[int]] = []  # node -> incident edge numbers
        self._complete: list[bool] = []  # node -> all incident edges known
        self._edges: list[KGEdge] = []
        self._keys: list[str] = []  # edge -> _sort_key
        self._heads = array("q")  # edge -> head node number
        self._tails = array("q")
        self._elements: set[str] = set()
        self._ordinals: dict[tuple[str, str, str], int] = {}
        self._info: dict[str, tuple[str, str]] = {}

    @property
    def cached_edges(self) -> int:
        return len(self._edges)

    def _start_call(self) -> None:
        if len(self._edges) > self.max_cached_edges:
            self._clear()

    def _node(self, node_id: str) -> int:
        number = self._index.get(node_id)
        if number is None:
            number = len(self._ids)
            self._index[node_id] = number
            self._ids.append(node_id)
            self._adjacent.append([])
            self._complete.append(False)
        return number

    def _ensure(self, numbers: Iterable[int]) -> None:
        missing = sorted(self._ids[n] for n in set(numbers) if not self._complete[n])
        if not missing:
            return
        for chunk in _chunks(missing):
            self.fetch_queries += 1
            rows = self._query("incident_edges", ids=list(chunk))
            fresh: dict[str, tuple[str, str, str, str]] = {}
            for row in rows:
                node_id = str(row["id"])
                for outgoing, rel_type, other, element in row["edges"]:
                    if element not in self._elements:
                        ends = (node_id, str(other)) if outgoing else (str(other), node_id)
                        fresh[element] = (ends[0], str(rel_type), ends[1], str(element))
            for head, rel_type, tail, element in sorted(fresh.values()):
                key = (head, rel_type, tail)
                ordinal = self._ordinals.get(key, 0)
                self._ordinals[key] = ordinal + 1
                self._elements.add(element)
                number = len(self._edges)
                self._edges.append(KGEdge(head, rel_type, tail, ordinal))
                self._keys.append(_sort_key(head, rel_type, tail, ordinal))
                h, t = self._node(head), self._node(tail)
                self._heads.append(h)
                self._tails.append(t)
                self._adjacent[h].append(number)
                if t != h:
                    self._adjacent[t].append(number)
            for node_id in chunk:
                self._complete[self._node(node_id)] = True

    def _other_ends(self, number: int) -> Iterable[int]:
        heads, tails = self._heads, self._tails
        for edge in self._adjacent[number]:
            head = heads[edge]
            yield tails[edge] if head == number else head

    def entity_info(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        missing = [node_id for node_id in set(ids) if node_id not in self._info]
        if missing:
            self._info.update(self._fetch_entity_info(missing))
        return {node_id: self._info[node_id] for node_id in ids}

    def neighbours(self, ids: Sequence[str]) -> dict[str, list[str]]:
        self._start_call()
        numbers = [self._node(node_id) for node_id in ids]
        self._ensure(numbers)
        return {self._ids[n]: sorted({self._ids[m] for m in self._other_ends(n)})
                for n in numbers}

    def ego_edges(self, centres: Sequence[str], radius: int) -> EgoGraph:
        self._start_call()
        inside = {self._node(node_id) for node_id in centres}
        ring = set(inside)
        for _ in range(radius):
            self._ensure(ring)
            found: set[int] = set()
            for number in ring:
                found.update(self._other_ends(number))
            ring = found - inside
            inside |= ring
            if not ring:
                break
        self._ensure(ring)  # edges between two entities of the outermost ring
        member = np.zeros(len(self._ids), dtype=bool)
        member[list(inside)] = True
        # views on the growing arrays, dropped before they grow again
        all_heads = np.frombuffer(self._heads, dtype=np.int64)
        all_tails = np.frombuffer(self._tails, dtype=np.int64)
        chosen = np.flatnonzero(member[all_heads] & member[all_tails])
        order = np.array(sorted(chosen.tolist(), key=self._keys.__getitem__), dtype=np.int64)
        heads, tails = all_heads[order], all_tails[order]  # copies
        del all_heads, all_tails
        # renumber the entities by sorted id, whatever order the cache met them in
        present, inverse = np.unique(np.concatenate([heads, tails]), return_inverse=True)
        ids = [self._ids[n] for n in present.tolist()]
        by_id = sorted(range(len(ids)), key=ids.__getitem__)
        rank = np.empty(len(ids), dtype=np.int64)
        rank[by_id] = np.arange(len(ids))
        local = rank[inverse.reshape(-1)]
        edges = [self._edges[i] for i in order.tolist()]
        return EgoGraph(edges, local[:len(order)], local[len(order):], [ids[i] for i in by_id])


def make_view(store: GraphStore, cache_edges: int | None = DEFAULT_CACHE_EDGES) -> KGView:
    """A cached reader (the default), or the server-only one when `cache_edges` is 0/None."""
    if cache_edges:
        return CachedView(store, cache_edges)
    return CypherView(store)
