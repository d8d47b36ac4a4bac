"""A relation spec's answer set, found in the KG snapshot instead of asked of the server.

The same set as the compiled `answers_cypher()` (tests check the two agree): every entity
bound to the answer variable by a match of the pattern with the question's variables fixed,
where a match has every pattern edge, the variables' labels, the `<>` constraints of the
compiled spec (variables of one label, or of the label Entity, bind distinct entities) and
none of the `absent` edges. Cypher's rule that one relationship binds one pattern edge adds
nothing here: two pattern edges on the same relationship would bind the same two entities,
which those constraints already forbid for entities of one type label (PrimeKG's).

A backtracking search from the fixed variables: each next variable is one joined by a pattern
edge to a bound one, its candidates the intersection of the bound neighbours' edge lists.
A prompt's answer set is one or a few entities, so this is a handful of array slices, where
the server round trip cost milliseconds. Each neighbour list is kept sorted and distinct
(a hub drug's thousands of drug_drug partners recur from prompt to prompt), so a membership
or an intersection with a short list is a binary search, not a sort.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

import numpy as np

from kgcert.graphview.snapshot import GraphSnapshot, in_sorted
from kgcert.specs.compile import CompiledRelationSpec
from kgcert.specs.schema import ENTITY

CACHED_NEIGHBOURS = 4_000_000  # ids kept in neighbour lists before the cache is emptied


class AnswerFinder:
    """`answers(given ids by variable)` for one compiled spec over one snapshot."""

    def __init__(self, snapshot: GraphSnapshot, compiled: CompiledRelationSpec) -> None:
        self.snapshot = snapshot
        self.compiled = compiled
        codes = {name: code for code, name in enumerate(snapshot.types)}
        self._edges = [(e.source, codes.get(e.rel_type), e.target) for e in compiled.edges]
        self._absent = [(e.source, codes.get(e.rel_type), e.target) for e in compiled.absent]
        labels = compiled.labels
        self._distinct = {frozenset((a, b)) for a, b in combinations(compiled.order, 2)
                          if ENTITY in (labels[a], labels[b]) or labels[a] == labels[b]}
        self._label_ok = {var: self._with_label(label) for var, label in labels.items()}
        # Per variable, those it must differ from; and whether a pattern edge loops on it.
        self._apart = {var: [other for other in compiled.order
                             if frozenset((var, other)) in self._distinct]
                       for var in compiled.order}
        self._loops = {s for s, _, t in self._edges if s == t}
        self._lists: dict[tuple[int, int, bool], np.ndarray] = {}
        self._listed = 0

    def _with_label(self, label: str) -> np.ndarray | None:
        """Per entity, whether it has `label` (None: every entity does)."""
        if label == ENTITY:
            return None
        snapshot = self.snapshot
        per_set = np.array([label in labels for labels in snapshot.labels], dtype=bool)
        return per_set[snapshot.label_set] if len(per_set) else np.zeros(0, dtype=bool)

    def _neighbours(self, at: int, code: int | None, outgoing: bool) -> np.ndarray:
        """The other ends of entity `at`'s `code` edges in one direction: sorted, distinct."""
        if code is None:
            return np.zeros(0, dtype=np.int32)
        key = (at, code, outgoing)
        found = self._lists.get(key)
        if found is None:
            snapshot = self.snapshot
            if outgoing:
                start, end = snapshot.out_start[at], snapshot.out_start[at + 1]
                ends = snapshot.target[start:end][snapshot.type[start:end] == code]
            else:
                edges = snapshot.in_order[snapshot.in_start[at]:snapshot.in_start[at + 1]]
                ends = snapshot.source[edges][snapshot.type[edges] == code]
            if self._listed > CACHED_NEIGHBOURS:
                self._lists.clear()
                self._listed = 0
            found = self._lists[key] = np.unique(ends)
            self._listed += len(found)
        return found

    def answers(self, given: dict[str, str]) -> tuple[str, ...]:
        """Every correct answer's id, sorted."""
        snapshot = self.snapshot
        bound: dict[str, int] = {}
        for var, entity in given.items():
            at = snapshot.position(entity)
            ok = self._label_ok[var]
            if at is None or (ok is not None and not ok[at]):
                return ()
            bound[var] = at
        if not self._consistent(bound):
            return ()
        found: set[int] = set()
        self._search(bound, found)
        ids = snapshot.id_list
        return tuple(sorted(ids[at] for at in found))

    def _consistent(self, bound: dict[str, int]) -> bool:
        for a, b in combinations(bound, 2):
            if bound[a] == bound[b] and frozenset((a, b)) in self._distinct:
                return False
        return all(self._has_edge(bound[s], code, bound[t])
                   for s, code, t in self._edges if s in bound and t in bound)

    def _has_edge(self, source: int, code: int | None, target: int) -> bool:
        ends = self._neighbours(source, code, True)
        at = int(np.searchsorted(ends, target))
        return at < len(ends) and int(ends[at]) == target

    def _search(self, bound: dict[str, int], found: set[int]) -> None:
        answer = self.compiled.answer
        if answer in bound and bound[answer] in found:
            return  # this answer is known: other completions add nothing
        free = [var for var in self.compiled.order if var not in bound]
        if not free:
            if not any(self._has_edge(bound[s], code, bound[t]) for s, code, t in self._absent):
                found.add(bound[answer])
            return
        var = next((v for v in free if self._joins(v, bound)), free[0])
        if len(free) == 1 and not self._absent and var not in self._loops:
            # The last variable: its candidates have every edge to the bound ones, and edges
            # among those were checked when they were bound. Only distinctness is left.
            taken = {bound[other] for other in self._apart[var]}
            fits = [c for c in self._candidates(var, bound) if c not in taken]
            if var == answer:
                found.update(fits)
            elif fits:
                found.add(bound[answer])
            return
        for candidate in self._candidates(var, bound):
            bound[var] = candidate
            if self._consistent(bound):
                self._search(bound, found)
            del bound[var]

    def _joins(self, var: str, bound: dict[str, int]) -> bool:
        return any((s == var and t in bound) or (t == var and s in bound)
                   for s, _, t in self._edges)

    def _candidates(self, var: str, bound: dict[str, int]) -> Iterable[int]:
        sets = [self._neighbours(bound[t], code, False) for s, code, t in self._edges
                if s == var and t in bound]
        sets += [self._neighbours(bound[s], code, True) for s, code, t in self._edges
                 if t == var and s in bound]
        if sets:
            sets.sort(key=len)  # from the shortest: each further list is a binary search
            candidates = sets[0]
            for other in sets[1:]:
                if not len(candidates) or not len(other):
                    candidates = candidates[:0]
                    break
                candidates = candidates[in_sorted(candidates, other)]
        else:  # a pattern not joined to the bound variables: every entity (never in PrimeKG)
            candidates = np.arange(len(self.snapshot.ids))
        ok = self._label_ok[var]
        if ok is not None:
            candidates = candidates[ok[candidates]]
        return candidates.tolist()
