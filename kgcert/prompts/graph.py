"""What the prompt builder reads from the KG: relations, entities and their edges, cached.

The reads are the named statements of cypher/prompts.cypher, batched over id lists: one
`entities` query, one `out_edges` and one `in_edges` query for all the entities of a prompt
that are not cached yet. What a prompt needs beyond that (its DAG edges, Definition 2.3
distractors, related entities, filler sentences) is picked from these edge lists in Python,
because the embedded server answers each round trip in milliseconds and a prompt needs
several of them, while the same entities (the hubs of a spec) recur from prompt to prompt.

With a snapshot (kgcert/prompts/snapshot.py: the whole KG's edges and names, read once per
run and cached on disk), the edge lists, names and aliases come from its arrays instead (edge
lists as array rows, kgcert/prompts/rows.py), and answer sets from kgcert/prompts/answers.py:
the same facts, so the same prompts, without a round trip per prompt.

Every list is sorted by ids when it arrives, so what a prompt sees does not depend on the
server's row order, on the cache, or on which prompts came before. `max_cached_edges` bounds
the cache: when it is exceeded, the cache is emptied before the next prompt's reads. Read
edges are Fact objects, a snapshot's are views of its arrays: the two bounds differ.
"""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgcert.errors import InputError
from kgcert.prompts.fact import Adjacency, Fact
from kgcert.prompts.lengths import SentenceLengths
from kgcert.prompts.rows import RowAdjacency, RowIndex
from kgcert.prompts.snapshot import GraphSnapshot
from kgcert.store.cypher import is_kgcert_label, named
from kgcert.store.graph import GraphStore

STATEMENTS = "prompts"
ENTITY = "Entity"
DEFAULT_CACHE_EDGES = 2_000_000  # read edges: Fact objects, a few hundred bytes each
# A snapshot entity's edges are a view of its arrays until asked more (some 16 bytes an edge
# over a full-size PrimeKG run): this bound holds all of PrimeKG's (16.2M, both ends), since
# emptying the cache every hundred hub prompts cost gene_target/distractor a fifth.
SNAPSHOT_CACHE_EDGES = 24_000_000
_CHUNK = 2_000
GENERIC_TEMPLATE = "{source} is related to {target} ({relation})."


@dataclass(frozen=True)
class EntityInfo:
    id: str
    name: str
    label: str  # the entity's type label (not "Entity")
    aliases: tuple[str, ...] | None = None  # None: not read yet


@dataclass(frozen=True)
class Relation:
    type: str
    source_type: str
    target_type: str
    display: str
    name: str
    aliases: tuple[str, ...]
    template: str


def _label(labels: Sequence[str] | None) -> str:
    names = sorted(label for label in (labels or ())
                   if label != ENTITY and not is_kgcert_label(label))
    return names[0] if names else ENTITY


def _chunks(items: Sequence[str], size: int = _CHUNK) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


