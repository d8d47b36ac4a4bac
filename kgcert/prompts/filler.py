"""Tiers 2 (`offer_rows`) and 3 (`draw_filler`) over the snapshot's rows, as arrays.

A prompt draws up to `per_entity` edges of every entity involved (a relation DAG's
distractors among them: dozens of entities, thousands of edges), shuffles them and offers
each fact once, after tiers 1 and 2. The budget keeps a few dozen, so here the rows are drawn
and shuffled with the same random calls as the per-Fact path, de-duplicated on integer fact
keys (`RowIndex.fact_keys`), and become Fact objects only when the trim reaches them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import cast, overload

import numpy as np

from kgcert.graphview.fact import Fact
from kgcert.graphview.lengths import SentenceLengths
from kgcert.graphview.rows import FactRows
from kgcert.graphview.snapshot import in_sorted
from kgcert.prompts.context import LazyPending
from kgcert.util.rng import sorted_subsets


class PendingRows(LazyPending):
    """Entry i: the fact of row `at[i]` of `sources[which[i]]`, its sentence not written yet.
    `edges`, when known: each entry's snapshot edge (-1: none), from which facts are made a
    chunk at a time as the trim reaches them."""

    def __init__(self, sources: Sequence[FactRows], which: np.ndarray, at: np.ndarray,
                 costs: np.ndarray | None = None, edges: np.ndarray | None = None) -> None:
        self.sources, self.which, self.at = sources, which, at
        self.costs, self.edges = costs, edges
        self._made: dict[int, Fact] = {}

    def __len__(self) -> int:
        return len(self.which)

    @overload
    def __getitem__(self, i: int) -> Fact: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Fact]: ...

    def __getitem__(self, i: int | slice) -> Fact | Sequence[Fact]:
        if isinstance(i, slice):
            return list(self)[i]
        return self.fact(i)

    def fact(self, i: int) -> Fact:
        found = self._made.get(i)
        if found is not None:
            return found
        if self.edges is None or self.edges[i] < 0:  # not a snapshot edge
            return self.sources[int(self.which[i])][int(self.at[i])]
        # The trim reads entries in order, most of them in a row: make the next few at once.
        edges = self.edges[i:i + _CHUNK]
        known = np.flatnonzero(edges >= 0)
        made = FactRows.of_edges(self.sources[0].shared, edges[known]).all()
        for j, fact in zip(known.tolist(), made, strict=True):
            self._made[i + j] = fact
        return self._made[i]

    def facts_at(self, places: Sequence[int]) -> list[Fact]:
        """`[self.fact(i) for i in places]`, those not made yet made together: snapshot
        edges in one pass, other rows in one pass per source (a distractor prompt asks for its
        distractors' own edges, scattered in tier 2)."""
        made = self._made
        missing = np.array([i for i in places if i not in made], dtype=np.int64)
        if not len(missing):
            return [made[i] for i in places]
        if self.edges is not None:
            edges = self.edges[missing]
            known = edges >= 0
            if known.any():
                facts = FactRows.of_edges(self.sources[0].shared, edges[known]).all()
                made.update(zip(missing[known].tolist(), facts, strict=True))
                missing = missing[~known]
        which = self.which[missing]
        for source in np.unique(which).tolist():
            picked = missing[which == source]
            facts = self.sources[source].take(self.at[picked])
            made.update(zip(picked.tolist(), facts, strict=True))
        return [made[i] for i in places]

    def __iter__(self) -> Iterator[Fact]:
        for i in range(len(self)):
            yield self.fact(i)


_CHUNK = 32  # facts made at once when the trim reaches an entry (see PendingRows.fact)


def draw_filler(sources: Sequence[FactRows], per_entity: int, used: np.ndarray,
                rng: np.random.Generator, lengths: SentenceLengths | None = None
                ) -> PendingRows:
    """Up to `per_entity` rows of each source (all when it has no more), in one seeded random
    order, each fact key once and none in `used` (the facts of tiers 1 and 2). With `lengths`,
    each entry carries its line's cost (-1: unknown)."""
    drawn = sorted_subsets(rng, [len(rows) for rows in sources], per_entity)
    if (lengths is None or lengths.per_edge) and all(rows.edges is not None
                                                     for rows in sources):
        return _draw_edges(sources, drawn, used, rng, lengths)
    costs_of = lengths.line_costs if lengths is not None else None
    at, keys, costs = [], [], []
    for rows, picked in zip(sources, drawn, strict=True):
        if picked is not None:
            at.append(picked)
            keys.append(rows.fact_keys()[picked])
            if costs_of is not None:
                costs.append(costs_of(rows)[picked])
        else:  # all of its rows, in order
            at.append(np.arange(len(rows)))
            keys.append(rows.fact_keys())
            if costs_of is not None:
                costs.append(costs_of(rows))
    counts = [len(a) for a in at]
    order = rng.permutation(sum(counts))
    if not len(order):
        return _distinct(sources, *(np.zeros(0, dtype=np.int64),) * 3, used, None)[0]
    which = np.repeat(np.arange(len(sources), dtype=np.int64), counts)
    return _distinct(sources, which[order], np.concatenate(at)[order],
                     np.concatenate(keys)[order], used,
                     np.concatenate(costs)[order] if costs_of is not None else None)[0]


def _draw_edges(sources: Sequence[FactRows], drawn: Sequence[np.ndarray | None],
                used: np.ndarray, rng: np.random.Generator,
                lengths: SentenceLengths | None) -> PendingRows:
    """`draw_filler` for sources of snapshot edges: the drawn rows of all sources laid end to
    end (by source, each source's rows in order), and their keys and costs gathered in one
    pass each. Only drawn rows are touched: a hub prompt draws 40 of each of some 300
    entities' thousands of edges."""
    at = [np.arange(len(rows)) if picked is None else picked
          for rows, picked in zip(sources, drawn, strict=True)]
    counts = [len(rows_at) for rows_at in at]
    order = rng.permutation(sum(counts))
    if not len(order):
        return _distinct(sources, *(np.zeros(0, dtype=np.int64),) * 3, used, None)[0]
    edges = np.concatenate([cast(np.ndarray, rows.edges) if picked is None
                            else cast(np.ndarray, rows.edges)[picked]
                            for rows, picked in zip(sources, drawn, strict=True)])[order]
    which = np.repeat(np.arange(len(sources), dtype=np.int64), counts)[order]
    return _distinct(sources, which, np.concatenate(at)[order],
                     sources[0].shared.edge_keys[edges], used,
                     lengths.edge_costs(edges) if lengths is not None else None, edges)[0]


def offer_rows(parts: Sequence[tuple[FactRows, int, int]], used: np.ndarray,
               lengths: SentenceLengths | None = None) -> tuple[PendingRows, np.ndarray]:
    """Tier 2: rows [start, end) of each part's rows, parts in order, each fact key once and
    none in `used`; and the fact keys offered. With `lengths`, each entry carries its line's
    cost. A distractor prompt offers hundreds of parts, mostly whole rows: each is sliced
    once, and the entries' places are worked out for all parts at once."""
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return PendingRows([], empty, empty), empty
    sources = [rows for rows, _, _ in parts]
    counts = np.array([end - start for _, start, end in parts], dtype=np.int64)
    starts = np.array([start for _, start, _ in parts], dtype=np.int64)
    which = np.repeat(np.arange(len(parts), dtype=np.int64), counts)
    # Entry i of part p is row starts[p] + (i - where part p begins among the entries).
    at = np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(
        starts - (np.cumsum(counts) - counts), counts)
    if lengths is not None and not lengths.per_edge:
        return _distinct(sources, which, at,
                         np.concatenate([rows.fact_keys()[start:end]
                                         for rows, start, end in parts]), used,
                         np.concatenate([lengths.line_costs(rows)[start:end]
                                         for rows, start, end in parts]))
    # -1: a part of facts that are not snapshot rows, worked out below.
    unknown = np.full(int(counts.max()), -1, dtype=np.int64)
    edges = np.concatenate([rows.edges[start:end] if rows.edges is not None
                            else unknown[:end - start] for rows, start, end in parts])
    keys = sources[0].shared.edge_keys[edges]
    costs = lengths.edge_costs(edges) if lengths is not None else None
    # A distractor prompt's other parts are hundreds of slices of one FactRows (the facts
    # it made rows together): their keys and costs are gathered once per FactRows.
    made: dict[int, tuple[int, FactRows]] = {}  # id -> (its number, the FactRows)
    owner = np.full(len(parts), -1, dtype=np.int64)
    for part, rows in enumerate(sources):
        if rows.edges is None:
            owner[part] = made.setdefault(id(rows), (len(made), rows))[0]
    if made:
        entry_owner = owner[which]
        for number, rows in made.values():
            entries = np.flatnonzero(entry_owner == number)
            keys[entries] = rows.fact_keys()[at[entries]]
            if costs is not None and lengths is not None:
                costs[entries] = lengths.line_costs(rows)[at[entries]]
    return _distinct(sources, which, at, keys, used, costs, edges)


def _distinct(sources: Sequence[FactRows], which: np.ndarray, at: np.ndarray,
              keys: np.ndarray, used: np.ndarray, costs: np.ndarray | None,
              edges: np.ndarray | None = None) -> tuple[PendingRows, np.ndarray]:
    """The entries whose fact key is not in `used` and not met earlier, in order."""
    picked = np.flatnonzero(first_fresh(keys, used))
    return (PendingRows(sources, which[picked], at[picked],
                        costs[picked] if costs is not None else None,
                        edges[picked] if edges is not None else None), keys[picked])


# From this many keys (with the used ones) a hash table finds the first places faster than
# the two sorts below, which cost less than the table for a few hundred keys.
HASHED_FROM = 500


def prepare_filler() -> None:
    """Imports what `first_fresh` needs for many keys (pandas, whose import takes a fraction
    of a CPU-second), so a run pays it while preparing rather than on its first hub prompt."""
    import pandas  # noqa: F401


def first_fresh(keys: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Mask of the entries whose key is not in `used` and is met here for the first time."""
    count = len(keys)
    if count + len(used) >= HASHED_FROM:
        import pandas as pd  # here: commands that never get here do not pay for its import

        # The used keys first: an entry is a duplicate of one of them or of an earlier entry.
        both = pd.Series(np.concatenate([used, keys]), copy=False)
        return ~both.duplicated(keep="first").to_numpy()[len(used):]
    # Two plain sorts instead of a stable one (np.unique's return_index).
    keep = np.zeros(count, dtype=bool)
    if not count:
        return keep
    order = np.argsort(keys)  # ties in any order
    ordered = keys[order]
    head = np.ones(count, dtype=bool)  # where each key's run starts in `ordered`
    np.not_equal(ordered[1:], ordered[:-1], out=head[1:])
    # Each run's smallest position: (run, position) pairs packed in one integer and sorted
    # keep the runs where they are, each with its smallest position first.
    packed = np.sort((np.cumsum(head) - 1) * count + order)
    firsts = packed[head] % count
    if len(used):
        firsts = firsts[~in_sorted(ordered[head], np.sort(used))]
    keep[firsts] = True
    return keep
