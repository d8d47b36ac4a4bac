"""The snapshot's per-entity fact order against a plain per-entity sort."""

from __future__ import annotations

import numpy as np

from kgcert.graphview.snapshot import _indexed, fact_order


def _expected(source, target, type_, display, types, displays, size):
    """Per entity: its edges both ways, sorted by (type name, source, target, display text),
    one edge per distinct (source, target, type, display), a loop once."""
    per_entity = []
    for at in range(size):
        seen, rows = set(), []
        for edge in range(len(source)):
            if at not in (source[edge], target[edge]):
                continue
            fact = (source[edge], target[edge], type_[edge], display[edge])
            if fact in seen:
                continue
            seen.add(fact)
            shown = displays[display[edge]] if display[edge] >= 0 else ""
            rows.append(((types[type_[edge]], source[edge], target[edge], shown), fact))
        per_entity.append([fact for _, fact in sorted(rows)])
    return per_entity


def _random_edges(rng: np.random.Generator, size: int, count: int):
    # Few entities, types and displays: loops, repeated edges and ties on every key occur.
    source = rng.integers(0, size, count).astype(np.int32)
    target = rng.integers(0, size, count).astype(np.int32)
    target[:20] = source[:20]  # loops
    source[20:40], target[20:40] = source[40:60], target[40:60]  # edges stored twice
    order = np.argsort(source, kind="stable")  # sorted by source, as a snapshot keeps them
    source, target = source[order], target[order]
    type_ = rng.integers(0, 4, count).astype(np.int32)
    display = rng.integers(-1, 3, count).astype(np.int32)
    return source, target, type_, display


def test_fact_order_is_each_entitys_sorted_distinct_edges():
    rng = np.random.default_rng(3)
    size, count = 30, 400
    # Few entities, types and displays: loops, repeated edges and ties on every key occur.
    source = rng.integers(0, size, count).astype(np.int32)
    target = rng.integers(0, size, count).astype(np.int32)
    target[:20] = source[:20]  # loops
    source[20:40], target[20:40] = source[40:60], target[40:60]  # edges stored twice
    type_ = rng.integers(0, 4, count).astype(np.int32)
    display = rng.integers(-1, 3, count).astype(np.int32)
    types = ("treats", "interacts", "causes", "binds")  # codes not in name order
    displays = ("zeta", "alpha", "mu")
    edges, start = fact_order(source, target, type_, display, types, displays, size)
    expected = _expected(source, target, type_, display, types, displays, size)
    assert start[0] == 0 and start[-1] == len(edges)
    for at in range(size):
        mine = edges[start[at]:start[at + 1]]
        got = [(source[e], target[e], type_[e], display[e]) for e in mine]
        assert got == expected[at], at


def test_fact_order_of_no_edges():
    empty = np.zeros(0, dtype=np.int32)
    edges, start = fact_order(empty, empty, empty, empty, (), (), 3)
    assert len(edges) == 0 and list(start) == [0, 0, 0, 0]


def test_edges_of_type_are_the_typed_run_of_each_entitys_edges():
    size, types, displays = 30, ("treats", "interacts", "causes", "binds"), ("zeta", "a")
    source, target, type_, display = _random_edges(np.random.default_rng(5), size, 400)
    display = np.minimum(display, 1)
    edges, start = fact_order(source, target, type_, display, types, displays, size)
    ids = np.array([f"e{at:02d}" for at in range(size)])
    snapshot = _indexed(ids, (None,) * size, ((),) * size, (("Thing",),),
                        np.zeros(size, dtype=np.int32), types, displays, source, target,
                        type_, display, edges, start)
    for at in range(size):
        mine = snapshot.edges_of(at)
        for code in range(len(types)):
            expected = [e for e in mine.tolist() if type_[e] == code]
            assert snapshot.edges_of_type(at, code).tolist() == expected, (at, code)
