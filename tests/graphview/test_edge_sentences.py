"""Edges' own sentences beside the snapshot: the pool round-trips, and on a synthetic Wikidata5m
with texts the snapshot gives the facts and prompts the per-entity reads give."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kg_helpers import load_kg

from kgcert.graphview import open_graph, pull
from kgcert.graphview.arrays import SENTENCE_CACHE_EDGES
from kgcert.graphview.edge_sentences import SentenceWriter, load
from kgcert.graphview.reads import ReadGraph
from kgcert.prompts import PromptBuilder, PromptSettings
from kgcert.specs import EntitySpec, load_spec_file, prepare_sampler
from kgcert.specs.generate import generate_entity_specs
from kgcert.store.graph import GraphStore
from kgcert.synth.wikidata5m import SyntheticWikidata5m


def _random_sentences(rng: np.random.Generator, count: int) -> list[list[str] | None]:
    words = ["alpha", "Ünïcode", "beta", "", "gamma delta", "\ud800x"]  # a lone surrogate too
    found: list[list[str] | None] = []
    for _ in range(count):
        size = int(rng.integers(0, 4))
        found.append(None if size == 0 and rng.random() < 0.5 else
                     [str(words[int(rng.integers(0, len(words)))]) for _ in range(size)])
    return found


@pytest.mark.parametrize("on_disk", [False, True])
def test_sentences_come_back_per_edge_in_stored_order(tmp_path: Path, on_disk: bool) -> None:
    rng = np.random.default_rng(4)
    edges = _random_sentences(rng, 300)
    writer = SentenceWriter(tmp_path if on_disk else None)
    for at, sentences in enumerate(edges):
        writer.add(sentences)
        if at % 70 == 69:
            writer.end_page()  # repeats across pages are written again
    stored = writer.finish()
    order = rng.permutation(len(edges))
    moved = stored.reordered(order)
    if on_disk:
        moved.save(tmp_path)
        moved = load(tmp_path)
    wanted = np.array([5, 0, 299, 5, 17], dtype=np.int64)
    assert moved.of_edges(wanted) == [tuple(edges[order[e]] or ()) for e in wanted.tolist()]
    assert moved.of_edges(np.arange(len(edges))) == [tuple(edges[i] or ()) for i in order]
    assert moved.of_edges(np.zeros(0, dtype=np.int64)) == []


def test_a_kg_without_sentences_writes_an_empty_pool(tmp_path: Path) -> None:
    writer = SentenceWriter(tmp_path)
    writer.add(None)
    stored = writer.finish()
    stored.save(tmp_path)
    assert load(tmp_path).of_edges(np.array([0])) == [()]


@pytest.fixture(scope="module")
def texts_kg(embedded_server, tmp_path_factory: pytest.TempPathFactory) -> GraphStore:
    folder = tmp_path_factory.mktemp("synth-w5m")
    SyntheticWikidata5m(0.0005, seed=11).write(folder)
    store, _ = load_kg(embedded_server, "wikidata5m", [folder], "edge_sentences_w5m",
                       settings={"unsupported_edges": "template"})
    return store


def test_snapshot_facts_are_the_reads_facts_sentences_included(texts_kg, tmp_path) -> None:
    snapshot = pull(texts_kg, tmp_path)
    assert snapshot is not None and snapshot.sentences is not None
    cached = pull(texts_kg, tmp_path)  # from the files: the pool mapped
    assert cached is not None and cached.sentences is not None
    reads = ReadGraph(texts_kg)
    entities = snapshot.id_list[::37]
    with_own = 0
    for graph in (open_graph(texts_kg, snapshot), open_graph(texts_kg, cached)):
        for entity in entities:
            facts = tuple(graph.adjacency(entity).facts)
            assert facts == tuple(reads.adjacency(entity).facts), entity
            with_own += sum(1 for fact in facts if fact.sentences)
    assert with_own > 0
    # Their Facts hold text: cached under the per-entity reads' bound, not the arrays' one.
    assert open_graph(texts_kg, snapshot).max_cached_edges == SENTENCE_CACHE_EDGES


@pytest.mark.parametrize("setting", ["vanilla", "distractor"])
def test_snapshot_prompts_are_the_reads_prompts(texts_kg, tmp_path, setting) -> None:
    written = generate_entity_specs(texts_kg, "w5m", tmp_path / "specs", count=2, rho=3,
                                    rule="degree", threshold=200, exclude=[], seed=1)
    spec = load_spec_file(written[0])
    assert isinstance(spec, EntitySpec)
    sampler = prepare_sampler(spec, texts_kg)
    snapshot = pull(texts_kg, tmp_path)
    assert snapshot is not None
    texts = []
    for graph in (ReadGraph(texts_kg), open_graph(texts_kg, snapshot)):
        builder = PromptBuilder(texts_kg, spec, sampler, seed=3,
                                settings=PromptSettings(setting=setting), graph=graph)
        texts.append([builder.build(index).text for index in range(8)])
    assert texts[0] == texts[1]
    assert any(texts[0])


def test_a_snapshot_names_entities_as_the_server_does(texts_kg, tmp_path) -> None:
    snapshot = pull(texts_kg, tmp_path)
    assert snapshot is not None
    ids = [*snapshot.id_list[::50], "Q-not-there"]
    named = open_graph(texts_kg, snapshot).stored_names(ids)
    assert named == ReadGraph(texts_kg).stored_names(ids)
    assert len(named) == len(ids) - 1


@pytest.mark.parametrize("few_facts", [0, 10**9])
def test_snapshot_neighbours_are_the_reads_neighbours_for_any_excluded_types(
        texts_kg, tmp_path, few_facts, monkeypatch) -> None:
    """Row neighbours keep each label's grouping and adjust it per excluded set (few_facts 0:
    every entity's), or group an entity's allowed facts afresh (every entity's): the answer
    must be the per-entity reads' whatever was asked before, and `merged_ids` must be the
    sorted union of their ids."""
    from itertools import combinations

    from kgcert.graphview import rows as row_module
    from kgcert.graphview.neighbours import Grouped, Neighbours, merged_ids

    monkeypatch.setattr(row_module, "FEW_FACTS", few_facts)

    snapshot = pull(texts_kg, tmp_path)
    assert snapshot is not None
    reads = ReadGraph(texts_kg)
    degree = np.diff(snapshot.fact_start)
    hubs = [snapshot.id_list[at] for at in np.argsort(-degree, kind="stable")[:3].tolist()]
    for backwards in (False, True):
        rows = open_graph(texts_kg, snapshot)
        for hub in hubs:
            types = sorted({fact.type for fact in reads.adjacency(hub).facts})[:4]
            sets = [frozenset(c) for size in range(3) for c in combinations(types, size)]
            for excluded in sets[::-1] if backwards else sets:
                for label in sorted({reads.label(fact.other(hub))
                                     for fact in reads.adjacency(hub).facts}):
                    got = rows.adjacency(hub).neighbours(label, excluded, rows.label)
                    want = reads.adjacency(hub).neighbours(label, excluded, reads.label)
                    assert [(k, tuple(v)) for k, v in got.items()] == list(want.items())
                    assert len(got) == len(want)
        label = reads.label(hubs[0])
        groups = [rows.adjacency(hub).neighbours(label, frozenset(), rows.label)
                  for hub in hubs]
        assert all(isinstance(group, Grouped if few_facts else Neighbours) for group in groups)
        left_out = [hubs[1], *list(groups[0])[:2], "no-such-entity"]
        want_ids = sorted(set().union(*(group.keys() for group in groups)) - set(left_out))
        assert list(merged_ids(groups, left_out)) == want_ids and want_ids
