"""The shipped PrimeKG specs on the real PrimeKG extracts, and generated entity specs on the
countries KG: which specs apply where, and every sample a real match of its spec.

Samples are checked without the sampler's own machinery: each drawn DAG by a Cypher query
assembled here from the spec's parsed pattern, its answer against the compiled answer-set
query, and, where the match set is small enough to pull, the sampler's whole match table
against the compiled enumeration query. Entity paths are checked hop by hop on the server and
their uniqueness recomputed level by level with Cypher.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from kg_helpers import load_kg

from kgcert.errors import InputError
from kgcert.specs import (
    EntitySampler,
    EntitySpec,
    RelationSampler,
    RelationSpec,
    load_spec_file,
    prepare_sampler,
)
from kgcert.specs.folders import is_suite_file
from kgcert.specs.generate import generate_entity_specs
from kgcert.specs.pattern import PatternEdge
from kgcert.specs.server_count import answer_pages, count_on_server
from kgcert.store.cypher import escape_identifier, sanitize_identifier
from kgcert.store.graph import GraphStore

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "specs" / "primekg").glob("*.yaml")
                 if not is_suite_file(p))  # table1.yaml is a suite of these specs
SAMPLES = 20
PULL_LIMIT = 50_000  # pull the whole match set from the server up to this many matches

EXTRACTS: dict[str, list[str]] = {
    "alzheimer": ["primekg/kg_alzheimer_neighbourhood.csv"],
    "drug_protein_a": ["primekg/kg_drug_protein_a.csv"],
    "diabetes": ["primekg/diabetes_export"],
}

# What each shipped spec finds in each extract: its number of matches (the sampler's
# enumerated count, equal to the server's Cypher count), or why it has none.
EXPECTED: dict[str, dict[str, int | str]] = {
    "alzheimer": {
        "primekg.contraindication_indication": 40,
        "primekg.drug_contraindication": 35_291,
        "primekg.dual_indication": 90,
        "primekg.exposure_drug": 2_228,
        # the extract has no drug_protein rows (README: 13 relations, none of them drug_protein)
        "primekg.gene_target": "unknown relationship type drug_protein",
        "primekg.off_label": 10,
        # no drug is indicated for one phenotype-bearing disease and contraindicated in another:
        # the extract's phenotype rows hang off a few hub diseases (Alzheimer, Lewy body
        # dementia, type 1/2 diabetes, ...) and no indication/contraindication pair joins them
        "primekg.phenotype_contraindication": "no matches",
        "primekg.phenotype_diagnosis": 1_213_260,
        "primekg.side_effect_indication": 28,
        # the extract has no drug_drug rows
        "primekg.synergistic": "unknown relationship type drug_drug",
    },
    # drug -> gene/protein rows only: every spec names a disease, exposure or phenotype node,
    # and the first label the pattern names that the extract lacks is reported
    "drug_protein_a": {
        "primekg.contraindication_indication": "unknown label disease",
        "primekg.drug_contraindication": "unknown label disease",
        "primekg.dual_indication": "unknown label disease",
        "primekg.exposure_drug": "unknown label exposure",
        "primekg.gene_target": "unknown label disease",
        "primekg.off_label": "unknown label disease",
        "primekg.phenotype_contraindication": "unknown label disease",
        "primekg.phenotype_diagnosis": "unknown label effect/phenotype",
        "primekg.side_effect_indication": "unknown label disease",
        "primekg.synergistic": "unknown label disease",
    },
    # the diabetes export has all the relations the specs use (drug_drug and drug_protein too)
    "diabetes": {
        "primekg.contraindication_indication": 95,
        "primekg.drug_contraindication": 22_159,
        "primekg.dual_indication": 166,
        "primekg.exposure_drug": 6_041,
        "primekg.gene_target": 666,
        "primekg.off_label": 8,
        "primekg.phenotype_contraindication": 8,
        "primekg.phenotype_diagnosis": 1_038_132,
        "primekg.side_effect_indication": 992,
        "primekg.synergistic": 10_440,
    },
}


def _outcome(error: InputError) -> str:
    message = str(error)
    unknown = re.search(r"unknown (label|relationship type) '([^']+)'", message)
    if unknown:
        return f"unknown {unknown.group(1)} {unknown.group(2)}"
    # either no tree-shaped candidate, or every one breaks injectivity or a closing edge:
    # which of the two depends on the spanning tree the sampler picks, not on the KG
    if re.fullmatch(r"spec \S+ has no matches in this KG( \(every candidate breaks "
                    r"injectivity or a constraint\))?", message):
        return "no matches"
    return message  # anything else is unexpected and shows in full in the table


@dataclass
class Extract:
    store: GraphStore
    samplers: dict[str, RelationSampler] = field(default_factory=dict)
    outcomes: dict[str, int | str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def specs() -> dict[str, RelationSpec]:
    loaded = {}
    for path in SHIPPED:
        spec = load_spec_file(path)
        assert isinstance(spec, RelationSpec)
        loaded[spec.name] = spec
    return loaded


@pytest.fixture(scope="module")
def extracts(embedded_server, shared_data: Path, alzheimer_kg, specs) -> dict[str, Extract]:
    prepared = {}
    for name, parts in EXTRACTS.items():
        if name == "alzheimer":  # the session's shared read-only copy of that extract
            store = alzheimer_kg.store
        else:
            store, _ = load_kg(embedded_server, "primekg", [shared_data / p for p in parts],
                               f"specs_{name[:3]}")
        extract = Extract(store)
        for spec_name, spec in specs.items():
            try:
                sampler = prepare_sampler(spec, store)
            except InputError as error:
                extract.outcomes[spec_name] = _outcome(error)
                continue
            assert isinstance(sampler, RelationSampler)
            count = sampler.count()
            assert count.matches is not None, f"{spec_name} on {name} was not enumerated"
            extract.samplers[spec_name] = sampler
            extract.outcomes[spec_name] = count.matches
        prepared[name] = extract
    return prepared


def test_shipped_specs_exist():
    """A new shipped spec needs its row in EXPECTED for every extract."""
    assert [p.stem for p in SHIPPED] == [
        "contraindication_indication", "drug_contraindication", "dual_indication",
        "exposure_drug", "gene_target", "off_label", "phenotype_contraindication",
        "phenotype_diagnosis", "side_effect_indication", "synergistic"]


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_spec_validates_file_level(path):
    spec = load_spec_file(path)
    assert isinstance(spec, RelationSpec)
    assert spec.name == f"primekg.{path.stem}"
    assert spec.kg == "primekg"
    graph = spec.graph()
    assert graph.sinks() == [spec.answer]
    assert all(label is not None for label in graph.labels.values())
    assert len(spec.templates) >= 5
    # the question names some of the other variables (exposure_drug and synergistic keep an
    # intermediate node hidden), never the answer
    assert spec.given() and set(spec.given()) <= set(graph.labels) - {spec.answer}


@pytest.mark.parametrize("extract", list(EXTRACTS))
def test_which_specs_apply_to_which_extract(extracts, extract):
    assert extracts[extract].outcomes == EXPECTED[extract]


def _verify_cypher(spec: RelationSpec) -> str:
    """Drawn DAGs ($rows: the variables' ids and an index i), checked against the parsed
    pattern rather than the compiled Cypher: returns the i of each row whose labels and edges
    are all in the KG (and none of its absent edges)."""
    graph = spec.graph()
    bound: set[str] = set()

    def node(var: str) -> str:
        if var in bound:
            return f"({var})"
        bound.add(var)
        label = escape_identifier(sanitize_identifier(graph.labels[var] or "Entity"))
        return f"({var}:{label} {{id: row.{var}}})"

    def rel(edge: PatternEdge) -> str:
        return escape_identifier(sanitize_identifier(edge.rel_type))

    paths = [f"{node(e.source)}-[:{rel(e)}]->{node(e.target)}" for e in graph.edges]
    absent = [f"NOT ({e.source})-[:{rel(e)}]->({e.target})" for e in spec.absent_edges()]
    where = f" WHERE {' AND '.join(absent)}" if absent else ""
    return f"UNWIND $rows AS row MATCH {', '.join(paths)}{where} RETURN DISTINCT row.i AS i"


@pytest.mark.parametrize("extract", ["alzheimer", "diabetes"])
def test_every_sample_is_a_match_with_its_answer_among_the_correct_ones(extracts, extract):
    prepared = extracts[extract]
    assert prepared.samplers, "no spec has matches here"
    for name, sampler in prepared.samplers.items():
        compiled = sampler.compiled
        spec = compiled.spec
        order, given_vars = list(compiled.order), compiled.given
        # correct answers per question (the given variables' ids), from the pulled match set
        correct: dict[tuple[str, ...], set[str]] | None = None
        if prepared.outcomes[name] <= PULL_LIMIT:
            matches = {tuple(str(row[v]) for v in order)
                       for row in prepared.store.query(compiled.enumerate_cypher())}
            assert sampler.table is not None
            table = {tuple(str(sampler.ids[p]) for p in row) for row in sampler.table}
            assert table == matches, f"{name}: sampler's matches differ from the server's"
            correct = defaultdict(set)
            for match in matches:
                bound = dict(zip(order, match, strict=True))
                correct[tuple(bound[v] for v in given_vars)].add(bound[compiled.answer])
        samples = [sampler.sample(0, index) for index in range(SAMPLES)]
        rows = [{**sample.nodes, "i": sample.index} for sample in samples]
        verified = {row["i"] for row in prepared.store.query(_verify_cypher(spec), rows=rows)}
        assert verified == set(range(SAMPLES)), f"{name}: samples that are not matches"
        for index, sample in enumerate(samples):
            nodes = sample.nodes
            where = f"{name} #{index} {nodes}"
            assert sample.index == index and sample.spec == name
            assert sorted(nodes) == sorted(spec.graph().labels), where
            assert len(set(nodes.values())) == len(nodes), f"{where}: not injective"
            question = tuple(nodes[v] for v in given_vars)
            answers = {row["id"] for row in prepared.store.query(
                compiled.answers_cypher(), **dict(zip(given_vars, question, strict=True)))}
            assert nodes[compiled.answer] in answers, f"{where}: answer not among the correct"
            if correct is not None:
                assert answers == correct[question], f"{where}: answer set"


# The server-side count of phenotype_diagnosis (about a million matches) takes 5-15 s per
# extract on a shared 2-core machine, so those two run as their own tests, marked slow;
# test_phenotype_triples_counted_in_closed_form checks the same counts quickly, another way.
BIG = "primekg.phenotype_diagnosis"


@pytest.mark.parametrize(("extract", "big"), [
    ("alzheimer", False), ("diabetes", False),
    pytest.param("alzheimer", True, marks=pytest.mark.slow),
    pytest.param("diabetes", True, marks=pytest.mark.slow),
], ids=["alzheimer", "diabetes", "alzheimer-phenotype_diagnosis", "diabetes-phenotype_diagnosis"])
def test_enumerated_counts_equal_the_server_counts(extracts, extract, big):
    """The sampler counts its matches from edge tables; the server counts the compiled Cypher."""
    prepared = extracts[extract]
    names = [BIG] if big else [name for name in sorted(prepared.samplers) if name != BIG]
    counted = {name: prepared.store.value(prepared.samplers[name].compiled.count_cypher())
               for name in names}
    assert counted == {name: prepared.outcomes[name] for name in names}


@pytest.mark.parametrize("extract", ["alzheimer", "diabetes"])
def test_phenotype_triples_counted_in_closed_form(extracts, extract):
    """Ordered triples of distinct phenotypes of one disease: k(k-1)(k-2) per disease with k
    phenotypes, a count that uses neither the sampler nor the compiled Cypher."""
    prepared = extracts[extract]
    triples = prepared.store.value(
        "MATCH (p:effect__phenotype)-[:disease_phenotype_positive]->(x:disease) "
        "WITH x, count(DISTINCT p) AS k RETURN sum(k * (k - 1) * (k - 2))")
    assert triples == prepared.outcomes[BIG]


def test_paged_server_counts_add_up_to_the_count(extracts):
    """At full size one DISTINCT over every match exceeds the embedded server's in-heap
    limit, so `specs count --cypher` counts in pages of answer ids: many small pages must add
    up to the sampler's count, and an answer too heavy for one page is refused."""
    prepared = extracts["diabetes"]
    for name in ("primekg.synergistic", "primekg.dual_indication"):
        sampler = prepared.samplers[name]
        heaviest = int(sampler.answer_candidates().max())
        pages = answer_pages(sampler, limit=heaviest)
        assert len(pages) > 3, name
        assert all(low <= high for low, high in pages)
        assert all(pages[i][1] < pages[i + 1][0] for i in range(len(pages) - 1))  # disjoint
        assert count_on_server(prepared.store, sampler, limit=heaviest) == \
            prepared.outcomes[name]
        with pytest.raises(InputError, match="too many to count"):
            answer_pages(sampler, limit=heaviest - 1)


def test_samples_do_not_depend_on_what_was_drawn_before(extracts):
    sampler = extracts["diabetes"].samplers["primekg.synergistic"]
    forward = [sampler.sample(3, i).nodes for i in range(5)]
    backward = [sampler.sample(3, i).nodes for i in reversed(range(5))][::-1]
    assert forward == backward
    assert len({tuple(sorted(n.items())) for n in forward}) > 1  # not one DAG over and over


# -- entity-centric specs on the countries KG ------------------------------------------------

DROPPED = {"P31", "P279", "P361", "P2184", "P2633"}


@pytest.fixture(scope="module")
def countries(embedded_server, shared_data: Path) -> GraphStore:
    store, _ = load_kg(embedded_server, "wikidata5m", [shared_data / "wikidata5m_countries"],
                       "specs_wd5m", replace=False)
    return store


@pytest.fixture(scope="module")
def generated(countries, tmp_path_factory) -> list[Path]:
    out = tmp_path_factory.mktemp("entity_specs")
    return generate_entity_specs(countries, "countries", out, count=2, rho=4, rule="degree",
                                 threshold=2000, exclude=sorted(DROPPED), seed=0)


def test_generated_entity_specs_are_written(generated):
    assert len(generated) == 2
    for path in generated:
        spec = load_spec_file(path)
        assert isinstance(spec, EntitySpec)
        assert path.name == f"{spec.name}.yaml"
        assert spec.name == f"countries.entity.{spec.pivots[0]}"
        assert len(spec.pivots) == 1 and spec.rho == 4 and spec.paths == "uniform"


def test_generated_entity_samples_are_unique_answer_paths(countries, generated):
    edges: dict[tuple[str, str, str], bool] = {}
    reach: dict[tuple[str, tuple[str, ...]], set[str]] = {}

    def has_edge(source: str, rel: str, target: str) -> bool:
        key = (source, rel, target)
        if key not in edges:
            edges[key] = countries.value(
                "MATCH (s:Entity {id: $s})-[r]->(t:Entity {id: $t}) WHERE type(r) = $rel "
                "RETURN count(r)", s=source, t=target, rel=rel) > 0
        return edges[key]

    def reached(pivot: str, rels: tuple[str, ...]) -> set[str]:
        if (pivot, rels) not in reach:
            level = {pivot}
            for rel in rels:
                level = {str(row["t"]) for row in countries.query(
                    "MATCH (s:Entity)-[r]->(t:Entity) WHERE s.id IN $ids AND type(r) = $rel "
                    "RETURN DISTINCT t.id AS t", ids=sorted(level), rel=rel)}
            reach[(pivot, rels)] = level
        return reach[(pivot, rels)]

    for path in generated:
        spec = load_spec_file(path)
        assert isinstance(spec, EntitySpec)
        sampler = prepare_sampler(spec, countries)
        assert isinstance(sampler, EntitySampler)
        hop_counts = set()
        for index in range(SAMPLES):
            sample = sampler.sample(0, index)
            where = f"{spec.name} #{index}: {sample.nodes} {sample.relations}"
            assert sample.pivot == spec.pivots[0] == sample.nodes[0], where
            assert 1 <= sample.hops <= spec.rho - 1 and len(sample.nodes) == sample.hops + 1, where
            assert len(set(sample.nodes)) == len(sample.nodes), f"{where}: not simple"
            assert not DROPPED & set(sample.relations), where
            for source, rel, target in zip(sample.nodes, sample.relations, sample.nodes[1:],
                                           strict=False):
                assert has_edge(source, rel, target), f"{where}: no edge {source} {rel} {target}"
            assert reached(sample.pivot, sample.relations) == {sample.nodes[-1]}, where
            hop_counts.add(sample.hops)
        assert hop_counts == {1, 2, 3}, spec.name  # 20 draws of 3 equally likely lengths


def test_generated_pivots_offer_distractors_as_the_prompts_find_them(countries, generated):
    """A generated pivot's paths have Definition 2.3 distractor candidates in at least
    MIN_WRONG_TURNS of its draws, each path judged as the prompt builder's Algorithm 6 does."""
    from kgcert.graphview import open_graph
    from kgcert.prompts.distractors import path_candidates
    from kgcert.run.preflight import PROBE
    from kgcert.specs import generate

    assert generate.PROBE == PROBE  # the share is worked out for the run's probe
    graph = open_graph(countries)
    for path in generated:
        sampler = prepare_sampler(load_spec_file(path), countries)
        assert isinstance(sampler, EntitySampler)
        share = sampler.wrong_turn_share(0, 60)
        assert share >= generate.MIN_WRONG_TURNS, path.name
        for index in range(60):
            sample = sampler.sample(0, index)
            pivot, nodes, rels, _ = sampler.draw(0, index)
            found = bool(path_candidates(graph, sample.nodes, sample.relations))
            assert sampler.areas[pivot].wrong_turn(nodes, rels) == found, index


def test_pivots_whose_paths_offer_no_distractor_are_not_generated(countries, tmp_path,
                                                                  monkeypatch):
    from kgcert.specs import generate

    monkeypatch.setattr(generate, "MIN_WRONG_TURNS", 1.01)  # no pivot can have enough
    with pytest.raises(InputError, match="distractors on its paths"):  # of the top 3
        generate_entity_specs(countries, "countries", tmp_path, count=2, rho=3, rule="degree",
                              threshold=3, exclude=sorted(DROPPED), seed=0)
    # Paths of one hop never have a distractor: such specs are not held to it.
    assert generate_entity_specs(countries, "countries", tmp_path, count=1, rho=2,
                                 rule="degree", threshold=3, exclude=sorted(DROPPED), seed=0)
