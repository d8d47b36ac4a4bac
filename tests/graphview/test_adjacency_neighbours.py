"""`Adjacency.neighbours` keeps each label's grouping and adjusts it for excluded types: the
answer must be what grouping the allowed facts afresh gives, whatever was asked before."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from kgcert.graphview.fact import Adjacency, Fact
from kgcert.graphview.neighbours import _union

LABELS = {"hub": "place", "a": "place", "b": "person", "c": "place", "d": "place"}


def _facts() -> list[Fact]:
    return [
        Fact("hub", "P1", "a"), Fact("hub", "P2", "a"), Fact("hub", "P1", "c"),
        Fact("hub", "P3", "b"), Fact("d", "P2", "hub"), Fact("d", "P3", "hub"),
        Fact("hub", "P2", "hub"),  # a loop: never its own neighbour
        Fact("c", "P3", "hub", sentences=("C points at the hub.",)),
    ]


def _afresh(adjacency: Adjacency, label: str,
            excluded: frozenset[str]) -> dict[str, tuple[Fact, ...]]:
    found: dict[str, list[Fact]] = {}
    for fact in adjacency.facts:
        other = fact.other(adjacency.entity)
        if fact.type not in excluded and other != adjacency.entity and LABELS[other] == label:
            found.setdefault(other, []).append(fact)
    return {other: tuple(facts) for other, facts in sorted(found.items())}


def test_neighbours_match_a_fresh_grouping_for_every_excluded_set_in_any_order():
    types = ("P1", "P2", "P3", "P9")
    excluded_sets = [frozenset(c) for size in range(len(types) + 1)
                     for c in combinations(types, size)]
    for order in (excluded_sets, excluded_sets[::-1]):  # the grouping kept first or later
        adjacency = Adjacency.of("hub", _facts())
        for label in ("place", "person", "nothing"):
            for excluded in order:
                got = adjacency.neighbours(label, excluded, LABELS.__getitem__)
                want = _afresh(adjacency, label, excluded)
                assert list(got.items()) == list(want.items()), (label, sorted(excluded))


def test_the_kept_grouping_is_not_changed_by_an_excluded_answer():
    adjacency = Adjacency.of("hub", _facts())
    every = adjacency.neighbours("place", frozenset(), LABELS.__getitem__)
    before = dict(every)
    fewer = adjacency.neighbours("place", frozenset({"P1"}), LABELS.__getitem__)
    assert "c" in every and "c" in fewer and fewer["c"] != every["c"]
    assert every == before and list(every) == ["a", "c", "d"]
    assert adjacency.neighbours("place", frozenset(), LABELS.__getitem__) is every


def test_allowed_facts_are_the_filtered_facts_seen_through():
    """`allowed` leaves out the excluded types' runs without copying: length, iteration,
    indexing (negative too) and slices all agree with filtering the facts one by one."""
    import pytest

    from kgcert.graphview.fact import WithoutRuns

    adjacency = Adjacency.of("hub", _facts())
    types = ("P1", "P2", "P3", "P9")
    for size in range(len(types) + 1):
        for excluded in map(frozenset, combinations(types, size)):
            got = adjacency.allowed(excluded)
            want = tuple(f for f in adjacency.facts if f.type not in excluded)
            assert len(got) == len(want) and tuple(got) == want
            assert [got[i] for i in range(len(want))] == list(want)
            assert [got[-i] for i in range(1, len(want) + 1)] == [want[-i] for i in
                                                                   range(1, len(want) + 1)]
            assert tuple(got[1:3]) == want[1:3]
            with pytest.raises(IndexError):
                got[len(want)]
            if excluded & {"P1", "P2", "P3"}:
                assert isinstance(got, WithoutRuns)
    unsorted = Adjacency("hub", (Fact("hub", "P1", "a"), Fact("hub", "P2", "a"),
                                 Fact("hub", "P1", "c")), {})
    assert tuple(unsorted.allowed(frozenset({"P2"}))) == (Fact("hub", "P1", "a"),
                                                          Fact("hub", "P1", "c"))


def test_union_of_sorted_runs_is_what_sorting_them_together_gives():
    rng = np.random.default_rng(7)
    for trial in range(300):
        count = int(rng.integers(0, 5))
        runs = [np.unique(rng.integers(0, 60, int(rng.integers(0, 40)))) for _ in range(count)]
        if trial % 7 == 0 and runs:  # one run holding all the others' values
            runs.append(np.unique(np.concatenate(runs)))
        expected = np.unique(np.concatenate(runs)) if runs else np.zeros(0, dtype=np.int64)
        assert _union(runs).tolist() == expected.tolist()
