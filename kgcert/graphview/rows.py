"""One entity's edges over the KG snapshot's arrays, made into Fact objects only when looked at.

A prompt offers every distractor's and option's edges, and draws its filler from the edges of
each entity involved, so a hub among them (a disease with thousands of edges) used to cost
thousands of Fact objects for the few dozen a prompt shows. `RowAdjacency` keeps the edges as
rows of the snapshot's arrays, in fact order (sorted with the snapshot), and answers the builder's
questions (edges of a type, the allowed edges, neighbours with a label) with array
operations; a row becomes a Fact when it is read, the same Fact the per-entity reads give.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import cast, overload

import numpy as np

from kgcert.graphview.fact import Fact
from kgcert.graphview.neighbours import Grouped, Neighbours, RowNeighbours
from kgcert.graphview.snapshot import GraphSnapshot

_new_tuple = tuple.__new__  # what a named tuple's own __new__ calls, minus its Python frame
# Rows of a snapshot's edges up to this many are made into Facts an edge at a time (a prompt
# makes a few such sets of one to a few rows each); more, a column at a time.
FEW_ROWS = 12


@dataclass(frozen=True)
class RowIndex:
    """What every adjacency of one snapshot shares: entity labels and fact key codes."""

    snapshot: GraphSnapshot
    label_code: np.ndarray  # per entity: its label (see `labels`) as an index
    labels: tuple[str, ...]
    codes: dict[str, int]  # type name -> code
    shown_key: np.ndarray  # per display code + 1: one code per shown text ("" for none)
    # Hubs' neighbours by label, kept beyond their adjacency (see `hub_neighbours`).
    hubs: dict[tuple[int, str], Neighbours] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, snapshot: GraphSnapshot, label_of_set: Sequence[str]) -> RowIndex:
        """`label_of_set`: the label prompts give an entity, per label set of the snapshot."""
        shown = ["", *snapshot.displays]
        labels = tuple(dict.fromkeys(label_of_set))
        per_set = np.array([labels.index(label) for label in label_of_set], dtype=np.int32)
        label_code = per_set[snapshot.label_set] if len(per_set) else np.zeros(0, np.int32)
        codes = {name: code for code, name in enumerate(snapshot.types)}
        shown_key = np.array([shown.index(text) for text in shown], dtype=np.int64)
        return cls(snapshot, label_code, labels, codes, shown_key)

    @property
    def carries_sentences(self) -> bool:
        """Whether the snapshot's edges carry their own sentences: a fact is then as many
        context lines as it has sentences, which the array engines do not count."""
        return self.snapshot.sentences is not None

    @property
    def keys_fit(self) -> bool:
        """Whether every fact key fits an int64 (see `fact_keys`)."""
        entities = len(self.snapshot.id_list)
        return entities * entities * max(len(self.codes), 1) * len(self.shown_key) < 2 ** 62

    def fact_keys(self, source: np.ndarray, type_: np.ndarray, target: np.ndarray,
                  display: np.ndarray) -> np.ndarray:
        """`Fact.fact_key` as one integer per edge: equal for the same unordered pair, type
        and shown display (positions follow the sorted ids, so the lower position is the
        lower id). Only when `keys_fit`."""
        entities = len(self.snapshot.id_list)
        low, high = np.minimum(source, target), np.maximum(source, target)
        key = low.astype(np.int64) * len(self.codes) + type_
        key = key * len(self.shown_key) + self.shown_key[display + 1]
        return key * entities + high

    @cached_property
    def edge_keys(self) -> np.ndarray:
        """`fact_keys` of every snapshot edge, by edge position (rows that know their edges
        gather theirs). Only when `keys_fit`."""
        snapshot = self.snapshot
        return self.fact_keys(snapshot.source, snapshot.type, snapshot.target, snapshot.display)

    def key_of(self, fact_key: tuple[str, str, str, str]) -> int:
        """The integer of one `Fact.fact_key` of this snapshot (same arithmetic, in Python)."""
        low_id, rel_type, high_id, display = fact_key
        low, high = self.snapshot.position(low_id), self.snapshot.position(high_id)
        assert low is not None and high is not None
        shown = 0 if display == "" else int(self.shown_key[self._display_code[display] + 1])
        key = (low * len(self.codes) + self.codes[rel_type]) * len(self.shown_key) + shown
        return key * len(self.snapshot.id_list) + high

    def rows_of(self, facts: Sequence[Fact]) -> FactRows:
        """Facts of this snapshot (without own sentences: see `carries_sentences`) as rows,
        in their order."""
        position, codes, display_code = self.snapshot.position, self.codes, self._display_code
        source = np.array([position(f.source) for f in facts], dtype=np.int64)
        target = np.array([position(f.target) for f in facts], dtype=np.int64)
        type_ = np.array([codes[f.type] for f in facts], dtype=np.int64)
        display = np.array([-1 if f.display is None else display_code[f.display]
                            for f in facts], dtype=np.int64)
        return FactRows(self, source, type_, target, display)

    @cached_property
    def edge_columns(self) -> tuple[memoryview, memoryview, memoryview, memoryview] | None:
        """The snapshot's source, type, target and display columns as memory that indexes
        to Python ints; None where one is not contiguous (it is not copied) or where edges
        carry their own sentences."""
        snapshot = self.snapshot
        columns = (snapshot.source, snapshot.type, snapshot.target, snapshot.display)
        if snapshot.sentences is not None or not all(c.flags.c_contiguous for c in columns):
            return None
        return cast(tuple[memoryview, memoryview, memoryview, memoryview],
                    tuple(column.data for column in columns))

    def facts_at(self, edges: list[int]) -> list[Fact]:
        """The Facts of a few snapshot edges (positions), read an edge at a time: for a few
        rows, less than the gathers and conversions of a column each. Only where
        `edge_columns` is not None."""
        source, type_, target, display = cast(
            tuple[memoryview, memoryview, memoryview, memoryview], self.edge_columns)
        snapshot = self.snapshot
        ids, types, shown = snapshot.id_list, snapshot.types, snapshot.display_or_none
        return [_new_tuple(Fact, (ids[source[e]], types[type_[e]], ids[target[e]],
                                  shown[display[e]], ())) for e in edges]

    @cached_property
    def _display_code(self) -> dict[str, int]:
        return {text: code for code, text in enumerate(self.snapshot.displays)}

    def hub_neighbours(self, adjacency: RowAdjacency, label: str) -> Neighbours:
        """`adjacency.grouped(label)`, kept here for an entity of HUB_FACTS facts or more: the
        prompt graph's cache lets go of its entities when it outgrows its bound, and a
        pivot spec's hub, in every prompt, cost a sort of its neighbours after each time."""
        if len(adjacency.facts) < HUB_FACTS:
            return adjacency.grouped(label)
        key = (adjacency.at, label)
        found = self.hubs.get(key)
        if found is None:
            if sum(len(kept.other) for kept in self.hubs.values()) > HUB_ROWS_KEPT:
                self.hubs.clear()
            found = self.hubs[key] = adjacency.grouped(label)
        return found

    def adjacency(self, entity: str, at: int) -> RowAdjacency:
        """Entity `at`'s edges, both directions, distinct, in fact order."""
        return RowAdjacency(entity, at, FactRows.of_edges(self, self.snapshot.edges_of(at)), self)