class PromptGraph:
    """Cached, batched reads of one KG for prompts. Share one between builders of one KG."""

    def __init__(self, store: GraphStore, max_cached_edges: int | None = None,
                 snapshot: GraphSnapshot | None = None) -> None:
        self.store = store
        self.snapshot = snapshot  # the whole KG in arrays: edges and names without reads
        self.max_cached_edges = (max_cached_edges if max_cached_edges is not None
                                 else DEFAULT_CACHE_EDGES if snapshot is None
                                 else SNAPSHOT_CACHE_EDGES)
        self._adjacency: dict[str, Adjacency | RowAdjacency] = {}
        self._entities: dict[str, EntityInfo] = {}
        self._cached_edges = 0
        self._label_members: dict[str, list[str]] = {}
        self._set_labels: list[str] | None = None  # per snapshot label set
        # (type, source label, target label, display) -> how its sentence is written
        self._forms: dict[tuple[str, str, str, str | None], SentenceForm] = {}
        self._rows: RowIndex | None = None
        self._lengths: SentenceLengths | None = None
        self._shortest: int | None = None
        self.round_trips = 0
        self._relations = self._read_relations()
        by_key: dict[tuple[str, str, str, str], Relation] = {}
        by_type_display: dict[tuple[str, str], Relation] = {}
        by_labels: dict[tuple[str, str, str], Relation] = {}
        by_type: dict[str, Relation] = {}
        for rel in self._relations:  # sorted: the first of equals wins, always the same one
            by_key.setdefault((rel.type, rel.source_type, rel.target_type, rel.display), rel)
            by_type_display.setdefault((rel.type, rel.display), rel)
            by_labels.setdefault((rel.type, rel.source_type, rel.target_type), rel)
            by_type.setdefault(rel.type, rel)
        self._by_key = by_key
        self._by_type_display = by_type_display
        self._by_labels = by_labels
        self._by_type = by_type

    # -- reads --------------------------------------------------------------------------------

    def _query(self, name: str, identifiers: dict[str, str] | None = None,
               **params: Any) -> list[dict[str, Any]]:
        self.round_trips += 1
        return self.store.query(named(STATEMENTS, name, **(identifiers or {})), **params)

    def _read_relations(self) -> list[Relation]:
        relations = []
        for row in self._query("relations"):
            name = str(row.get("name") or row["type"])
            aliases = tuple(str(a) for a in (row.get("aliases") or ()) if a) or (name,)
            relations.append(Relation(
                type=str(row["type"]), source_type=str(row.get("source_type") or ENTITY),
                target_type=str(row.get("target_type") or ENTITY),
                display=str(row.get("display") or name), name=name, aliases=aliases,
                template=str(row.get("template") or ""),
            ))
        return relations

    def begin_prompt(self) -> None:
        """Called before each prompt's reads: empties the cache once it outgrew its bound."""
        if self._cached_edges > self.max_cached_edges:
            self._adjacency.clear()
            self._entities = {k: v for k, v in self._entities.items() if v.aliases is not None}
            self._cached_edges = 0

    def load(self, ids: Iterable[str]) -> None:
        """Make sure the edges of `ids` (and names and labels of their neighbours) are cached."""
        missing = sorted({i for i in ids if i not in self._adjacency})
        if not missing:
            return
        if self.snapshot is not None:
            self._load_from_snapshot(missing, self.snapshot)
            return
        facts: dict[str, list[Fact]] = {i: [] for i in missing}
        for chunk in _chunks(missing):
            for statement, outgoing in (("out_edges", True), ("in_edges", False)):
                self.round_trips += 1
                for entity, edges in self.store.rows(named(STATEMENTS, statement),
                                                     ids=list(chunk)):
                    entity = str(entity)
                    bucket = facts[entity]
                    for rel_type, other, name, labels, display, sentences in edges:
                        other = str(other)
                        if other not in self._entities:
                            self._entities[other] = EntityInfo(
                                other, str(name if name is not None else other), _label(labels))
                        source, target = (entity, other) if outgoing else (other, entity)
                        bucket.append(Fact(source, str(rel_type), target,
                                           None if display is None else str(display),
                                           tuple(str(s) for s in sentences or ())))
        for entity, found in facts.items():
            adjacency = Adjacency.of(entity, found)
            self._adjacency[entity] = adjacency
            self._cached_edges += len(adjacency.facts)
        self.entities([i for i in missing if i not in self._entities])

    def _load_from_snapshot(self, missing: list[str], snapshot: GraphSnapshot) -> None:
        """The same facts the two edge reads give, as rows of the snapshot's arrays."""
        if self._rows is None:
            self._rows = RowIndex.of(snapshot, self._labels_of_sets(snapshot))
        for entity in missing:
            at = snapshot.position(entity)
            if at is None:
                raise InputError(f"entities not in the KG: {entity}")
            adjacency = self._rows.adjacency(entity, at)
            self._adjacency[entity] = adjacency
            self._cached_edges += len(adjacency.facts)

    def _info_from_snapshot(self, entity_id: str) -> EntityInfo | None:
        snapshot = self.snapshot
        at = snapshot.position(entity_id) if snapshot is not None else None
        if snapshot is None or at is None:
            return None
        name = snapshot.names[at]
        shown = name if name is not None else entity_id
        info = EntityInfo(entity_id, shown,
                          self._labels_of_sets(snapshot)[int(snapshot.label_set[at])],
                          snapshot.aliases[at] or (shown,))
        self._entities[entity_id] = info
        return info

    def _labels_of_sets(self, snapshot: GraphSnapshot) -> list[str]:
        """The label prompts give each distinct label set of the snapshot, worked out once."""
        if self._set_labels is None:
            self._set_labels = [_label(labels) for labels in snapshot.labels]
        return self._set_labels

    @property
    def row_index(self) -> RowIndex | None:
        """The snapshot's row index once an entity was loaded from it, else None."""
        return self._rows

    @property
    def sentence_lengths(self) -> SentenceLengths | None:
        """Template sentence lengths of snapshot rows (None before any snapshot row)."""
        if self._lengths is None and self._rows is not None:
            self._lengths = SentenceLengths(self, self._rows)
        return self._lengths

    def adjacency(self, entity: str) -> Adjacency | RowAdjacency:
        if entity not in self._adjacency:
            self.load([entity])
        return self._adjacency[entity]

    def entities(self, ids: Iterable[str], *, aliases: bool = False) -> dict[str, EntityInfo]:
        """Info of `ids` (aliases read too when asked); unknown ids raise InputError."""
        wanted = sorted(set(ids))
        if self.snapshot is not None:
            for i in wanted:
                if i not in self._entities:
                    self._info_from_snapshot(i)
        missing = [i for i in wanted if i not in self._entities
                   or (aliases and self._entities[i].aliases is None)]
        for chunk in _chunks(missing):
            for row in self._query("entities", ids=list(chunk)):
                node_id = str(row["id"])
                name = str(row["name"]) if row.get("name") is not None else node_id
                found = tuple(str(a) for a in (row.get("aliases") or ()) if a)
                self._entities[node_id] = EntityInfo(node_id, name, _label(row.get("labels")),
                                                     found or (name,))
        absent = [i for i in wanted if i not in self._entities]
        if absent:
            raise InputError(f"entities not in the KG: {', '.join(absent[:5])}")
        return {i: self._entities[i] for i in wanted}

    def preload(self, ids: Iterable[str]) -> None:
        """Caches the names and labels of `ids` (one batched read without a snapshot); unknown
        ids raise InputError. `entities` without building its answer."""
        if self.snapshot is None:
            self.entities(ids)
            return
        known = self._entities
        unread = [i for i in ids if i not in known and self._info_from_snapshot(i) is None]
        if unread:
            self.entities(unread)

    def entity(self, entity_id: str) -> EntityInfo:
        info = self._entities.get(entity_id) or self._info_from_snapshot(entity_id)
        return info if info is not None else self.entities([entity_id])[entity_id]

    def name(self, entity_id: str) -> str:
        return self.entity(entity_id).name

    def label(self, entity_id: str) -> str:
        return self.entity(entity_id).label

    def aliases(self, entity_id: str) -> tuple[str, ...]:
        info = self._entities.get(entity_id)
        if info is None or info.aliases is None:
            info = self.entities([entity_id], aliases=True)[entity_id]
        assert info.aliases is not None
        return info.aliases

    def label_members(self, label: str) -> list[str]:
        if label not in self._label_members:
            snapshot = self.snapshot
            if snapshot is not None:  # its ids are sorted: the members come out sorted
                sets = [i for i, labels in enumerate(snapshot.labels) if label in labels]
                members = snapshot.ids[np.isin(snapshot.label_set, sets)].tolist()
            else:
                rows = self._query("label_members", {"label": label})
                members = sorted(str(row["id"]) for row in rows)
            self._label_members[label] = members
        return self._label_members[label]

    # -- relations and sentences --------------------------------------------------------------

    def relation(self, fact: Fact) -> Relation | None:
        """The KgcertRelation that names `fact`: by type, end labels and display, falling back
        to looser matches (a KG loaded without one of them)."""
        return self.relation_between(fact.type, self.label(fact.source),
                                     self.label(fact.target), fact.display)

    def relation_between(self, rel_type: str, source: str, target: str,
                         display: str | None) -> Relation | None:
        """The same for an edge of `rel_type` from a `source` to a `target` label."""
        if display is not None:
            found = self._by_key.get((rel_type, source, target, display))
            if found is not None:
                return found
        found = self._by_labels.get((rel_type, source, target))
        if found is not None and (display is None or found.display == display):
            return found
        if display is not None:
            found = self._by_type_display.get((rel_type, display))
            if found is not None:
                return found
        return self._by_labels.get((rel_type, source, target)) or self._by_type.get(rel_type)

    def relation_aliases(self, fact: Fact) -> tuple[str, ...]:
        rel = self.relation(fact)
        return rel.aliases if rel is not None else (fact.type,)

    def relation_name(self, fact: Fact) -> str:
        rel = self.relation(fact)
        return rel.name if rel is not None else fact.type

    def shortest_template(self) -> int:
        """A lower bound on the length of any sentence `sentences` fills in from a template:
        each template's (and the generic one's) text without names; 0 for a template that
        empty names do not fill."""
        if self._shortest is None:
            lengths = [len(GENERIC_TEMPLATE.format(source="", target="", relation=""))]
            for rel in self._relations:
                if rel.template:
                    try:
                        lengths.append(len(rel.template.format(source="", target="")))
                    except (KeyError, IndexError, ValueError):
                        lengths.append(0)
            self._shortest = min(lengths)
        return self._shortest

    def sentences(self, fact: Fact) -> tuple[str, ...]:
        """The fact's own sentences, else its relation's template filled with the names."""
        return fact.sentences or (self.sentence(fact),)

    def sentence(self, fact: Fact) -> str:
        """The first of `sentences`: what a context line states. Not kept: writing one costs
        less than looking it up (a fact is rarely written twice)."""
        if fact.sentences:
            return fact.sentences[0]
        # A prompt writes about 160 of these: the relation is looked up once per kind of edge.
        entities = self._entities
        source = entities.get(fact.source) or self.entity(fact.source)
        target = entities.get(fact.target) or self.entity(fact.target)
        kind = (fact.type, source.label, target.label, fact.display)
        form = self._forms.get(kind)
        if form is None:
            rel = self.relation_between(*kind)
            form = self._forms[kind] = (sentence_form(rel.template, rel.name) if rel is not None
                                        else sentence_form("", fact.type))
        if isinstance(form, tuple):
            before, between, after, source_first = form
            if source_first:
                return before + source.name + between + target.name + after
            return before + target.name + between + source.name + after
        return form.write(source.name, target.name)


