"""The samplers draw exactly the distributions their specs state (goodness-of-fit tests).

On a small synthetic PrimeKG-shaped graph every match (or valid path) is enumerated
independently of the sampler (by the server's Cypher for relation specs, by networkx for
entity specs); 20,000 draws are compared with the exact distribution by a chi-square test at
alpha = 0.001. A deliberately biased sampler (start node, then a random neighbour, as the
reference implementation did) is rejected by the same test, which shows the test has power.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from scipy.stats import chisquare

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import load
from kgcert.specs import EntitySampler, RelationSampler, compile_relation_spec
from kgcert.specs.edge_tables import TableCache
from kgcert.specs.model import EntitySpec, RelationSpec, parse_spec
from kgcert.specs.schema import KGSchema
from kgcert.synth.primekg import SyntheticPrimeKG

ALPHA = 0.001
DRAWS = 20_000
TEMPLATES = [f"Question {i} about {{a}}?" for i in range(5)]

# One pattern per shape the shipped specs use, on the synthetic graph's relations.
SHAPES = {
    "v": ("(a:disease)-[:indication]->(d:drug)<-[:indication]-(b:disease)", "d"),
    "chain": ("(a:disease)-[:disease_protein]->(g:`gene/protein`)-[:drug_protein]->(d:drug)", "d"),
    "chain4": ("(a:disease)-[:indication]->(d:drug)<-[:drug_drug]-(e:drug)"
               "<-[:indication]-(b:disease)", "d"),
    "star3": ("(a:disease)-[:indication]->(d:drug)<-[:indication]-(b:disease), "
              "(c:disease)-[:indication]->(d)", "d"),
    "cycle": ("(m:drug)-[:indication]->(a:disease)-[:disease_phenotype_positive]->"
              "(p:`effect/phenotype`)-[:disease_phenotype_positive]->(x:disease), "
              "(m)-[:contraindication]->(x)", "x"),
    "absent": ("(a:disease)-[:indication]->(d:drug)<-[:indication]-(b:disease)", "d"),
}


def _spec(shape: str) -> RelationSpec:
    pattern, answer = SHAPES[shape]
    first = pattern[1]  # every pattern starts with its first variable
    data = {
        "kind": "relation", "name": f"test.{shape}", "description": "test shape",
        "pattern": pattern, "answer": answer,
        "templates": [t.replace("{a}", "{" + first + "}") for t in TEMPLATES],
    }
    if shape == "absent":
        data["absent"] = ["(d)-[:contraindication]->(a)"]
    spec = parse_spec(data, shape)
    assert isinstance(spec, RelationSpec)
    return spec


@pytest.fixture(scope="module")
def synthetic_store(embedded_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("synth-sampling")
    SyntheticPrimeKG(scale=0.003, seed=3).write_kg_csv(folder / "kg.csv")
    load(embedded_server, get_loader("primekg", LoadOptions()), [folder / "kg.csv"],
         "synth_sampling", replace=True)
    return embedded_server.open("synth_sampling")


def _chi_square(observed: Counter, expected_probability: dict) -> float:
    assert set(observed) <= set(expected_probability), "sampler drew something impossible"
    keys = sorted(expected_probability)
    total = sum(observed.values())
    f_obs = np.array([observed.get(k, 0) for k in keys], dtype=float)
    f_exp = np.array([expected_probability[k] * total for k in keys])
    return float(chisquare(f_obs, f_exp).pvalue)


def _enumerated(store, compiled) -> list[tuple[str, ...]]:
    rows = store.query(compiled.enumerate_cypher())
    return [tuple(str(row[v]) for v in compiled.order) for row in rows]


@pytest.mark.parametrize("mode", ["table", "rejection"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_relation_sampler_is_uniform_over_matches(synthetic_store, shape, mode):
    compiled = compile_relation_spec(_spec(shape), KGSchema.read(synthetic_store))
    matches = _enumerated(synthetic_store, compiled)
    assert 2 <= len(matches) <= DRAWS // 5, f"{shape}: {len(matches)} matches; adjust the graph"
    limit = 10**9 if mode == "table" else 0
    sampler = RelationSampler(compiled, TableCache(synthetic_store, None), enumerate_limit=limit)
    assert (sampler.table is not None) == (mode == "table")
    draws = Counter(tuple(sampler.sample(11, i).nodes[v] for v in compiled.order)
                    for i in range(DRAWS))
    p_value = _chi_square(draws, {m: 1 / len(matches) for m in matches})
    assert p_value > ALPHA, f"{shape}/{mode}: uniformity rejected (p = {p_value:.2g})"
    if mode == "table":
        assert len(sampler.table) == len(matches)


def _start_then_neighbour(matches: list[tuple[str, ...]], rng: np.random.Generator) -> tuple:
    """The reference's scheme: a uniform start entity, then each next variable uniform among
    the values that still complete a match (a random neighbour), with no reweighting."""
    chosen: tuple[str, ...] = ()
    candidates = matches
    for position in range(len(matches[0])):
        values = sorted({m[position] for m in candidates})
        pick = values[int(rng.integers(len(values)))]
        chosen += (pick,)
        candidates = [m for m in candidates if m[position] == pick]
    return chosen


@pytest.mark.parametrize("shape", ["chain4", "cycle"])
def test_biased_sampler_is_rejected(synthetic_store, shape):
    compiled = compile_relation_spec(_spec(shape), KGSchema.read(synthetic_store))
    matches = _enumerated(synthetic_store, compiled)
    rng = np.random.default_rng(5)
    draws = Counter(_start_then_neighbour(matches, rng) for _ in range(DRAWS))
    p_value = _chi_square(draws, {m: 1 / len(matches) for m in matches})
    assert p_value < ALPHA, f"the biased sampler passed (p = {p_value:.2g}): the test lacks power"


def test_same_seed_same_samples_in_any_order(synthetic_store):
    compiled = compile_relation_spec(_spec("chain4"), KGSchema.read(synthetic_store))
    for limit in (10**9, 0):
        first = RelationSampler(compiled, TableCache(synthetic_store, None), enumerate_limit=limit)
        again = RelationSampler(compiled, TableCache(synthetic_store, None), enumerate_limit=limit)
        forward = [first.sample(3, i).nodes for i in range(50)]
        backward = [again.sample(3, i).nodes for i in reversed(range(50))][::-1]
        assert forward == backward  # resume at any index, any batch order: same samples
        assert forward != [first.sample(4, i).nodes for i in range(50)]


def test_cached_tables_give_the_same_samples(synthetic_store, tmp_path):
    compiled = compile_relation_spec(_spec("cycle"), KGSchema.read(synthetic_store))
    cold = TableCache(synthetic_store, tmp_path)
    fresh = RelationSampler(compiled, cold)
    assert cold.pulled == len(compiled.edges)
    warm = TableCache(synthetic_store, tmp_path)
    cached = RelationSampler(compiled, warm)
    assert warm.pulled == 0  # every table came from disk
    assert [fresh.sample(1, i).nodes for i in range(100)] == [
        cached.sample(1, i).nodes for i in range(100)]


# -- entity-centric ---------------------------------------------------------------------------

def _full_graph(store) -> nx.MultiDiGraph:
    graph = nx.MultiDiGraph()
    for row in store.query("MATCH (s:Entity)-[r]->(t:Entity) RETURN s.id AS s, type(r) AS r, "
                           "t.id AS t"):
        if not graph.has_edge(row["s"], row["t"], key=row["r"]):
            graph.add_edge(row["s"], row["t"], key=row["r"])
    return graph


def _valid_paths(graph: nx.MultiDiGraph, pivot: str, hops: int) -> dict[tuple, float]:
    """Valid paths with their random-walk weight (product of 1/out-degree), by brute force."""
    found: dict[tuple, float] = {}

    def reach(relations: list[str]) -> set[str]:
        current = {pivot}
        for rel in relations:
            current = {t for u in current for _, t, k in graph.out_edges(u, keys=True) if k == rel}
        return current

    def extend(nodes: list[str], relations: list[str], weight: float) -> None:
        if len(relations) == hops:
            if len(reach(relations)) == 1:
                found[(tuple(nodes), tuple(relations))] = weight
            return
        out = list(graph.out_edges(nodes[-1], keys=True))
        for _, target, rel in out:
            if target not in nodes:
                extend([*nodes, target], [*relations, rel], weight / len(out))

    extend([pivot], [], 1.0)
    return found


def _write_toy_paths_kg(path: Path, seed: int = 4) -> None:
    """A Wikidata-like toy KG: mostly functional relations (one target) plus a few
    many-valued ones, so unique-answer paths of several hops exist but are not all paths."""
    rng = np.random.default_rng(seed)
    nodes = [f"E{i}" for i in range(60)]
    lines = ["head,relation,tail"]
    for head in nodes:
        for rel in ("capital", "leader", "founder", "located_in"):
            if rng.random() < 0.5:
                lines.append(f"{head},{rel},{nodes[int(rng.integers(60))]}")
        for rel in ("borders", "member_of"):
            if rng.random() < 0.3:
                for tail in rng.choice(60, size=int(rng.integers(2, 4)), replace=False):
                    lines.append(f"{head},{rel},{nodes[int(tail)]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def entity_setup(embedded_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("toy-paths")
    _write_toy_paths_kg(folder / "toy.csv")
    load(embedded_server, get_loader("triples", LoadOptions()), [folder / "toy.csv"],
         "toy_paths", replace=True)
    store = embedded_server.open("toy_paths")
    graph = _full_graph(store)
    return store, graph


@pytest.mark.parametrize("paths", ["uniform", "random_walk"])
def test_entity_sampler_draws_the_stated_path_distribution(entity_setup, paths):
    store, graph = entity_setup
    pivot, table = None, {}
    for node in sorted(graph, key=lambda n: (-graph.out_degree(n), n)):
        table = {hops: _valid_paths(graph, node, hops) for hops in (1, 2, 3)}
        if all(3 <= len(t) <= 400 for t in table.values()):
            pivot = node
            break
    assert pivot is not None, "no suitable pivot in the toy graph"
    spec = parse_spec({"kind": "entity", "name": "test.paths", "description": "test",
                       "pivots": [pivot], "rho": 4, "paths": paths}, "test")
    assert isinstance(spec, EntitySpec)
    sampler = EntitySampler(spec, store)
    expected: dict[tuple, float] = {}
    for hops_table in table.values():
        total = sum(hops_table.values())
        for key, weight in hops_table.items():
            share = (1 / len(hops_table)) if paths == "uniform" else weight / total
            expected[key] = share / len(table)
    draws: Counter = Counter()
    for i in range(DRAWS):
        sample = sampler.sample(21, i)
        draws[(sample.nodes, sample.relations)] += 1
    p_value = _chi_square(draws, expected)
    assert p_value > ALPHA, f"{paths}: stated path distribution rejected (p = {p_value:.2g})"
    if paths == "random_walk":  # power: the same draws do not pass for the other law
        uniform = {key: 1 / len(t) / len(table) for t in table.values() for key in t}
        assert _chi_square(draws, uniform) < ALPHA


def test_uniqueness_uses_the_whole_graph(entity_setup):
    """Every sampled path's relation sequence reaches exactly one entity over all edges."""
    store, graph = entity_setup
    pivots = sorted(graph, key=lambda n: (-graph.out_degree(n), n))[:3]
    spec = parse_spec({"kind": "entity", "name": "test.unique", "description": "test",
                       "pivots": pivots, "rho": 3}, "test")
    assert isinstance(spec, EntitySpec)
    sampler = EntitySampler(spec, store)
    by_pivot = defaultdict(list)
    for i in range(200):
        sample = sampler.sample(2, i)
        by_pivot[sample.pivot].append(sample)
        reached = {sample.pivot}
        for rel in sample.relations:
            reached = {t for u in reached for _, t, k in graph.out_edges(u, keys=True) if k == rel}
        assert reached == {sample.nodes[-1]}
        assert len(set(sample.nodes)) == len(sample.nodes)
    assert len(by_pivot) == 3


def test_samples_do_not_depend_on_the_servers_row_order(synthetic_store, monkeypatch):
    compiled = compile_relation_spec(_spec("chain4"), KGSchema.read(synthetic_store))
    forward = RelationSampler(compiled, TableCache(synthetic_store, None), enumerate_limit=0)
    stream, rows = type(synthetic_store).stream, type(synthetic_store).rows

    def reversed_rows(self, cypher, **params):
        return iter(list(stream(self, cypher, **params))[::-1])

    def reversed_tuples(self, cypher, **params):
        return iter(list(rows(self, cypher, **params))[::-1])

    monkeypatch.setattr(type(synthetic_store), "stream", reversed_rows)
    monkeypatch.setattr(type(synthetic_store), "rows", reversed_tuples)  # edge tables read these
    backward = RelationSampler(compiled, TableCache(synthetic_store, None), enumerate_limit=0)
    assert [forward.sample(5, i).nodes for i in range(200)] == [
        backward.sample(5, i).nodes for i in range(200)]
