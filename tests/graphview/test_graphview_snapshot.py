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


def _typed_snapshot(seed: int):
    """A snapshot of 30 unnamed entities and 400 random edges of four types, two displays
    and none (loops and repeated edges among them)."""
    size, types, displays = 30, ("treats", "interacts", "causes", "binds"), ("zeta", "a")
    source, target, type_, display = _random_edges(np.random.default_rng(seed), size, 400)
    display = np.minimum(display, 1)
    edges, start = fact_order(source, target, type_, display, types, displays, size)
    ids = np.array([f"e{at:02d}" for at in range(size)])
    return _indexed(ids, (None,) * size, ((),) * size, (("Thing",),),
                    np.zeros(size, dtype=np.int32), types, displays, source, target, type_,
                    display, edges, start)


def test_edges_of_type_are_the_typed_run_of_each_entitys_edges():
    snapshot = _typed_snapshot(5)
    size, types, type_ = len(snapshot.id_list), snapshot.types, snapshot.type
    for at in range(size):
        mine = snapshot.edges_of(at)
        for code in range(len(types)):
            expected = [e for e in mine.tolist() if type_[e] == code]
            assert snapshot.edges_of_type(at, code).tolist() == expected, (at, code)


def _small_snapshot():
    from kgcert.graphview.snapshot import fact_order

    ids = np.array(["Q1", "Q2", "Q3"], dtype=str)
    source = np.array([0, 1, 2], dtype=np.int32)
    target = np.array([1, 2, 0], dtype=np.int32)
    type_ = np.array([0, 1, 0], dtype=np.int32)
    display = np.array([-1, 0, -1], dtype=np.int32)
    types, displays = ("P17", "P31"), ("instance of – ünïcode",)
    edges, starts = fact_order(source, target, type_, display, types, displays, len(ids))
    return _indexed(ids, ("Zürich", None, "東京 \ud800"), (("Zuerich", "ZH"), (), ("Tōkyō",)),
                    (("place",), ("thing", "Ding ß")), np.array([0, 1, 0], dtype=np.int32),
                    types, displays, source, target, type_, display, edges, starts)


def test_a_stored_snapshot_reads_back_the_same_texts(tmp_path):
    """Names (None and a lone surrogate too), aliases, labels, types and displays are stored
    as UTF-8 bytes, not as a UCS-4 string four bytes a character, and read back the same."""
    from kgcert.graphview.snapshot import _read, _write

    snapshot = _small_snapshot()
    path = tmp_path / "snapshot.npz"
    _write(path, snapshot)
    with np.load(path) as data:
        assert data["names_utf8"].dtype == np.uint8 and "names" not in data.files
    back = _read(path)
    for field in ("names", "aliases", "labels", "types", "displays"):
        assert getattr(back, field) == getattr(snapshot, field), field
    assert back.ids.tolist() == snapshot.ids.tolist()
    assert np.array_equal(back.fact_edges, snapshot.fact_edges)


def test_a_snapshot_stored_before_utf8_texts_still_reads(tmp_path):
    """A cache file written with the texts as one UCS-4 string each (before) reads the same."""
    from kgcert.graphview.snapshot import _joined, _read

    snapshot = _small_snapshot()
    path = tmp_path / "old.npz"
    # Such a file never held a lone surrogate (a numpy string does not encode one).
    names = tuple(n.replace("\ud800", "") if n else n for n in snapshot.names)
    np.savez(path, ids=snapshot.ids, names=np.array(_joined(names)),
             named=np.array([n is not None for n in names], dtype=bool),
             aliases=np.array(_joined("\x01".join(a) for a in snapshot.aliases)),
             labels=np.array(_joined("\x01".join(s) for s in snapshot.labels)),
             label_set=snapshot.label_set, types=np.array(_joined(snapshot.types)),
             displays=np.array(_joined(snapshot.displays)), source=snapshot.source,
             target=snapshot.target, type=snapshot.type, display=snapshot.display,
             fact_edges=snapshot.fact_edges, fact_start=snapshot.fact_start,
             with_sentences=np.array(False))
    back = _read(path)
    assert back.names == names and back.aliases == snapshot.aliases
    assert back.labels == snapshot.labels and back.displays == snapshot.displays


def test_a_few_rows_made_an_edge_at_a_time_are_the_column_path_facts():
    """FactRows of up to FEW_ROWS edges are made from the columns' memory an edge at a time
    (`RowIndex.facts_at`): the same Facts, in the same order, as gathering the columns, for
    loops, repeated edges and edges with and without a display."""
    from kgcert.graphview.rows import FEW_ROWS, FactRows, RowIndex

    snapshot = _typed_snapshot(8)
    displays = snapshot.displays
    index = RowIndex.of(snapshot, ["Thing"])
    assert index.edge_columns is not None
    rng = np.random.default_rng(9)
    for count in [*range(FEW_ROWS + 3), 40]:
        picked = rng.choice(len(snapshot.source), size=count, replace=False).astype(np.int64)
        few = FactRows.of_edges(index, picked)
        whole = FactRows.of_edges(index, picked)
        by_columns = tuple(whole._made_of(*whole.columns(), whole.edges))
        assert few.all() == by_columns
        assert all(fact.display in (None, *displays) for fact in by_columns)
        at = rng.permutation(count)[:FEW_ROWS].astype(np.int64)
        assert FactRows.of_edges(index, picked).take(at) == [by_columns[i] for i in at]
