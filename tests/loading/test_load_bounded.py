"""Loads in bounded memory: the Java heap sized from the machine, Wikidata5m held as columns and
written in parts, the edge batch closed in parts (figures: benchmarks/bench_load_memory.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from part_checks import check_edge_parts

from kgcert.loaders import LoadOptions, get_loader, wikidata5m_tables
from kgcert.loaders.wikidata5m_tables import ColumnEdges, ColumnNodes
from kgcert.loading.pipeline import load
from kgcert.store.arcade_bulk import EDGE_BATCH_EDGES
from kgcert.store.jvm_heap import HEAP_ENV, KGSize, choose_heap, kg_heap_bytes
from kgcert.synth.wikidata5m import SyntheticWikidata5m

GIB = 1 << 30


def test_the_heap_is_a_quarter_of_memory_within_bounds_unless_set() -> None:
    assert choose_heap({}, 8 * GIB).size == "2g"
    assert choose_heap({}, 2 * GIB).size == "1g"  # never below 1g
    assert choose_heap({}, 256 * GIB).size == "4g"  # nor above what a load needs
    chosen = choose_heap({}, 24 * GIB)
    assert chosen.size == "4g" and "24.0 GiB" in chosen.describe()
    assert HEAP_ENV in chosen.describe()  # says how to change it
    given = choose_heap({HEAP_ENV: "6g"}, 8 * GIB)
    assert given.size == "6g" and given.describe() == f"Java heap 6g (set by {HEAP_ENV})"
    assert choose_heap({}, 0).size == "4g" and "unknown" in choose_heap({}, 0).describe()



def test_a_load_sizes_the_heap_for_its_kg_within_the_machine_bound() -> None:
    """The JVM fills the heap it is given (its page cache alone takes a quarter), so a small
    KG gets a small heap: resident memory grows with the KG, not with the machine."""
    small = choose_heap({}, 24 * GIB, KGSize(nodes=60_000, edges=120_000))
    assert small.size == "640m"
    assert small.describe() == (
        f"Java heap 640m, sized for 60,000 nodes and 120,000 edges (never above 4g: a quarter "
        f"of 24.0 GiB memory, kept between 1g and 4g; {HEAP_ENV} overrides)")
    sizes = [choose_heap({}, 24 * GIB, KGSize(n, 2 * n)).size
             for n in (300_000, 1_000_000, 3_000_000)]
    assert sizes == ["640m", "1088m", "2560m"]  # grows with the KG (jvm_heap.py's figures)
    # The open edge batch is bounded, so edges past it add nothing; the machine bounds all.
    assert choose_heap({}, 24 * GIB, KGSize(3_000_000, 60_000_000)).size == "2560m"
    assert choose_heap({}, 64 * GIB, KGSize(30_000_000, 60_000_000)).size == "4g"
    assert choose_heap({}, 8 * GIB, KGSize(3_000_000, 6_000_000)).size == "2g"
    assert choose_heap({HEAP_ENV: "6g"}, 8 * GIB, KGSize(10, 10)).size == "6g"


def test_the_heap_rests_on_its_two_measured_ends() -> None:
    """jvm_heap.py's figures: the synthetic Wikidata5m at scale 0.1 loaded in 640m in both
    settings (the JVM commits whatever cap it is given), and at full size the heap stays at
    least what it was before (2560m with unsupported edges dropped, 2688m templated)."""
    mib = 1 << 20
    scale_01 = [KGSize(299_405, 612_916), KGSize(355_428, 1_316_299)]
    assert [choose_heap({}, 24 * GIB, kg).size for kg in scale_01] == ["640m", "640m"]
    full_size = {KGSize(2_994_050, 6_129_160): 2560, KGSize(3_554_280, 13_162_990): 2688}
    for kg, before in full_size.items():
        assert kg_heap_bytes(kg, EDGE_BATCH_EDGES) >= before * mib


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("w5m") / "synth"
    SyntheticWikidata5m(0.0005, seed=3).write(folder)
    return folder


@pytest.mark.parametrize("unsupported", ["drop", "template"])
def test_wikidata5m_tables_make_their_rows_part_by_part(synth: Path, unsupported: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    loader = get_loader("wikidata5m", LoadOptions(settings={"unsupported_edges": unsupported}))
    data = loader.read(loader.source_files([synth]))
    (nodes,) = data.nodes.values()
    assert isinstance(nodes, ColumnNodes)  # no list of rows held
    rows = nodes.rows
    parts = list(nodes.parts(7))
    assert all(len(p) <= 7 for p in parts) and [r for p in parts for r in p] == rows
    position = {row["id"]: at for at, row in enumerate(rows)}
    assert len(position) == len(rows) == data.node_count
    with_sentences = 0
    for table in data.edges.values():
        assert isinstance(table, ColumnEdges)
        parts = check_edge_parts(table)
        assert table.properties is not None
        with_sentences += sum(1 for x in table.properties if x)
        for part in parts:  # positions name the same nodes as the ids
            assert part.source_positions is not None and part.target_positions is not None
            assert [position[s] for s in part.sources] == part.source_positions.tolist()
            assert [position[t] for t in part.targets] == part.target_positions.tolist()
    assert with_sentences > 50
    if unsupported == "drop":
        assert with_sentences == data.edge_count
    # Only the sentences the edges read are held while the KG is written, in small parts.
    columns = nodes.columns
    assert columns.matched is not None and columns.pairs is not None
    assert len(columns.matched.pool) == len(set(columns.pairs.ids.tolist()))
    assert not len(columns.matched.mention_keys)
    monkeypatch.setattr(wikidata5m_tables, "SENTENCE_EDGE_PART", 3)
    largest = max(data.edges.values(), key=len)
    assert len(largest) > 3 and {len(p) for p in largest.parts()} <= {1, 2, 3}
    assert len(list(largest.parts())) == -(-len(largest) // 3)


def test_a_source_written_once_lets_go_of_its_node_columns(embedded_server, synth: Path) -> None:
    """`kgcert load` writes a source once, so what only the nodes read (texts, aliases,
    names: the largest columns) is let go of before the edges are written; the edges and
    the counts are unchanged, and a source written again (benchmarks) keeps everything."""
    from kgcert.loading.pipeline import read_source, store_source

    loader = get_loader("wikidata5m", LoadOptions(settings={"unsupported_edges": "template"}))
    kept = read_source(loader, [synth], "kept")
    store_source(embedded_server, kept, replace=True)
    (nodes,) = kept.data.nodes.values()
    assert isinstance(nodes, ColumnNodes) and nodes.rows  # still readable, to write again
    once = read_source(loader, [synth], "once")
    store_source(embedded_server, once, replace=True, written_once=True)
    (released,) = once.data.nodes.values()
    assert isinstance(released, ColumnNodes) and released.columns.texts is None
    with pytest.raises(RuntimeError, match="released"):
        next(released.parts())
    assert once.data.counts() == kept.data.counts()
    assert _content(embedded_server.open("once")) == _content(embedded_server.open("kept"))


def _content(store) -> tuple[list, list]:
    nodes = store.query("MATCH (n:WikidataEntity) RETURN n.id AS id, n.name AS name, "
                        "n.aliases AS aliases, n.description AS description ORDER BY id")
    edges = store.query("MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS s, b.id AS d, "
                        "r.sentences AS sentences ORDER BY t, s, d")
    return ([tuple(sorted(n.items())) for n in nodes],
            sorted(tuple(sorted((k, str(v)) for k, v in e.items())) for e in edges))


def test_small_parts_and_edge_batches_write_the_same_kg(
        embedded_server, synth: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The edge batch is closed and reopened every EDGE_BATCH_EDGES edges, so its close never
    holds every edge's incoming list in the heap (the full Wikidata5m ran a 4 GB heap out
    at that close); nodes and edges cross in parts. The KG written is the same."""
    from kgcert.store import arcade_bulk

    loader = get_loader("wikidata5m", LoadOptions())
    load(embedded_server, loader, [synth], "whole", replace=True)
    closes: list[int] = []
    close = arcade_bulk.ArcadeBulkWriter._close_edge_batch

    def counted(writer: arcade_bulk.ArcadeBulkWriter) -> None:
        if writer._edges is not None:
            closes.append(writer._edges_in_batch)
        close(writer)

    monkeypatch.setattr(arcade_bulk.ArcadeBulkWriter, "_close_edge_batch", counted)
    monkeypatch.setattr(arcade_bulk, "EDGE_BATCH_EDGES", 40)
    monkeypatch.setattr(arcade_bulk, "NODE_CHUNK", 11)
    result = load(embedded_server, loader, [synth], "parts", replace=True)
    edges = result.manifest.counts["edges"]
    assert len(closes) >= 3 and sum(closes) == edges
    assert _content(embedded_server.open("parts")) == _content(embedded_server.open("whole"))


def test_rows_with_list_values_cross_as_json_and_store_the_same(
        embedded_server, synth: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Aliases and sentences are lists, which the library sends value by value; the writer
    sends such rows as JSON through the library's own helpers. The KG is the same."""
    from kgcert.store import arcade_bulk

    asked: list[str] = []
    bridge = arcade_bulk._bridge

    def seen(name: str) -> object:
        asked.append(name)
        return bridge(name)

    loader = get_loader("wikidata5m", LoadOptions())
    monkeypatch.setattr(arcade_bulk, "_bridge", seen)
    load(embedded_server, loader, [synth], "as-json", replace=True)
    assert {"VertexBatcher", "EdgeBatcher"} <= set(asked)
    monkeypatch.setattr(arcade_bulk, "_bridge", lambda name: None)  # the library's own path
    load(embedded_server, loader, [synth], "by-value", replace=True)
    assert _content(embedded_server.open("as-json")) == \
        _content(embedded_server.open("by-value"))
