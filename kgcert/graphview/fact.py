"""A KG edge as prompts see it (`Fact`), and one entity's edges in a fixed order (`Adjacency`).

Every list of facts is in `fact_order` (type, source id, target id, display), so what a prompt
sees never depends on the server's row order or on which prompts came before. Two kinds of
adjacency give the same facts in the same order: `Adjacency`, built from Fact objects (the
per-entity reads), and `kgcert.graphview.rows.RowAdjacency`, over the KG snapshot's arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple, overload


class Fact(NamedTuple):
    """One stored edge, in its stored direction. `sentences` are its own supporting sentences
    (Wikidata5m with texts); when there are none its relation's template is used. A named
    tuple: a prompt makes thousands of them, and a named tuple is cheaper to make than a frozen
    dataclass."""

    source: str
    type: str
    target: str
    display: str | None = None
    sentences: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.source, self.type, self.target, self.display or "")

    @property
    def fact_key(self) -> tuple[str, str, str, str]:
        """The same for both directions of a fact that the KG stores twice (PrimeKG stores
        every fact both ways): such pairs say one thing, so a context shows one of them."""
        source, target = self.source, self.target
        if source <= target:
            return (source, self.type, target, self.display or "")
        return (target, self.type, source, self.display or "")

    def other(self, entity: str) -> str:
        return self.target if self.source == entity else self.source

    def as_triple(self) -> tuple[str, str, str]:
        return (self.source, self.type, self.target)


@dataclass(frozen=True)
class Adjacency:
    """One entity's edges, both directions, sorted; also grouped by relationship type."""

    entity: str
    facts: tuple[Fact, ...]
    by_type: dict[str, tuple[Fact, ...]]
    # label -> `neighbours(label, frozenset())`: a hub's grouping is worked out once, and
    # each prompt's excluded types (its path's relations) only adjust the few it touches
    _by_label: dict[str, dict[str, tuple[Fact, ...]]] = field(
        default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, entity: str, facts: Iterable[Fact]) -> Adjacency:
        return cls.ordered(entity, tuple(sorted(set(facts), key=fact_order)))

    @classmethod
    def ordered(cls, entity: str, facts: tuple[Fact, ...]) -> Adjacency:
        """From facts already distinct and in `fact_order`."""
        grouped: dict[str, list[Fact]] = {}
        for fact in facts:
            grouped.setdefault(fact.type, []).append(fact)
        return cls(entity, facts, {t: tuple(fs) for t, fs in grouped.items()})

    def of_type(self, rel_type: str) -> Sequence[Fact]:
        return self.by_type.get(rel_type, ())

    def outgoing(self, rel_type: str) -> list[Fact]:
        return [f for f in self.by_type.get(rel_type, ()) if f.source == self.entity]

    def outgoing_to(self, rel_type: str, target: str) -> list[Fact]:
        return [f for f in self.outgoing(rel_type) if f.target == target]

    def outgoing_rows(self, rel_type: str) -> list[Fact]:
        """`outgoing` (the name `RowAdjacency` gives its rows of them)."""
        return self.outgoing(rel_type)

    def incoming_rows(self, rel_type: str) -> list[Fact]:
        """The facts of `rel_type` into the entity (a loop too), in order."""
        return [f for f in self.by_type.get(rel_type, ()) if f.target == self.entity]

    def allowed(self, excluded: frozenset[str]) -> Sequence[Fact]:
        """The facts whose type is not in `excluded`, in order: `facts` less the runs of
        those types (facts are sorted by type first), seen through, not copied (a hub's are
        thousands, and a prompt draws a few of them)."""
        if not excluded:
            return self.facts
        runs = self._type_runs
        if runs is None:  # facts not grouped by type: filtered one by one
            return tuple(f for f in self.facts if f.type not in excluded)
        cut = sorted(runs[t] for t in excluded if t in runs)
        return WithoutRuns(self.facts, cut) if cut else self.facts

    @cached_property
    def _type_runs(self) -> dict[str, tuple[int, int]] | None:
        """Per type, where its one run of `facts` starts and ends; None when a type has
        several runs."""
        runs: dict[str, tuple[int, int]] = {}
        start = 0
        for at in range(1, len(self.facts) + 1):
            if at == len(self.facts) or self.facts[at].type != self.facts[start].type:
                if self.facts[start].type in runs:
                    return None
                runs[self.facts[start].type] = (start, at)
                start = at
        return runs

    def neighbours(self, label: str, excluded: frozenset[str],
                   label_of: Callable[[str], str]) -> dict[str, tuple[Fact, ...]]:
        """The other ends with `label` (never the entity itself) of the allowed facts, sorted
        by id, each with its facts in order. Not to be changed by the caller (it may be the
        grouping kept for every later call)."""
        every = self._by_label.get(label)
        if every is None:
            every = self._by_label[label] = self._grouped(label, label_of)
        if not excluded:
            return every
        # Only the ends of excluded facts can lose facts; the others keep theirs as they are.
        touched = {fact.other(self.entity) for rel_type in excluded
                   for fact in self.by_type.get(rel_type, ())}
        touched.intersection_update(every)
        if not touched:
            return every
        found = dict(every)  # insertion order stays sorted by id, deletions keep it so
        for other in touched:
            kept = tuple(fact for fact in every[other] if fact.type not in excluded)
            if kept:
                found[other] = kept
            else:
                del found[other]
        return found

    def _grouped(self, label: str, label_of: Callable[[str], str]
                 ) -> dict[str, tuple[Fact, ...]]:
        found: dict[str, list[Fact]] = {}
        for fact in self.facts:
            other = fact.other(self.entity)
            if other != self.entity and label_of(other) == label:
                found.setdefault(other, []).append(fact)
        return {other: tuple(facts) for other, facts in sorted(found.items())}


class WithoutRuns(Sequence[Fact]):
    """`facts` without the index ranges `runs` (sorted, disjoint), as a sequence."""

    def __init__(self, facts: tuple[Fact, ...], runs: list[tuple[int, int]]) -> None:
        self.facts, self.runs = facts, runs
        self.size = len(facts) - sum(end - start for start, end in runs)

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Fact: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Fact]: ...

    def __getitem__(self, index: int | slice) -> Fact | Sequence[Fact]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError("fact index out of range")
        for start, end in self.runs:  # each run before the position shifts it on
            if index < start:
                break
            index += end - start
        return self.facts[index]

    def __iter__(self) -> Iterator[Fact]:
        at = 0
        for start, end in self.runs:
            yield from self.facts[at:start]
            at = end
        yield from self.facts[at:]


def fact_order(fact: Fact) -> tuple[str, str, str, str, tuple[str, ...]]:
    return (fact.type, fact.source, fact.target, fact.display or "", fact.sentences)
