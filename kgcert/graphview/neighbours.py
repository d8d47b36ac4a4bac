"""One entity's neighbours of a label over snapshot rows, and what related options draw from.

A full-size Wikidata5m prompt meets hubs with a hundred thousand neighbours or more. It asks a
hub's neighbours for a few options' facts, and for their ids only to draw a few related
options at random, and the excluded types (the DAG's) change prompt by prompt. So nothing here
is made per neighbour: a neighbour is found by binary search over sorted positions, the
grouping less the excluded facts is a view that changes only the neighbours those facts
reach, and the ids of the union come as a sequence over positions, a string made only for
the entries read.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, KeysView, Mapping, Sequence
from functools import cached_property
from typing import Any, overload

import numpy as np

from kgcert.graphview.fact import Fact
from kgcert.graphview.row_set import SnapshotRows
from kgcert.graphview.snapshot import GraphSnapshot


class RowNeighbours(Mapping[str, Sequence[Fact]]):
    """Neighbour id -> its facts (never empty), ids in sorted order, which `positions`
    (sorted snapshot positions) list."""

    snapshot: GraphSnapshot

    @property
    @abstractmethod
    def positions(self) -> np.ndarray: ...

    @abstractmethod
    def facts_of(self, entity: str) -> Sequence[Fact] | None:
        """The neighbour's facts, or None when `entity` is not a neighbour."""

    def __getitem__(self, entity: str) -> Sequence[Fact]:
        found = self.facts_of(entity)
        if found is None:
            raise KeyError(entity)
        return found

    def get(self, entity: str, default: Any = None) -> Any:
        # Mapping.get goes through __getitem__ and a KeyError for every entity not here.
        found = self.facts_of(entity)
        return default if found is None else found

    def __contains__(self, entity: object) -> bool:
        return isinstance(entity, str) and self.facts_of(entity) is not None

    def __iter__(self) -> Iterator[str]:
        return map(self.snapshot.id_list.__getitem__, self.positions.tolist())

    def __len__(self) -> int:
        return len(self.positions)


class Neighbours(RowNeighbours):
    """Over rows grouped by neighbour: `other` (sorted) is each row's neighbour position."""

    def __init__(self, rows: SnapshotRows, other: np.ndarray) -> None:
        self.rows, self.other = rows, other
        self.snapshot = rows.shared.snapshot
        # `other` is sorted: each neighbour's rows start where its position first appears.
        self.starts = run_starts(other)
        self._positions = other[self.starts]
        self.ends = np.append(self.starts[1:], len(other)).astype(np.int64)

    @property
    def positions(self) -> np.ndarray:
        return self._positions

    def place(self, entity: str) -> int:
        """The neighbour's place in `positions`, -1 when it is none."""
        at = self.snapshot.position(entity)
        if at is None or not len(self._positions):
            return -1
        i = int(np.searchsorted(self._positions, at))
        return i if i < len(self._positions) and int(self._positions[i]) == at else -1

    def facts_of(self, entity: str) -> Sequence[Fact] | None:
        i = self.place(entity)
        if i < 0:
            return None
        # Made anew each time: a hub's grouping outlives many prompts, and facts kept made
        # (with their sentences) took gigabytes at full Wikidata5m size.
        return self.rows.where(np.arange(self.starts[i], self.ends[i])).all()

    def without(self, types: frozenset[str], ends: np.ndarray) -> RowNeighbours:
        """These neighbours less the facts of `types`, whose other ends are `ends` (one per
        such fact of the entity, any label). Only the neighbours those facts reach change."""
        if not len(ends) or not len(self._positions):
            return self
        # Each end's place among the neighbours, found once (binary search); ends that are
        # no neighbour of this label fall away.
        at = np.searchsorted(self._positions, ends)
        np.minimum(at, len(self._positions) - 1, out=at)
        at = at[self._positions[at] == ends]
        if not len(at):
            return self
        at.sort()
        first = run_starts(at)
        place, lost = at[first], np.diff(np.append(first, len(at)))
        touched = self._positions[place]
        emptied = touched[self.ends[place] - self.starts[place] == lost]
        return Thinned(self, types, touched, emptied)


FEW_ASKS = 2  # a grouping makes the facts of this many neighbours one by one, then all


