"""The synthetic KGs have the shape of the real ones at a small scale factor: node-type and
relation proportions, power-law degrees, and (Wikidata5m) texts that mention neighbours, and
they load with the real loaders (parsed here; tests/store/test_store.py loads one into a server)."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kgcert.loaders import LoadOptions, get_loader
from kgcert.store.cypher import sanitize_identifier
from kgcert.synth.primekg import NODE_COUNTS, RELATIONS, SyntheticPrimeKG
from kgcert.synth.wikidata5m import DROPPED, SyntheticWikidata5m, sizes

SCALE = 0.05  # ~405k rows; every relation above ~1,000 full-size rows keeps its exact count


@pytest.fixture(scope="module")
def primekg_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("synth") / "kg.csv"
    SyntheticPrimeKG(SCALE, seed=4).write_kg_csv(path)
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_primekg_counts_are_the_published_ones_scaled(primekg_csv):
    data = get_loader("primekg", LoadOptions()).read([primekg_csv])
    labels = {label: len(table.rows) for label, table in data.nodes.items()}
    # every node has an edge (kg.csv lists edges only)
    assert labels == {sanitize_identifier(t): round(c * SCALE) for t, c in NODE_COUNTS.items()}
    rows = Counter(line.split(",", 1)[0] for line in
                   primekg_csv.read_text(encoding="utf-8").splitlines()[1:])
    for relation, (_, x_type, y_type, full) in RELATIONS.items():
        wanted = 2 * max(1, round(full * SCALE / 2))
        n_x, n_y = round(NODE_COUNTS[x_type] * SCALE), round(NODE_COUNTS[y_type] * SCALE)
        possible = 2 * (n_x * (n_x - 1) // 2 if x_type == y_type else n_x * n_y)
        assert rows[relation] == min(wanted, possible), relation
    assert not data.problems.count


@pytest.mark.parametrize("relation", ["anatomy_protein_present", "protein_protein",
                                      "disease_phenotype_positive", "drug_effect"])
def test_primekg_degrees_are_skewed(relation):
    generator = SyntheticPrimeKG(SCALE, seed=4)
    _, _, x_type, y_type, xs, ys = next(f for f in generator.facts() if f[0] == relation)
    degrees = np.bincount(np.concatenate([xs, ys]) if x_type == y_type else xs)
    degrees = np.sort(degrees[degrees > 0])[::-1]
    # hubs (at this scale a hub's degree is capped at half its possible partners)
    assert degrees[0] >= 5 * np.median(degrees), relation
    top = max(1, len(degrees) // 10)
    assert degrees[:top].sum() >= 0.3 * degrees.sum(), relation  # a heavy tail
    assert len(set(zip(xs.tolist(), ys.tolist(), strict=True))) == len(xs)  # distinct facts


def test_primekg_is_deterministic_by_seed(primekg_csv, tmp_path):
    SyntheticPrimeKG(SCALE, seed=4).write_kg_csv(tmp_path / "same.csv")
    SyntheticPrimeKG(SCALE, seed=5).write_kg_csv(tmp_path / "other.csv")
    assert _digest(tmp_path / "same.csv") == _digest(primekg_csv)
    assert _digest(tmp_path / "other.csv") != _digest(primekg_csv)


WD_SCALE = 0.0005  # 2,297 entities, 10,307 triples


@pytest.fixture(scope="module")
def wikidata5m(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("synth-wd5m")
    SyntheticWikidata5m(WD_SCALE, seed=2).write(folder)
    return folder


def test_wikidata5m_sizes_are_the_published_ones():
    assert sizes(1.0).entities == 4_594_485 and sizes(1.0).relations == 822
    assert sizes(1.0).triples == 20_614_279


def test_wikidata5m_files_and_aliases(wikidata5m):
    triples = [line.split("\t") for line in
               (wikidata5m / "wikidata5m_all_triplet.txt").read_text().splitlines()]
    size = sizes(WD_SCALE)
    assert len(triples) == len({tuple(t) for t in triples}) == size.triples
    relations = Counter(rel for _, rel, _ in triples)
    assert relations.most_common(1)[0][0] == "P31"  # as in the real release
    assert set(DROPPED) <= set(relations)
    heads = np.array(sorted(Counter(h for h, _, _ in triples).values()))[::-1]
    assert heads[0] >= 10 * np.median(heads)
    entity_lines = (wikidata5m / "wikidata5m_alias" / "wikidata5m_entity.txt").read_text()
    alias_counts = Counter(len(line.split("\t")) - 1 for line in entity_lines.splitlines())
    assert sum(alias_counts.values()) == size.entities and set(alias_counts) == {1, 2, 3, 4}
    relation_lines = (wikidata5m / "wikidata5m_alias" / "wikidata5m_relation.txt").read_text()
    assert {len(line.split("\t")) - 1 for line in relation_lines.splitlines()} == {2, 3}


def test_wikidata5m_loads_and_texts_support_most_edges(wikidata5m):
    """The real loader finds supporting sentences by alias mention; it drops the facts no text
    mentions (15% by construction, more at hubs, whose abstracts mention at most 12
    neighbours) and the dropped relations."""
    loader = get_loader("wikidata5m", LoadOptions())
    data = loader.read(loader.source_files([wikidata5m]))
    total = sizes(WD_SCALE).triples
    kept = data.edge_count
    triples = (wikidata5m / "wikidata5m_all_triplet.txt").read_text().splitlines()
    undropped = sum(1 for line in triples if line.split("\t")[1] not in DROPPED)
    assert 0.5 * undropped <= kept <= 0.9 * undropped < total
    assert not set(DROPPED) & set(data.edges)
    # every kept edge carries a sentence that names one end by an alias of the other's
    table = next(iter(data.edges.values()))
    sentences = table.properties[0]["sentences"] if table.properties else None
    assert sentences and any(s.startswith("It is ") for s in sentences)


def test_wikidata5m_is_deterministic_by_seed(wikidata5m, tmp_path):
    SyntheticWikidata5m(WD_SCALE, seed=2).write(tmp_path)
    for name in ("wikidata5m_all_triplet.txt", "wikidata5m_text.txt"):
        assert _digest(tmp_path / name) == _digest(wikidata5m / name)