@dataclass(frozen=True)
class _Formatted:
    """A template with fields other than one plain `{source}` and one plain `{target}`."""

    template: str
    relation: str

    def write(self, source: str, target: str) -> str:
        if self.template:
            try:
                return self.template.format(source=source, target=target)
            except (KeyError, IndexError, ValueError):
                pass
        return GENERIC_TEMPLATE.format(source=source, target=target, relation=self.relation)


# How a kind of edge's sentence is written (see `sentence_form`).
SentenceForm = tuple[str, str, str, bool] | _Formatted


def sentence_form(template: str, relation: str) -> SentenceForm:
    """How `PromptGraph.sentence` writes an edge with `template` (the generic sentence with
    `relation` when it has none): as the text before, between and after the two names and
    whether the source comes first, when it has one plain `{source}` and one plain `{target}`
    field (joining costs a third of `str.format`); else as before, through `str.format`."""
    if not template:
        escaped = relation.replace("{", "{{").replace("}", "}}")
        return _pieces(GENERIC_TEMPLATE.replace("{relation}", escaped)) or _Formatted("", relation)
    return _pieces(template) or _Formatted(template, relation)


def _pieces(template: str) -> tuple[str, str, str, bool] | None:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return None
    texts, fields = [""], []
    for text, field, spec, conversion in parsed:  # an escaped brace splits a text in two
        texts[-1] += text
        if field is not None:
            fields.append((field, spec, conversion))
            texts.append("")
    if sorted(fields) != [("source", "", None), ("target", "", None)]:
        return None
    return (texts[0], texts[1], texts[2], fields[0][0] == "source")
