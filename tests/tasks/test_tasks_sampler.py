"""The task sampler on a small hand-built KG: ego graphs against networkx, parallel edges,
filters, caps, pruning, both readers, and uniform shortest paths."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
from kg_helpers import load_kg

from kgcert.errors import InputError
from kgcert.tasks import CachedView, CypherView, TaskGenerator, parse_task_spec
from kgcert.tasks.neighbourhood import KGView
from kgcert.tasks.sampler import build_subgraph, sample_shortest_path
from kgcert.tasks.shortest_path import render_labels
from kgcert.tasks.spec import SamplingParams
from kgcert.util.rng import sample_rng

TRIPLES = [
    ("a", "likes", "b"), ("a", "knows", "b"), ("b", "likes", "a"),  # parallel, both ways
    ("a", "likes", "a"),  # self-loop
    ("b", "knows", "c"), ("c", "likes", "d"), ("d", "likes", "e"), ("e", "knows", "f"),
    ("c", "knows", "g"), ("g", "likes", "e"), ("f", "likes", "a"),
    ("h", "likes", "i"),  # a second component
]
# a 3x3 grid: 6 shortest paths between opposite corners
GRID = [(f"g{r}{c}", "next", f"g{r}{c + 1}") for r in range(3) for c in range(2)] + [
    (f"g{r}{c}", "below", f"g{r + 1}{c}") for r in range(2) for c in range(3)]
ALL = TRIPLES + GRID


@pytest.fixture(scope="module")
def tiny(graph_server, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("tiny-kg")
    path = folder / "tiny.csv"
    path.write_text("head,relation,tail\n" + "".join(f"{h},{r},{t}\n" for h, r, t in ALL))
    store, _ = load_kg(graph_server, "triples", [Path(path)], "tasks_tiny")
    return store


def _oracle() -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for head, rel, tail in ALL:
        graph.add_edge(head, tail, relation=rel)
    return graph


def _ego_oracle(centres: list[str], radius: int) -> Counter[tuple[str, str, str]]:
    graph = _oracle()
    members: set[str] = set()
    for centre in centres:
        members |= set(nx.ego_graph(graph, centre, radius=radius, undirected=True))
    sub = graph.subgraph(members)
    return Counter((h, d["relation"], t) for h, t, d in sub.edges(data=True))


def _params(**changes) -> SamplingParams:
    base = {"seed_entities": 1, "radius": 1, "min_degree": 1, "max_degree": None,
            "max_edges": 10_000, "core_label": "Thing"}
    return SamplingParams(**{**base, **changes})


def _triples(view: KGView, centres: list[str], radius: int) -> Counter[tuple[str, str, str]]:
    return Counter((e.head, e.type, e.tail) for e in view.ego_edges(centres, radius).edges)


@pytest.mark.parametrize("centres", [["a"], ["c"], ["a", "h"], ["g11"], ["d", "g00"]])
@pytest.mark.parametrize("radius", [1, 2, 3])
def test_ego_graphs_match_networkx(tiny, centres: list[str], radius: int) -> None:
    expected = _ego_oracle(centres, radius)
    assert _triples(CachedView(tiny), centres, radius) == expected
    assert _triples(CypherView(tiny), centres, radius) == expected


def test_parallel_edges_and_self_loops_survive(tiny) -> None:
    rng = sample_rng(0, "test", 0)
    sampled = build_subgraph(CachedView(tiny), _params(), rng, ["a"])
    pairs = Counter((e.source, e.target) for e in sampled.subgraph.edges)
    assert pairs[("a", "b")] == 2 and pairs[("b", "a")] == 1 and pairs[("a", "a")] == 1
    relations = sorted(e.relation for e in sampled.subgraph.edges
                       if (e.source, e.target) == ("a", "b"))
    assert relations == ["knows", "likes"]
    assert len({e.id for e in sampled.subgraph.edges}) == len(sampled.subgraph.edges)
    assert "a|likes|b|0" in {e.id for e in sampled.subgraph.edges}


def test_readers_agree_and_cache_is_bounded(tiny) -> None:
    small = CachedView(tiny, max_cached_edges=3)
    server = CypherView(tiny)
    for centre in ["a", "c", "g00", "h", "g22", "e"]:
        for radius in (1, 2):
            mine, theirs = small.ego_edges([centre], radius), server.ego_edges([centre], radius)
            assert mine.edges == theirs.edges and mine.entities == theirs.entities
            assert (mine.heads == theirs.heads).all() and (mine.tails == theirs.tails).all()
            assert small.neighbours([centre]) == server.neighbours([centre])
    assert small.cached_edges <= len(ALL)


def test_filters_caps_and_pruning(tiny) -> None:
    graph = _oracle()
    for i in range(40):
        rng = sample_rng(1, "test", i)
        params = _params(radius=2, min_degree=2, max_degree=3, max_edges=5)
        centre = sorted(graph)[i % len(graph)]
        sampled = build_subgraph(CachedView(tiny), params, rng, [centre])
        ego = _ego_oracle([centre], 2)
        kept = Counter((e.source, e.relation, e.target) for e in sampled.subgraph.edges)
        assert not kept - ego  # a sub-multiset of the ego graph
        assert sum(kept.values()) <= 5
        degree_in_ego: Counter[str] = Counter()
        for (h, _, t), n in ego.items():
            degree_in_ego[h] += n
            degree_in_ego[t] += n
        degree: Counter[str] = Counter()
        for e in sampled.subgraph.edges:
            assert degree_in_ego[e.source] >= 2 and degree_in_ego[e.target] >= 2
            degree[e.source] += 1
            degree[e.target] += 1
        assert max(degree.values(), default=0) <= 3
        assert {n.id for n in sampled.subgraph.nodes} == set(degree)
        assert sampled.stages["ego"] == sum(ego.values())


def test_pruning_keeps_the_planted_path(tiny) -> None:
    path = ["g00", "g01", "g11", "g21", "g22"]
    for i in range(10):
        sampled = build_subgraph(CachedView(tiny), _params(max_edges=4, max_degree=1),
                                 sample_rng(2, "test", i), ["g00"], path=path)
        hops = {frozenset((e.source, e.target)) for e in sampled.subgraph.edges}
        assert hops == {frozenset(p) for p in zip(path, path[1:], strict=False)}
        assert len(sampled.protected) == 4


def test_core_entities_degree_filter(tiny) -> None:
    graph = _oracle()
    view = CypherView(tiny)
    for floor in (1, 2, 3):
        expected = sorted(n for n in graph if graph.degree(n) >= floor)
        assert view.core_entities("Thing", floor) == expected


def test_shortest_paths_are_uniform(tiny) -> None:
    view = CachedView(tiny)
    seen: Counter[tuple[str, ...]] = Counter()
    for i in range(1200):
        path = sample_shortest_path(view, "g00", "g22", sample_rng(3, "test", i))
        assert path is not None and len(path) == 5
        seen[tuple(path)] += 1
    expected = {tuple(p) for p in nx.all_shortest_paths(_oracle().to_undirected(), "g00", "g22")}
    assert set(seen) == expected and len(expected) == 6
    assert all(140 <= n <= 260 for n in seen.values()), seen  # 200 expected, sd ~ 13


def test_shortest_path_either_direction_and_unreachable(tiny) -> None:
    view = CypherView(tiny)
    rng = sample_rng(4, "test", 0)
    # the only 2-hop route from a to e walks f -> a and e -> f against their direction
    assert sample_shortest_path(view, "a", "e", rng) == ["a", "f", "e"]
    assert sample_shortest_path(view, "a", "h", rng) is None
    assert sample_shortest_path(view, "a", "a", rng) == ["a"]


def test_generator_on_a_users_kg(tiny) -> None:
    raw = {"kind": "task", "task": "shortest_path", "description": "grid paths",
           "instances": 4, "sampling": {"seed_entities": 2, "radius": 1,
                                        "core_label": "Thing", "max_edges": 6}}
    spec = parse_task_spec(raw)
    generator = TaskGenerator(tiny, spec, seed=5)
    undirected = _oracle().to_undirected()
    for instance in generator.instances():
        d = instance.details
        assert d["length"] == nx.shortest_path_length(undirected, d["source"], d["target"])
        assert instance.answers
        assert len(instance.subgraph.edges) <= 6


def test_every_shortest_path_is_an_answer(tiny) -> None:
    raw = {"kind": "task", "task": "shortest_path", "description": "all paths count",
           "sampling": {"seed_entities": 2, "radius": 1, "core_label": "Thing",
                        "max_edges": 100}}
    generator = TaskGenerator(tiny, parse_task_spec(raw), seed=6)
    several = 0
    for instance in generator.instances(count=30):
        d = instance.details
        graph = nx.MultiGraph()
        for e in instance.subgraph.edges:
            graph.add_edge(e.source, e.target)
        name = {n.id: n.name for n in instance.subgraph.nodes}
        expected = {render_labels([name[n] for n in p])
                    for p in nx.all_shortest_paths(graph, d["source"], d["target"])}
        assert set(instance.answers) == expected
        several += len(expected) > 1
    assert several >= 3


@pytest.mark.parametrize("changes, message", [
    ({"seed_entities": 500}, "the spec needs 500 seeds"),
    ({"core_label": "Planet"}, "type 'Planet'"),
])
def test_too_few_core_entities(tiny, changes: dict, message: str) -> None:
    raw = {"kind": "task", "task": "triple_retrieval", "description": "too many seeds",
           "sampling": {"core_label": "Thing", **changes}}
    with pytest.raises(InputError, match=message):
        TaskGenerator(tiny, parse_task_spec(raw), seed=0).instance(0)
