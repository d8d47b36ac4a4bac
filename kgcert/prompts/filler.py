"""Tier 3 (filler) over the snapshot's rows: drawn, shuffled and de-duplicated as arrays.

A prompt draws up to `per_entity` edges of every entity involved (a relation DAG's
distractors among them: dozens of entities, thousands of edges), shuffles them and offers
each fact once, after tiers 1 and 2. The budget keeps a few dozen, so here the rows are drawn
and shuffled with the same random calls as the per-Fact path, de-duplicated on integer fact
keys (`RowIndex.fact_keys`), and become Fact objects only when the trim reaches them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

import numpy as np

from kgcert.prompts.context import LazyPending, Pending
from kgcert.prompts.rows import FactRows


class PendingRows(LazyPending):
    """Entry i: the fact of row `at[i]` of `sources[which[i]]`, as a Pending sentence."""

    def __init__(self, sources: Sequence[FactRows], which: np.ndarray, at: np.ndarray,
                 costs: np.ndarray | None = None) -> None:
        self.sources, self.which, self.at = sources, which, at
        self.costs = costs

    def __len__(self) -> int:
        return len(self.which)

    @overload
    def __getitem__(self, i: int) -> Pending: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[Pending]: ...

    def __getitem__(self, i: int | slice) -> Pending | Sequence[Pending]:
        if isinstance(i, slice):
            return list(self)[i]
        return Pending(self.sources[int(self.which[i])][int(self.at[i])])

    def __iter__(self) -> Iterator[Pending]:
        sources = self.sources
        for which, at in zip(self.which.tolist(), self.at.tolist(), strict=True):
            yield Pending(sources[which][at])


def draw_filler(sources: Sequence[FactRows], per_entity: int, used: np.ndarray,
                rng: np.random.Generator,
                costs_of: Callable[[FactRows], np.ndarray] | None = None) -> PendingRows:
    """Up to `per_entity` rows of each source (all when it has no more), in one seeded random
    order, each fact key once and none in `used` (the facts of tiers 1 and 2). `costs_of`
    gives each row's line cost, or a lower bound of it (-1: unknown)."""
    at, keys, costs = [], [], []
    for rows in sources:  # some 300 entities in a hub prompt: no array op that can be spared
        if len(rows) > per_entity:
            drawn = np.sort(rng.choice(len(rows), size=per_entity, replace=False))
            at.append(drawn)
            keys.append(rows.fact_keys()[drawn])
            if costs_of is not None:
                costs.append(costs_of(rows)[drawn])
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


def offer_rows(parts: Sequence[tuple[FactRows, np.ndarray]], used: np.ndarray,
               costs_of: Callable[[FactRows], np.ndarray] | None = None
               ) -> tuple[PendingRows, np.ndarray]:
    """Tier 2: the rows of `parts` (rows, positions) in order, each fact key once and none in
    `used`; and the fact keys offered."""
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return PendingRows([], empty, empty), empty
    sources = [rows for rows, _ in parts]
    which = np.repeat(np.arange(len(parts), dtype=np.int64), [len(at) for _, at in parts])
    at = np.concatenate([at for _, at in parts])
    keys = np.concatenate([rows.fact_keys()[at] for rows, at in parts])
    costs = (np.concatenate([costs_of(rows)[at] for rows, at in parts])
             if costs_of is not None else None)
    return _distinct(sources, which, at, keys, used, costs)


def _distinct(sources: Sequence[FactRows], which: np.ndarray, at: np.ndarray,
              keys: np.ndarray, used: np.ndarray, costs: np.ndarray | None
              ) -> tuple[PendingRows, np.ndarray]:
    """The entries whose fact key is not in `used` and not met earlier, in order."""
    first = np.zeros(len(keys), dtype=bool)
    first[np.unique(keys, return_index=True)[1]] = True  # a fact's first place in the order
    picked = np.flatnonzero(first & ~np.isin(keys, used))
    return (PendingRows(sources, which[picked], at[picked],
                        costs[picked] if costs is not None else None), keys[picked])