class Grouped(RowNeighbours):
    """An entity of few facts' neighbours, grouped afresh for each excluded set: rows grouped by
    neighbour (`other`, sorted, each row's neighbour position), looked up by id in a dict,
    each neighbour's facts made once. For an entity of few facts the kept grouping less the
    excluded facts (`Neighbours.without`) costs more in numpy's fixed costs than this costs
    in all; such groupings are small, so keeping what they made costs little."""

    def __init__(self, rows: SnapshotRows, other: np.ndarray) -> None:
        self.rows, self.snapshot = rows, rows.shared.snapshot
        starts = run_starts(other)
        self._positions = other[starts]
        ids = self.snapshot.id_list
        self._keys = {ids[at]: i for i, at in enumerate(self._positions.tolist())}
        bounds = [*starts.tolist(), len(other)]
        self._spans = list(zip(bounds, bounds[1:], strict=False))
        self._facts: dict[str, tuple[Fact, ...]] = {}
        self._asked = 0  # neighbours whose facts were made

    @property
    def positions(self) -> np.ndarray:
        return self._positions

    def facts_of(self, entity: str) -> Sequence[Fact] | None:
        found = self._facts.get(entity)
        if found is None:
            i = self._keys.get(entity)
            if i is None:
                return None
            start, end = self._spans[i]
            # A grouping asked for a few neighbours makes their rows' facts alone (making
            # every row's to slice out a few was most of a prompt's related options at full
            # size); one asked for more, as a kept answer is, makes all once and slices.
            self._asked += 1
            found = self._facts[entity] = (
                self.rows.all()[start:end] if self._asked > FEW_ASKS
                else self.rows.where(np.arange(start, end)).all())
        return found

    def get(self, entity: str, default: Any = None) -> Any:
        found = self._facts.get(entity)  # a prompt asks for each option's facts per node
        return found if found is not None else RowNeighbours.get(self, entity, default)

    def __contains__(self, entity: object) -> bool:
        return entity in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def keys(self) -> KeysView[str]:
        return self._keys.keys()  # the dict's own view: set operations in C


class Thinned(RowNeighbours):
    """`Neighbours` less the facts of some types: `touched` (sorted positions) are the
    neighbours that lose facts, `emptied` those that lose all of theirs."""

    def __init__(self, every: Neighbours, types: frozenset[str], touched: np.ndarray,
                 emptied: np.ndarray) -> None:
        self.every, self.types, self.touched, self.emptied = every, types, touched, emptied
        self.snapshot = every.snapshot

    @cached_property
    def positions(self) -> np.ndarray:
        if not len(self.emptied):
            return self.every.positions
        keep = np.ones(len(self.every.positions), dtype=bool)
        keep[np.searchsorted(self.every.positions, self.emptied)] = False
        return self.every.positions[keep]

    def facts_of(self, entity: str) -> Sequence[Fact] | None:
        found = self.every.facts_of(entity)
        if found is None:
            return None
        at = self.snapshot.position(entity)
        assert at is not None, "a neighbour is an entity of the snapshot"
        i = int(np.searchsorted(self.touched, at))
        if i == len(self.touched) or int(self.touched[i]) != at:
            return found
        return tuple(fact for fact in found if fact.type not in self.types) or None

    def __len__(self) -> int:
        return len(self.every.positions) - len(self.emptied)


class IdsAt(Sequence[str]):
    """The ids of snapshot positions, each made when read (a hub's are thousands, and
    options read a few)."""

    def __init__(self, positions: np.ndarray, ids: list[str]) -> None:
        self.positions, self.ids = positions, ids

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, at: int) -> str: ...

    @overload
    def __getitem__(self, at: slice) -> list[str]: ...

    def __getitem__(self, at: int | slice) -> str | list[str]:
        if isinstance(at, slice):
            return list(map(self.ids.__getitem__, self.positions[at].tolist()))
        return self.ids[int(self.positions[at])]


def merged_ids(groups: Sequence[RowNeighbours], left_out: Sequence[str]) -> IdsAt:
    """The ids of all `groups`' neighbours, distinct and sorted, less `left_out`: what
    sorting their keys together gives (positions follow the ids' sorted order)."""
    snapshot = groups[0].snapshot
    positions = _union([group.positions for group in groups])
    dropped = [at for at in map(snapshot.position, left_out) if at is not None]
    if dropped and len(positions):  # a few: found by binary search, not the other way round
        wanted = np.array(dropped, dtype=positions.dtype)
        at = np.minimum(np.searchsorted(positions, wanted), len(positions) - 1)
        positions = np.delete(positions, at[positions[at] == wanted])
    return IdsAt(positions, snapshot.id_list)


def _union(runs: list[np.ndarray]) -> np.ndarray:
    """The distinct values of `runs` (each sorted and distinct), sorted. The others' values
    that the longest run lacks are inserted into it: a hub's run is a hundred thousand long
    and the others a few hundred, and sorting them all together took ten times as long."""
    runs = sorted((run for run in runs if len(run)), key=len)
    if len(runs) <= 1:
        return runs[0] if runs else np.zeros(0, dtype=np.int64)
    longest = runs.pop()
    others = runs[0] if len(runs) == 1 else distinct(np.concatenate(runs))
    at = np.searchsorted(longest, others)
    new = longest[np.minimum(at, len(longest) - 1)] != others
    return np.insert(longest, at[new], others[new]) if new.any() else longest


def distinct(values: np.ndarray) -> np.ndarray:
    """`np.unique(values)` by numpy's default sort: numpy 2.4's unique took 20-40 times as
    long over a hub's neighbours (and its stable sort, timsort, some 10 times)."""
    ordered = np.sort(values)
    return ordered[run_starts(ordered)]


def run_starts(ordered: np.ndarray) -> np.ndarray:
    """Where each run of equal values of `ordered` (sorted) starts."""
    first = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return np.flatnonzero(first)