class FactRows(Sequence[Fact]):
    """Edges as array rows; `rows[i]` is the Fact of row i. Rows of snapshot edges
    (`of_edges`) know each row's edge position: what is worked out per edge is gathered, and
    their columns are gathered only when asked (most of a hub's rows are only counted and
    drawn from)."""

    def __init__(self, index: RowIndex, source: np.ndarray, type_: np.ndarray,
                 target: np.ndarray, display: np.ndarray) -> None:
        self.shared = index  # not `index`: that is Sequence.index
        self._columns: list[np.ndarray | None] = [source, type_, target, display]
        self.edges: np.ndarray | None = None
        self._facts: tuple[Fact, ...] | None = None
        self._made: dict[int, Fact] = {}  # rows read one by one
        self._keys: np.ndarray | None = None

    @classmethod
    def of_edges(cls, index: RowIndex, edges: np.ndarray) -> FactRows:
        """The snapshot's edges at positions `edges`, in that order."""
        rows = cls.__new__(cls)
        rows.shared, rows._columns, rows.edges = index, [None, None, None, None], edges
        rows._facts, rows._made, rows._keys = None, {}, None
        return rows

    def columns(self, at: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Source, type, target and display codes of every row, or of rows `at`."""
        if at is not None and self.edges is not None and any(c is None for c in self._columns):
            edges = self.edges[at]  # a few rows of many: gather those alone
            snapshot = self.shared.snapshot
            return (snapshot.source[edges], snapshot.type[edges], snapshot.target[edges],
                    snapshot.display[edges])
        source, type_, target, display = (self._column(i) for i in range(4))
        if at is None:
            return source, type_, target, display
        return source[at], type_[at], target[at], display[at]

    def _column(self, which: int) -> np.ndarray:
        """One column of every row, gathered from the snapshot when first asked (a question
        about one column of a hub's rows gathers that column alone)."""
        found = self._columns[which]
        if found is None:
            snapshot = self.shared.snapshot
            whole = (snapshot.source, snapshot.type, snapshot.target, snapshot.display)[which]
            found = self._columns[which] = whole[cast(np.ndarray, self.edges)]
        return found

    @property
    def source(self) -> np.ndarray:
        return self._column(0)

    @property
    def type(self) -> np.ndarray:
        return self._column(1)

    @property
    def target(self) -> np.ndarray:
        return self._column(2)

    @property
    def display(self) -> np.ndarray:
        return self._column(3)

    def fact_keys(self) -> np.ndarray:
        """Each row's fact key as an integer (`RowIndex.fact_keys`), kept."""
        if self._keys is None:
            self._keys = (self.shared.edge_keys[self.edges] if self.edges is not None else
                          self.shared.fact_keys(self.source, self.type, self.target,
                                                self.display))
        return self._keys

    def __len__(self) -> int:
        return len(self.edges) if self.edges is not None else len(self.source)

    @overload
    def __getitem__(self, at: int) -> Fact: ...

    @overload
    def __getitem__(self, at: slice) -> Sequence[Fact]: ...

    def __getitem__(self, at: int | slice) -> Fact | Sequence[Fact]:
        if isinstance(at, slice):
            return self.all()[at]
        if self._facts is not None:
            return self._facts[at]
        fact = self._made.get(at)
        if fact is None:
            fact = self._made[at] = self.take(np.array([at], dtype=np.int64))[0]
        return fact

    def __iter__(self) -> Iterator[Fact]:
        return iter(self.all())

    def take(self, at: np.ndarray) -> list[Fact]:
        """The Facts of rows `at` (positions), in order: `[rows[i] for i in at]` in one pass."""
        if self._facts is not None:
            facts = self._facts
            return [facts[i] for i in at.tolist()]
        if self.edges is not None and len(at) <= FEW_ROWS and self.shared.edge_columns:
            return self.shared.facts_at(self.edges[at].tolist())
        # The rows' edge positions only where edges carry sentences: a gather saved per call.
        edges = (None if self.edges is None or self.shared.snapshot.sentences is None
                 else self.edges[at])
        return self._made_of(*self.columns(at), edges)

    def all(self) -> tuple[Fact, ...]:
        if self._facts is None:
            edges = self.edges
            if edges is not None and len(edges) <= FEW_ROWS and self.shared.edge_columns:
                self._facts = tuple(self.shared.facts_at(edges.tolist()))
            else:
                self._facts = tuple(self._made_of(*self.columns(), edges))
        return self._facts

    def _made_of(self, source: np.ndarray, type_: np.ndarray, target: np.ndarray,
                 display: np.ndarray, edges: np.ndarray | None) -> list[Fact]:
        """The Facts of rows given by their code columns (and edge positions, whose own
        sentences a KG with them gives each Fact)."""
        snapshot = self.shared.snapshot
        ids = snapshot.id_list.__getitem__
        if snapshot.sentences is None:
            own: Iterable[tuple[str, ...]] = repeat(())
        else:
            assert edges is not None, "rows without edge positions have no sentences"
            own = snapshot.sentences.of_edges(edges)
        # Built by map and zip alone, with no Python frame per row: a prompt makes hundreds.
        return list(map(_new_tuple, repeat(Fact), zip(
            map(ids, source.tolist()), map(snapshot.types.__getitem__, type_.tolist()),
            map(ids, target.tolist()), map(snapshot.display_or_none.__getitem__, display.tolist()),
            own, strict=False)))

    def where(self, rows: np.ndarray) -> FactRows:
        """The rows picked by a mask or by positions, in order."""
        if self.edges is not None:
            return FactRows.of_edges(self.shared, self.edges[rows])
        return FactRows(self.shared, *self.columns(rows))


HUB_FACTS = 2_000  # an entity with this many facts keeps its neighbour groupings longer
# Below this many facts an entity's neighbours are grouped afresh from its allowed facts
# (`Grouped`), not kept per label and thinned per excluded set: numpy's fixed costs of the
# thinning outweighed a regrouping on the Alzheimer extract (0.8 of the rate; issue 48), and
# the builder keeps each answer anyway. Hubs' groupings, kept longer, are thinned.
FEW_FACTS = HUB_FACTS
HUB_ROWS_KEPT = 20_000_000  # rows of them kept at most (8 bytes a row, 20 a neighbour)
ALLOWED_KEPT = 8  # allowed-fact answers kept per entity (one per excluded set)


class RowAdjacency:
    """The same questions as `kgcert.graphview.fact.Adjacency`, over rows. Answers are kept:
    a hub's adjacency is asked the same questions by prompt after prompt."""

    def __init__(self, entity: str, at: int, facts: FactRows, index: RowIndex) -> None:
        self.entity, self.at, self.facts, self.index = entity, at, facts, index
        self._codes = index.codes
        self._of_type: dict[str, Sequence[Fact]] = {}
        self._outgoing: dict[str, tuple[Fact, ...]] = {}
        self._outgoing_rows: dict[str, FactRows] = {}
        self._incoming_rows: dict[str, FactRows] = {}
        self._allowed: dict[frozenset[str], Sequence[Fact]] = {}
        self._runs: dict[int, tuple[int, int]] = {}  # type code -> its run of facts
        self._by_label: dict[str, Neighbours] = {}  # as many as the KG has labels

    def of_type(self, rel_type: str) -> Sequence[Fact]:
        found = self._of_type.get(rel_type)
        if found is None:
            code = self._codes.get(rel_type)
            found = self._of_type[rel_type] = (
                self._typed(code).all() if code is not None else ())
        return found

    def outgoing(self, rel_type: str) -> list[Fact]:
        found = self._outgoing.get(rel_type)
        if found is None:
            found = self._outgoing[rel_type] = self.outgoing_rows(rel_type).all()
        return list(found)

    def outgoing_rows(self, rel_type: str) -> FactRows:
        """`outgoing(rel_type)` as rows."""
        found = self._outgoing_rows.get(rel_type)
        if found is None:
            found = self._outgoing_rows[rel_type] = self._rows_of_type(rel_type, outgoing=True)
        return found

    def incoming_rows(self, rel_type: str) -> FactRows:
        """The facts of `rel_type` into the entity (a loop too), in order, as rows."""
        found = self._incoming_rows.get(rel_type)
        if found is None:
            found = self._incoming_rows[rel_type] = self._rows_of_type(rel_type, outgoing=False)
        return found

    def _rows_of_type(self, rel_type: str, outgoing: bool) -> FactRows:
        code = self._codes.get(rel_type)
        if code is None:
            return self.facts.where(np.zeros(0, dtype=np.int64))
        rows = self._typed(code)
        return rows.where((rows.source if outgoing else rows.target) == self.at)

    def _typed(self, code: int) -> FactRows:
        """The rows of type `code`, in order (`facts` are the entity's edges in fact order)."""
        return FactRows.of_edges(self.index, self._of_code(code))

    def _of_code(self, code: int) -> np.ndarray:
        start, end = self._run(code)
        return cast(np.ndarray, self.facts.edges)[start:end]

    def _run(self, code: int) -> tuple[int, int]:
        """Where the facts of type `code` start and end: they are sorted by type, so each
        type's are one run, found by binary search (and kept: a hub is asked again)."""
        found = self._runs.get(code)
        if found is None:
            found = self._runs[code] = self.index.snapshot.type_run(self.at, code)
        return found

    def outgoing_to(self, rel_type: str, target: str) -> list[Fact]:
        """The facts of `rel_type` from the entity to `target`, in order: picked from the
        type's run by both ends at once (a prompt asks this of each sampled edge, mostly of
        entities met for the first time, whose outgoing rows would be gathered for it alone)."""
        snapshot = self.index.snapshot
        at, code = snapshot.position(target), self._codes.get(rel_type)
        if at is None or code is None:
            return []
        run = self._of_code(code)
        hits = run[(snapshot.target[run] == at) & (snapshot.source[run] == self.at)]
        return list(FactRows.of_edges(self.index, hits).all())

    def allowed(self, excluded: frozenset[str]) -> Sequence[Fact]:
        """The facts of no excluded type. The entity's facts are sorted by type, so each type's
        are one run of them: the allowed ones are the runs between, copied without a look at
        any fact's type (a hub's facts are thousands, and the excluded types differ prompt by
        prompt, so only a few answers are kept)."""
        found = self._allowed.get(excluded)
        if found is None:
            codes = [self._codes[t] for t in excluded if t in self._codes]
            cuts = sorted(run for run in map(self._run, codes) if run[1] > run[0])
            if not cuts:
                return self.facts
            edges = cast(np.ndarray, self.facts.edges)
            ends = [0, *(end for _, end in cuts)]
            starts = [*(start for start, _ in cuts), len(edges)]
            found = FactRows.of_edges(self.index, np.concatenate(
                [edges[end:start] for end, start in zip(ends, starts, strict=True)]))
            if len(self._allowed) >= ALLOWED_KEPT:
                self._allowed.clear()
            self._allowed[excluded] = found
        return found

    def neighbours(self, label: str, excluded: frozenset[str],
                   label_of: object = None) -> RowNeighbours:
        """The other ends with `label` of the allowed facts, sorted by id, with their facts.
        The grouping over all facts is kept per label; the allowed facts' grouping is a view
        of it less the excluded facts (the excluded types are the DAG's, which differ prompt
        by prompt, and a hub has thousands of facts to regroup)."""
        if len(self.facts) < FEW_FACTS:
            allowed = self.allowed(excluded)
            rows = allowed if isinstance(allowed, FactRows) else self.facts
            picked, other = self._by_neighbour(rows, label)
            return Grouped(picked, other)
        every = self._by_label.get(label)
        if every is None:
            every = self._by_label[label] = self.index.hub_neighbours(self, label)
        codes = [self._codes[t] for t in excluded if t in self._codes]
        if not codes or not len(every.positions):
            return every
        snapshot = self.index.snapshot
        edges = np.concatenate([self._of_code(code) for code in codes])
        source, target = snapshot.source[edges], snapshot.target[edges]
        return every.without(excluded, np.where(source == self.at, target, source))

    def grouped(self, label: str) -> Neighbours:
        """The other ends with `label` of all the entity's facts, sorted by id."""
        return Neighbours(*self._by_neighbour(self.facts, label))

    def _by_neighbour(self, rows: FactRows, label: str) -> tuple[FactRows, np.ndarray]:
        """`rows` whose other end has `label` (not the entity itself), sorted by that end's
        position (so by id), each end's facts in fact order; and those ends."""
        other = np.where(rows.source == self.at, rows.target, rows.source)
        wanted = (self.index.labels.index(label) if label in self.index.labels else -1)
        keep = np.flatnonzero((other != self.at) & (self.index.label_code[other] == wanted))
        order = keep[np.argsort(other[keep], kind="stable")]  # by id, facts kept in order
        return rows.where(order), other[order]
