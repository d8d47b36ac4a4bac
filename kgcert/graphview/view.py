"""What the prompt builder reads of one KG, behind one interface with two backends.

`PromptGraph` is the interface and what both backends share: the KG's relations (read once),
sentences written from their templates, entity names, labels and aliases, and a bounded cache
of per-entity edge lists. The backend is chosen once, when the graph is opened
(`open_graph`):

- `ReadGraph` (kgcert/graphview/reads.py) reads over Bolt with the named statements of
  cypher/prompts.cypher, batched over id lists, only the entities a prompt needs: the
  reference, and the fallback where there is no snapshot.
- `SnapshotGraph` (kgcert/graphview/arrays.py) answers from the whole KG's arrays, read once
  per run and cached on disk (kgcert/graphview/snapshot.py): edge lists as array rows
  (rows.py), answer sets from the arrays (answers.py), sentence lengths without writing them
  (lengths.py), edges' own sentences from a pool beside them (edge_sentences.py). The same
  facts, so the same prompts, without a round trip per prompt.

Every list is sorted by ids when it arrives, so what a prompt sees does not depend on the
server's row order, on the cache, or on which prompts came before. `max_cached_edges` bounds
the cache: when it is exceeded, the cache is emptied before the next prompt's reads. Read
edges are Fact objects, a snapshot's are views of its arrays: the two bounds differ.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from kgcert.errors import InputError
from kgcert.graphview.fact import Fact
from kgcert.graphview.relations import Relation
from kgcert.graphview.sentences import GENERIC_TEMPLATE, SentenceForm, sentence_form
from kgcert.store.cypher import is_kgcert_label, named
from kgcert.store.graph import GraphStore

if TYPE_CHECKING:
    from kgcert.graphview.lengths import SentenceLengths
    from kgcert.graphview.rows import RowIndex
    from kgcert.specs.compile import CompiledRelationSpec

STATEMENTS = "prompts"
ENTITY = "Entity"
_CHUNK = 2_000


@dataclass(frozen=True)
class EntityInfo:
    id: str
    name: str
    label: str  # the entity's type label (not "Entity")
    aliases: tuple[str, ...] | None = None  # None: not read yet


class EntityEdges(Protocol):
    """One entity's edges, both directions, in fact order (kgcert/graphview/fact.py), and the
    questions the prompt builder asks of them. `Adjacency` answers them over Fact objects,
    `RowAdjacency` over snapshot rows: the same facts in the same order."""

    @property
    def entity(self) -> str: ...

    @property
    def facts(self) -> Sequence[Fact]: ...

    def of_type(self, rel_type: str) -> Sequence[Fact]: ...

    def outgoing(self, rel_type: str) -> list[Fact]: ...

    def outgoing_to(self, rel_type: str, target: str) -> list[Fact]: ...

    def outgoing_rows(self, rel_type: str) -> Sequence[Fact]:
        """`outgoing(rel_type)`, as rows where the backend has them."""
        ...

    def incoming_rows(self, rel_type: str) -> Sequence[Fact]:
        """The facts of `rel_type` into the entity (a loop too), in order."""
        ...

    def allowed(self, excluded: frozenset[str]) -> Sequence[Fact]: ...

    def neighbours(self, label: str, excluded: frozenset[str],
                   label_of: Callable[[str], str]) -> Mapping[str, Sequence[Fact]]: ...


class AnswerSets(Protocol):
    """A relation spec's answer sets: every correct answer's id, sorted, for the question's
    entities by variable."""

    def answers(self, given: dict[str, str]) -> tuple[str, ...]: ...


def entity_label(labels: Sequence[str] | None) -> str:
    """The label prompts give an entity: its first type label, else Entity."""
    names = sorted(label for label in (labels or ())
                   if label != ENTITY and not is_kgcert_label(label))
    return names[0] if names else ENTITY


def chunks(items: Sequence[str], size: int = _CHUNK) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def stored_names(store: GraphStore, ids: Sequence[str]) -> dict[str, str]:
    """The stored `name` of each of `ids` that has one, read in batches."""
    found: dict[str, str] = {}
    for chunk in chunks(ids):
        for row in store.query(named(STATEMENTS, "entities"), ids=list(chunk)):
            if row.get("name"):
                found[str(row["id"])] = str(row["name"])
    return found


class PromptGraph(ABC):
    """Cached reads of one KG for prompts. Share one between builders of one KG."""

    default_cache_edges: ClassVar[int]

    def __init__(self, store: GraphStore, max_cached_edges: int | None = None) -> None:
        self.store = store
        self.max_cached_edges = (max_cached_edges if max_cached_edges is not None
                                 else self.default_cache_edges)
        self._adjacency: dict[str, EntityEdges] = {}
        self._entities: dict[str, EntityInfo] = {}
        self._cached_edges = 0
        self.emptied = 0  # times the cache was emptied: what callers keep from it goes too
        self._asked: set[str] = set()  # entities whose edges this prompt asked for
        self._label_members: dict[str, list[str]] = {}
        # (type, source label, target label, display) -> how its sentence is written
        self._forms: dict[tuple[str, str, str, str | None], SentenceForm] = {}
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

    # -- what each backend does its own way -----------------------------------------------------

    @abstractmethod
    def _load(self, missing: list[str]) -> None:
        """Cache the edges of `missing` (sorted, none cached yet)."""

    @abstractmethod
    def _local_info(self, entity_id: str) -> EntityInfo | None:
        """The entity's info without a read (kept), or None."""

    @abstractmethod
    def label_members(self, label: str) -> list[str]:
        """The ids of the entities with `label`, sorted."""

    @abstractmethod
    def answer_sets(self, compiled: CompiledRelationSpec) -> AnswerSets:
        """The answer sets of a compiled relation spec over this KG."""

    @abstractmethod
    def option_pool(self, listing: Callable[[], Sequence[str]]
                    ) -> Sequence[str] | Callable[[], Sequence[str]]:
        """Candidate options as the composer should take them: listed now (their names read
        in one batch) or only when asked."""

    @property
    def row_index(self) -> RowIndex | None:
        """The snapshot's row index (array tiers), None without a snapshot."""
        return None

    def sentence_lengths(self, line_overhead: int) -> SentenceLengths | None:
        """Template sentence lengths of snapshot rows, each line costing `line_overhead`
        characters more; None without a snapshot."""
        return None

    def prepare(self, line_overhead: int | None = None) -> None:
        """Work out now what every prompt over this graph reads, so a command's first prompt
        costs what its later ones do (the work is preparation, done once per graph):
        `line_overhead` is a character budget's line cost beside its sentence (None: the
        budget counts otherwise). The per-entity reads have nothing to work out."""
        self.shortest_template()

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
        """Called before each prompt's reads: empties the cache once it outgrew its bound,
        but for the entities the last prompt asked about when they fill at most half of it
        (a pivot spec's hub is in every prompt, and what is worked out of a hub's edges costs
        more than the rest of a prompt)."""
        if self._cached_edges > self.max_cached_edges:
            self.emptied += 1
            kept = {entity: self._adjacency[entity] for entity in self._asked
                    if entity in self._adjacency}
            size = sum(len(adjacency.facts) for adjacency in kept.values())
            if size > self.max_cached_edges // 2:
                kept, size = {}, 0
            self._adjacency = kept
            self._entities = self._entities_kept()
            self._cached_edges = size
        self._asked.clear()

    def _entities_kept(self) -> dict[str, EntityInfo]:
        """The entity infos an emptied cache keeps: those read with their aliases."""
        return {k: v for k, v in self._entities.items() if v.aliases is not None}

    def load(self, ids: Iterable[str]) -> None:
        """Make sure the edges of `ids` (and names and labels of their neighbours) are cached."""
        missing = sorted({i for i in ids if i not in self._adjacency})
        if missing:
            self._load(missing)

    def _keep(self, entity: str, adjacency: EntityEdges) -> None:
        self._adjacency[entity] = adjacency
        self._cached_edges += len(adjacency.facts)

    def adjacency(self, entity: str) -> EntityEdges:
        self._asked.add(entity)
        if entity not in self._adjacency:
            self.load([entity])
        return self._adjacency[entity]

    def entities(self, ids: Iterable[str], *, aliases: bool = False) -> dict[str, EntityInfo]:
        """Info of `ids` (aliases read too when asked); unknown ids raise InputError."""
        wanted = sorted(set(ids))
        for i in wanted:
            if i not in self._entities:
                self._local_info(i)
        missing = [i for i in wanted if i not in self._entities
                   or (aliases and self._entities[i].aliases is None)]
        for chunk in chunks(missing):
            for row in self._query("entities", ids=list(chunk)):
                node_id = str(row["id"])
                name = str(row["name"]) if row.get("name") is not None else node_id
                found = tuple(str(a) for a in (row.get("aliases") or ()) if a)
                self._entities[node_id] = EntityInfo(node_id, name,
                                                     entity_label(row.get("labels")),
                                                     found or (name,))
        absent = [i for i in wanted if i not in self._entities]
        if absent:
            raise InputError(f"entities not in the KG: {', '.join(absent[:5])}")
        return {i: self._entities[i] for i in wanted}

    def preload(self, ids: Iterable[str]) -> None:
        """Caches the names and labels of `ids` (one batched read of those the backend does
        not hold); unknown ids raise InputError. `entities` without building its answer."""
        # The set difference first: a hub's related options are thousands, mostly known.
        unread = [i for i in set(ids).difference(self._entities) if self._local_info(i) is None]
        if unread:
            self.entities(unread)

    def stored_names(self, ids: Sequence[str]) -> dict[str, str]:
        """The stored `name` of each of `ids` that has one (unknown ids have none): what a
        run records for its report, read in batches (a snapshot answers from its arrays)."""
        return stored_names(self.store, ids)

    def entity(self, entity_id: str) -> EntityInfo:
        info = self._entities.get(entity_id) or self._local_info(entity_id)
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
        source_id, rel_type, target_id, display, own = fact  # one unpacking, not five reads
        if own:
            return own[0]
        # A prompt writes about 160 of these: the relation is looked up once per kind of edge.
        entities = self._entities
        source = entities.get(source_id) or self.entity(source_id)
        target = entities.get(target_id) or self.entity(target_id)
        kind = (rel_type, source.label, target.label, display)
        form = self._forms.get(kind)
        if form is None:
            rel = self.relation_between(*kind)
            form = self._forms[kind] = (sentence_form(rel.template, rel.name) if rel is not None
                                        else sentence_form("", rel_type))
        if isinstance(form, tuple):
            before, between, after, source_first = form
            if source_first:  # one string built, not four partial ones
                return f"{before}{source.name}{between}{target.name}{after}"
            return f"{before}{target.name}{between}{source.name}{after}"
        return form.write(source.name, target.name)
