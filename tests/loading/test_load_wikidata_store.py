"""Wikidata-family loads in the graph server, counted by `kg_info` against the raw files."""

from __future__ import annotations

import pandas as pd
from kg_helpers import load_kg

from kgcert.cli.kg_counts import kg_info

DROPPED = {"P31", "P279", "P361", "P2184", "P2633"}


def test_countries_keeps_every_fact(graph_server, shared_data):
    folder = shared_data / "countries"
    store, _ = load_kg(graph_server, "wikidatasets", [folder], "countries")
    edges = pd.concat([pd.read_csv(folder / f, sep="\t", dtype=str)
                       for f in ("edges.tsv", "attributes.tsv")])
    referenced = set(edges.headEntity) | set(edges.tailEntity)
    info = kg_info(store)
    assert info["relationships"] == len(edges) == 63_313  # parallel edges and self-loops too
    assert info["nodes"] == len(referenced)
    loops = store.value("MATCH (n:Entity{{:kg}})-[r]->(n) RETURN count(r)")
    assert loops == int((edges.headEntity == edges.tailEntity).sum())


def test_wikidata5m_countries_with_the_default_filter(graph_server, shared_data):
    folder = shared_data / "wikidata5m_countries"
    store, result = load_kg(graph_server, "wikidata5m", [folder], "wd5m_countries")
    triples = pd.read_csv(folder / "wikidata5m_all_triplet.txt", sep="\t", header=None,
                          names=["h", "r", "t"], dtype=str).drop_duplicates()
    kept = triples[~triples.r.isin(DROPPED)]
    info = kg_info(store)
    assert info["relationships"] == len(kept)
    assert info["nodes"] == len(set(kept.h) | set(kept.t))
    assert info["relationship_types"] == kept.r.value_counts().to_dict()
    assert any("no wikidata5m_text.txt" in note for note in result.manifest.notes)
    country = store.query("MATCH (r:KgcertRelation{{:kg}} {type: 'P17'}) RETURN r.name AS n")
    assert country == [{"n": "country"}]


def test_wikidata5m_text_sample_attaches_split_texts(graph_server, shared_data):
    folder = shared_data / "wikidata5m_text_sample"
    store, _ = load_kg(graph_server, "wikidata5m", [folder], "wd5m_text")
    texts = pd.read_csv(folder / "wikidata5m_text.txt", sep="\t", header=None, quoting=3,
                        names=["qid", "text"], dtype=str).drop_duplicates("qid")
    assert kg_info(store)["nodes"] == len(texts) == 1000
    row = store.query("MATCH (n:Entity{{:kg}} {id: 'Q957142'}) "
                      "RETURN n.name AS name, n.description AS d, n.sentences AS s")[0]
    assert row["name"] == "Mariana Pimentel"
    assert row["d"].startswith("Mariana Pimentel is a municipality")
    assert len(row["s"]) == 2 and row["s"][1].startswith("It is located")
