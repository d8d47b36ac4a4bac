"""Edge tables are pulled in pages of source ids without DISTINCT (one DISTINCT over the full
PrimeKG's 2.67M drug_drug rows exceeds the embedded server's in-heap limit) and deduplicated
in numpy: the result must equal the server's own DISTINCT query, page size regardless."""

from __future__ import annotations

import numpy as np
import pytest
from kg_helpers import load_kg

from kgcert.specs.edge_tables import PairTable, _pull, _source_pages
from kgcert.store.cypher import named
from kgcert.synth.primekg import SyntheticPrimeKG


def _as_set(table: PairTable) -> set[tuple[str, str]]:
    return {(str(table.ids[s]), str(table.ids[t]))
            for s, t in zip(table.sources.tolist(), table.targets.tolist(), strict=True)}


def _distinct(store, source: str, rel: str, target: str) -> set[tuple[str, str]]:
    rows = store.query(named("specs", "edge_pairs_distinct", source=source, rel=rel,
                             target=target))
    return {(str(row["s"]), str(row["t"])) for row in rows}


def _check_sorted_and_distinct(table: PairTable) -> None:
    keys = table.sources * len(table.ids) + table.targets
    assert (np.diff(keys) > 0).all()  # (source, target) order, every pair once


@pytest.fixture(scope="module")
def parallel(graph_server):
    """Three drugs and parallel edges of one type: DISTINCT matters here."""
    store = graph_server.create("tables_parallel")
    store.execute(
        "CREATE (a:Entity:drug{{:kg}} {id: 'a'}), (b:Entity:drug{{:kg}} {id: 'b'}), "
        "(c:Entity:drug{{:kg}} {id: 'c'}), (d:Entity:disease{{:kg}} {id: 'd'}), "
        "(a)-[:drug_drug]->(b), (a)-[:drug_drug]->(b), (a)-[:drug_drug]->(c), "
        "(c)-[:drug_drug]->(a), (c)-[:drug_drug]->(a), (c)-[:drug_drug]->(b), "
        "(a)-[:indication]->(d), (a)-[:indication]->(d)")
    yield store
    graph_server.drop("tables_parallel")


@pytest.mark.parametrize("page", [1, 2, 3, 100])
def test_parallel_edges_counted_once_at_any_page_size(parallel, page):
    table = _pull(parallel, "drug", "drug_drug", "drug", page=page)
    assert _as_set(table) == _distinct(parallel, "drug", "drug_drug", "drug") == {
        ("a", "b"), ("a", "c"), ("c", "a"), ("c", "b")}
    assert len(table) == 4
    _check_sorted_and_distinct(table)
    assert len(_pull(parallel, "Entity", "indication", "disease", page=page)) == 1


def test_pages_cover_every_source_once(parallel):
    assert _source_pages(parallel, "drug", 2) == [("a", "b"), ("c", "c")]
    assert _source_pages(parallel, "drug", 3) == [("a", "c")]
    assert _source_pages(parallel, "exposure", 3) == []  # no such label: no pages, no rows


@pytest.fixture(scope="module")
def synthetic(graph_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth-tables")
    SyntheticPrimeKG(scale=0.003, seed=11).write_kg_csv(folder / "kg.csv")
    store, _ = load_kg(graph_server, "primekg", [folder / "kg.csv"], "synth_tables")
    return store


@pytest.mark.parametrize(("source", "rel", "target"), [
    ("drug", "drug_drug", "drug"), ("disease", "indication", "drug"),
    ("anatomy", "anatomy_protein_present", "gene__protein"),
    ("Entity", "disease_protein", "Entity"),
])
def test_paged_pull_equals_the_distinct_query(synthetic, source, rel, target):
    expected = _distinct(synthetic, source, rel, target)
    assert len(expected) > 20  # several pages of 7 sources below
    for page in (7, 100_000):
        table = _pull(synthetic, source, rel, target, page=page)
        assert _as_set(table) == expected
        assert len(table) == len(expected)
        _check_sorted_and_distinct(table)
