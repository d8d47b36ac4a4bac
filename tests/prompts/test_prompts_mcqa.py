"""Multiple-choice prompts on the real extracts: PrimeKG's Alzheimer neighbourhood with the
shipped relation specs, and the countries KG in the Wikidata5m layout with an entity spec
whose pivots are picked by querying the KG.

What a prompt must hold is recomputed here with Cypher written in this file (not through the
prompt builder's reads): the sentence of each DAG edge (from the edge's display and its
KgcertRelation template), every correct answer (the spec's compiled answer-set query, or the
relation sequence followed level by level from the pivot), and the Definition 2.3 distractors
(the compiled distractor query, or the hop-by-hop siblings of the path).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from kg_helpers import load_kg

from kgcert.answer_format.checker import Outcome, check_answer
from kgcert.graphview import PromptGraph, open_graph
from kgcert.prompts import Budget, Prompt, PromptBuilder, PromptSettings, build_prompt
from kgcert.prompts.distractors import path_candidates
from kgcert.prompts.layout import LINE_OVERHEAD
from kgcert.specs import (
    EntitySpec,
    RelationSampler,
    RelationSpec,
    load_spec_file,
    prepare_sampler,
)
from kgcert.specs.folders import is_suite_file
from kgcert.specs.model import parse_spec
from kgcert.store.cypher import escape_identifier, named
from kgcert.store.graph import GraphStore

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs" / "primekg"  # the nine specs and ours; table1.yaml is a suite
RELATION_SPECS = ("dual_indication", "contraindication_indication", "exposure_drug")
SEEDS = (0, 3)
INDICES = range(6)


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def alz(alzheimer_kg) -> GraphStore:
    return alzheimer_kg.store


@pytest.fixture(scope="module")
def countries(embedded_server, shared_data: Path) -> GraphStore:
    store, _ = load_kg(embedded_server, "wikidata5m", [shared_data / "wikidata5m_countries"],
                       "prompts_w5c")
    return store


@pytest.fixture(scope="module")
def samplers(alz, tmp_path_factory) -> dict[str, RelationSampler]:
    cache = tmp_path_factory.mktemp("prompt-tables")
    found = {}
    for name in RELATION_SPECS:
        sampler = prepare_sampler(load_spec_file(SPECS / f"{name}.yaml"), alz, cache)
        assert isinstance(sampler, RelationSampler)
        found[name] = sampler
    return found


@pytest.fixture(scope="module")
def alz_graph(alz) -> PromptGraph:
    return open_graph(alz)


@pytest.fixture(scope="module")
def entity_spec(countries) -> EntitySpec:
    """Pivots: the two entities with the most distinct out-neighbours (ties by id)."""
    rows = countries.query(named("specs", "out_degrees"), include=[], exclude=[],
                           min_degree=1, limit=2)
    spec = parse_spec({"kind": "entity", "name": "countries.test_pivots", "description": "t",
                       "pivots": [str(r["id"]) for r in rows], "rho": 3}, "test")
    assert isinstance(spec, EntitySpec)
    return spec


@pytest.fixture(scope="module")
def entity_sampler(countries, entity_spec):
    return prepare_sampler(entity_spec, countries)


# -- independent computations ---------------------------------------------------------------


def edge_sentences(store: GraphStore, source: str, rel_type: str, target: str) -> set[str]:
    """Every sentence the KG gives the edge(s) source -[rel_type]-> target."""
    rows = store.query(
        f"MATCH (a:Entity {{id: $s}})-[e:{escape_identifier(rel_type)}]->(b:Entity {{id: $t}}) "
        "RETURN a.name AS a, b.name AS b, e.display AS display, e.sentences AS sentences, "
        "[x IN labels(a) WHERE x <> 'Entity'][0] AS la, "
        "[x IN labels(b) WHERE x <> 'Entity'][0] AS lb", s=source, t=target)
    found: set[str] = set()
    for row in rows:
        if row["sentences"]:
            found.update(row["sentences"])
            continue
        templates = store.query(
            "MATCH (r:KgcertRelation {type: $type}) WHERE r.source_type = $la AND "
            "r.target_type = $lb AND ($display IS NULL OR r.display = $display) "
            "RETURN r.template AS template", type=rel_type, la=row["la"], lb=row["lb"],
            display=row["display"])
        found.update(t["template"].format(source=row["a"], target=row["b"]) for t in templates)
    return found


def either_way(store: GraphStore, a: str, rel_type: str, b: str) -> set[str]:
    return edge_sentences(store, a, rel_type, b) | edge_sentences(store, b, rel_type, a)


def context_of(prompt: Prompt) -> str:
    """The prompt's own context block (after the worked examples)."""
    text = prompt.text
    start = text.index("Your question:\nContext:\n")
    return text[start:text.index("\nQuestion: ", start)]


def relation_answers(store: GraphStore, sampler: RelationSampler,
                     nodes: dict[str, str]) -> set[str]:
    compiled = sampler.compiled
    rows = store.query(compiled.answers_cypher(), **{v: nodes[v] for v in compiled.given})
    return {str(r["id"]) for r in rows}


def relation_distractors(store: GraphStore, sampler: RelationSampler,
                         nodes: dict[str, str]) -> list[tuple[str, str, str]]:
    """(DAG node, relationship type, distractor) for each Definition 2.3 distractor edge."""
    compiled = sampler.compiled
    cypher = compiled.distractors_cypher()
    if not cypher:
        return []
    types = {(e.source, e.target): e.rel_type for e in compiled.edges}
    rows = store.query(cypher, **nodes, dag=list(nodes.values()))
    return [(nodes[r["via"]], types[(r["via"], r["instead_of"])], str(r["id"])) for r in rows]


def path_reached(store: GraphStore, pivot: str, relations: tuple[str, ...]) -> set[str]:
    level = {pivot}
    for rel_type in relations:
        rows = store.query(f"MATCH (a:Entity)-[:{escape_identifier(rel_type)}]->(b:Entity) "
                           "WHERE a.id IN $ids RETURN DISTINCT b.id AS id", ids=sorted(level))
        level = {str(r["id"]) for r in rows}
    return level


def path_distractors(store: GraphStore, nodes: tuple[str, ...],
                     relations: tuple[str, ...]) -> list[tuple[str, str, str]]:
    found = []
    for i in range(len(relations) - 1):
        rows = store.query(f"MATCH (a:Entity {{id: $v}})-[:{escape_identifier(relations[i])}]->"
                           "(b:Entity) WHERE NOT b.id IN $path RETURN DISTINCT b.id AS id",
                           v=nodes[i], path=list(nodes))
        found += [(nodes[i], relations[i], str(r["id"])) for r in rows]
    return found


def check_options(prompt: Prompt, correct: set[str], count: int = 4) -> None:
    assert prompt.skipped is None, prompt.skipped
    assert len(prompt.options) == len(prompt.option_ids) == count
    assert len({o.casefold() for o in prompt.options}) == count
    shown = "".join(f"{i}. {o}\n" for i, o in enumerate(prompt.options, 1))
    assert f"Options:\n{shown}" in prompt.text
    right = [i for i, o in enumerate(prompt.option_ids, 1) if o in correct]
    assert right == [prompt.correct_option], (prompt.option_ids, sorted(correct))
    assert prompt.option_ids[prompt.correct_option - 1] == prompt.answer_id
    reply = f"correct answer: {prompt.correct_option}. {prompt.options[prompt.correct_option - 1]}"
    assert check_answer(reply + ", because the context says so.", prompt.options,
                        prompt.correct_option).outcome is Outcome.CORRECT


# -- relation-centric prompts (PrimeKG) -----------------------------------------------------


@pytest.mark.parametrize("name", RELATION_SPECS)
@pytest.mark.parametrize("setting", ["vanilla", "distractor"])
def test_relation_prompts_hold_supporting_sentences_and_one_correct_option(
        alz, samplers, alz_graph, name, setting):
    sampler = samplers[name]
    spec = sampler.compiled.spec
    for seed in SEEDS:
        builder = PromptBuilder(alz, spec, sampler, seed=seed,
                                settings=PromptSettings(setting=setting), graph=alz_graph)
        for index in INDICES:
            prompt = builder.build(index)
            nodes = sampler.sample(seed, index).nodes
            assert prompt.provenance.nodes == nodes
            context = context_of(prompt)
            for edge in sampler.compiled.edges:
                sentences = edge_sentences(alz, nodes[edge.source], edge.rel_type,
                                           nodes[edge.target])
                assert sentences and any(f"- {s}\n" in context for s in sentences), (
                    f"{name} #{index}: no sentence of {edge} in the context")
            check_options(prompt, relation_answers(alz, sampler, nodes))
            question = prompt.text.split("\nQuestion: ")[-1].split("\n")[0]
            for var in spec.given():
                assert prompt.provenance.aliases[nodes[var]] in question


def test_distractor_setting_shows_definition_2_3_distractors_and_vanilla_none(
        alz, samplers, alz_graph):
    sampler = samplers["exposure_drug"]
    spec = sampler.compiled.spec
    vanilla = PromptBuilder(alz, spec, sampler,
                            settings=PromptSettings(setting="vanilla"), graph=alz_graph)
    noisy = PromptBuilder(alz, spec, sampler,
                          settings=PromptSettings(setting="distractor"), graph=alz_graph)
    with_distractors = 0
    for index in range(40):
        nodes = sampler.sample(0, index).nodes
        edges = relation_distractors(alz, sampler, nodes)
        plain, distracted = vanilla.build(index), noisy.build(index)
        sentences = set().union(*(either_way(alz, *edge) for edge in edges)) if edges else set()
        assert not any(f"- {s}\n" in context_of(plain) for s in sentences)
        assert plain.provenance.distractors == ()
        if not edges:
            continue
        with_distractors += 1
        assert any(f"- {s}\n" in context_of(distracted) for s in sentences), index
        assert set(distracted.provenance.distractors) <= {d for _, _, d in edges}
        assert distracted.provenance.distractors
    assert with_distractors >= 2  # the check above ran on real distractors


def test_vanilla_context_has_no_other_edge_of_the_dags_types(alz, samplers, alz_graph):
    sampler = samplers["dual_indication"]
    builder = PromptBuilder(alz, sampler.compiled.spec, sampler, graph=alz_graph)
    for index in INDICES:
        prompt = builder.build(index)
        dag = {(s, t) for s, _, t in prompt.provenance.edges}
        for key in prompt.provenance.extra["context_edges"]:
            source, rel_type, target = key.split("|")
            if rel_type == "indication":
                assert (source, target) in dag or (target, source) in dag


def test_settings_ask_the_same_question(alz, samplers, alz_graph):
    sampler = samplers["contraindication_indication"]
    spec = sampler.compiled.spec
    plain = PromptBuilder(alz, spec, sampler,
                          settings=PromptSettings(setting="vanilla"), graph=alz_graph)
    noisy = PromptBuilder(alz, spec, sampler,
                          settings=PromptSettings(setting="distractor"), graph=alz_graph)
    for index in INDICES:
        a, b = plain.build(index), noisy.build(index)
        assert a.text.split("\nQuestion: ")[-1].split("\n")[0] == \
            b.text.split("\nQuestion: ")[-1].split("\n")[0]
        assert a.provenance.template == b.provenance.template


def test_settings_share_the_answers_worked_out(alz, samplers, monkeypatch):
    """The two settings' builders of one sampler and graph work each question's answer set out
    once: the distractor setting's prompts find the vanilla ones' (same samples), and a
    builder over another graph keeps its own."""
    sampler = samplers["dual_indication"]
    spec = sampler.compiled.spec
    graph = open_graph(alz)  # its own: other tests filled the shared graph's answers
    plain = PromptBuilder(alz, spec, sampler, settings=PromptSettings(setting="vanilla"),
                          graph=graph)
    noisy = PromptBuilder(alz, spec, sampler, settings=PromptSettings(setting="distractor"),
                          graph=graph)
    asked: list[dict[str, str]] = []
    for builder in (plain, noisy):
        finder = builder.spec_kind._finder
        assert finder is not None
        answers = finder.answers

        def counted(given: dict[str, str], answers=answers) -> tuple[str, ...]:
            asked.append(given)
            return answers(given)

        monkeypatch.setattr(finder, "answers", counted)
    vanilla = [plain.build(index) for index in INDICES]
    worked_out = len(asked)
    assert worked_out >= 1
    distractor = [noisy.build(index) for index in INDICES]
    assert len(asked) == worked_out  # found, not worked out again
    for a, b in zip(vanilla, distractor, strict=True):
        assert a.provenance.extra["correct_answers"] == b.provenance.extra["correct_answers"]
    other = PromptBuilder(alz, spec, sampler, settings=PromptSettings(setting="vanilla"),
                          graph=open_graph(alz))
    assert other.spec_kind._answers is not plain.spec_kind._answers
    assert other.build(INDICES[0]).text == vanilla[0].text

def test_same_seed_same_text_byte_for_byte(alz, samplers):
    sampler = samplers["dual_indication"]
    spec = sampler.compiled.spec
    first = PromptBuilder(alz, spec, sampler, seed=11,
                          settings=PromptSettings(setting="distractor"),
                          graph=open_graph(alz))
    in_order = [first.build(i) for i in range(6)]
    alone = PromptBuilder(alz, spec, sampler, seed=11,
                          settings=PromptSettings(setting="distractor"),
                          graph=open_graph(alz)).build(5)
    assert alone.text.encode() == in_order[5].text.encode()
    assert alone.as_dict() == in_order[5].as_dict()
    backwards = PromptBuilder(alz, spec, sampler, seed=11,
                              settings=PromptSettings(setting="distractor"),
                              graph=open_graph(alz))
    assert [backwards.build(i).text for i in reversed(range(6))][::-1] == \
        [p.text for p in in_order]
    other = PromptBuilder(alz, spec, sampler, seed=12,
                          settings=PromptSettings(setting="distractor"),
                          graph=open_graph(alz))
    assert [other.build(i).text for i in range(6)] != [p.text for p in in_order]


def test_provenance_regenerates_the_prompt(alz, samplers, alz_graph):
    sampler = samplers["exposure_drug"]
    spec = sampler.compiled.spec
    prompt = PromptBuilder(alz, spec, sampler, seed=4,
                           settings=PromptSettings(setting="distractor"),
                           graph=alz_graph).build(9)
    record = prompt.provenance
    assert (record.spec, record.kind, record.seed, record.index, record.setting) == \
        (spec.name, "relation", 4, 9, "distractor")
    assert record.spec_hash == sampler.spec_hash and record.template is not None
    assert len(record.edges) == len(sampler.compiled.edges)
    settings = PromptSettings(setting=record.setting, few_shot=record.extra["few_shot"])
    again = PromptBuilder(alz, spec, seed=record.seed, settings=settings).build(record.index)
    assert again.text == prompt.text



def test_builders_take_their_knobs_only_as_prompt_settings(alz, samplers, alz_graph):
    """A loose knob beside `settings` is refused (PromptSettings is every knob's one home);
    `build_prompt` renders a drawn sample as the builder's prompt of its index."""
    sampler = samplers["dual_indication"]
    spec = sampler.compiled.spec
    with pytest.raises(TypeError, match="setting"):
        PromptBuilder(alz, spec, sampler, setting="distractor")  # type: ignore[call-arg]
    sample = sampler.sample(3, 2)
    with pytest.raises(TypeError, match="few_shot"):
        build_prompt(alz, spec, sample, few_shot=0)  # type: ignore[call-arg]
    settings = PromptSettings(setting="distractor", few_shot=0)
    built = PromptBuilder(alz, spec, sampler, seed=3, settings=settings, graph=alz_graph)
    prompt = build_prompt(alz, spec, sample, settings=settings, sampler=sampler)
    assert built.build(2).as_dict() == prompt.as_dict()
    assert (prompt.provenance.setting, prompt.provenance.extra["few_shot"]) == ("distractor", 0)

def test_option_count_is_configurable(alz, samplers, alz_graph):
    sampler = samplers["contraindication_indication"]
    builder = PromptBuilder(alz, sampler.compiled.spec, sampler,
                            settings=PromptSettings(options=6), graph=alz_graph)
    for index in range(3):
        prompt = builder.build(index)
        check_options(prompt, relation_answers(alz, sampler, prompt.provenance.nodes), 6)


def test_character_budget_is_respected_and_essentials_never_cut(alz, samplers, alz_graph):
    sampler = samplers["dual_indication"]
    spec = sampler.compiled.spec
    roomy = PromptBuilder(alz, spec, sampler, graph=alz_graph,
                          settings=PromptSettings(few_shot=0)).build(2)
    for limit in (1800, 2500, 4000):
        prompt = PromptBuilder(alz, spec, sampler, graph=alz_graph,
                               settings=PromptSettings(few_shot=0,
                                                       budget=Budget.characters(limit))).build(2)
        assert prompt.skipped is None
        assert len(prompt.text) <= limit
        assert prompt.provenance.extra["context_kept"]["essential"] == 2
        assert len(prompt.text) < len(roomy.text)
        nodes = prompt.provenance.nodes
        for edge in sampler.compiled.edges:
            sentences = edge_sentences(alz, nodes[edge.source], edge.rel_type, nodes[edge.target])
            assert any(s in prompt.text for s in sentences)


def test_essential_sentences_that_do_not_fit_skip_the_prompt(alz, samplers, alz_graph):
    sampler = samplers["dual_indication"]
    tiny = PromptBuilder(alz, sampler.compiled.spec, sampler, graph=alz_graph,
                         settings=PromptSettings(few_shot=2, budget=Budget.characters(1500)))
    prompt = tiny.build(0)
    assert prompt.text == ""
    assert prompt.skipped and "essential" in prompt.skipped
    assert prompt.provenance.index == 0 and prompt.provenance.nodes


def test_token_budget_with_a_real_tokenizer(alz, samplers, alz_graph):
    pytest.importorskip("transformers")
    from kgcert.models.testing import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    budget = Budget.from_hf_tokenizer(tokenizer, 1500)
    sampler = samplers["exposure_drug"]
    # two worked examples leave room for the context in 1,500 tokens of this tokenizer
    builder = PromptBuilder(alz, sampler.compiled.spec, sampler, graph=alz_graph,
                            settings=PromptSettings(budget=budget, few_shot=2))
    for index in range(3):
        prompt = builder.build(index)
        assert prompt.skipped is None
        assert len(tokenizer.encode(prompt.text, add_special_tokens=False)) <= 1500
        assert prompt.provenance.extra["prompt_units"] <= 1500


def test_required_distractors_condition_the_draws(alz, samplers, alz_graph, tmp_path):
    sampler = samplers["exposure_drug"]
    data = yaml.safe_load((SPECS / "exposure_drug.yaml").read_text())
    data.update(name="test.exposure_drug_required", distractors="required")
    path = tmp_path / "required.yaml"
    path.write_text(yaml.safe_dump(data))
    spec = load_spec_file(path)
    assert isinstance(spec, RelationSpec)
    conditioned = prepare_sampler(spec, alz, None)
    assert isinstance(conditioned, RelationSampler)
    builder = PromptBuilder(alz, spec, conditioned, graph=alz_graph,
                            settings=PromptSettings(setting="vanilla"))
    refused = []
    for index in range(8):
        prompt = builder.build(index)
        nodes = prompt.provenance.nodes
        assert relation_distractors(alz, conditioned, nodes), index
        refused.append(prompt.provenance.rejected_prompts)
        sample, count = builder.draw(index)
        assert count == prompt.provenance.rejected_prompts and sample.nodes == nodes
    assert sum(refused) > 0  # most exposure DAGs have no distractor: redraws happened
    unconditioned = PromptBuilder(alz, sampler.compiled.spec, sampler, graph=alz_graph)
    assert all(unconditioned.build(i).provenance.rejected_prompts == 0 for i in range(8))


# -- entity-centric prompts (countries KG, Wikidata5m layout) -------------------------------


@pytest.mark.parametrize("setting", ["vanilla", "distractor"])
def test_entity_prompts_hold_the_path_and_one_correct_option(countries, entity_spec,
                                                             entity_sampler, setting):
    graph = open_graph(countries)
    builder = PromptBuilder(countries, entity_spec, entity_sampler, seed=1,
                            settings=PromptSettings(setting=setting),
                            graph=graph)
    for index in INDICES:
        sample = entity_sampler.sample(1, index)
        prompt = builder.build(index)
        context = context_of(prompt)
        for i, rel_type in enumerate(sample.relations):
            sentences = edge_sentences(countries, sample.nodes[i], rel_type, sample.nodes[i + 1])
            assert any(f"- {s}\n" in context for s in sentences), (index, i)
        assert path_reached(countries, sample.pivot, sample.relations) == {sample.nodes[-1]}
        check_options(prompt, {sample.nodes[-1]})
        question = prompt.text.split("\nQuestion: ")[-1].split("\n")[0]
        assert question.startswith(prompt.provenance.aliases[sample.pivot] + " -> (")
        assert question.endswith(" -> ?") and question.count("->") == sample.hops + 1


def test_entity_distractors_follow_algorithm_6_and_vanilla_has_none(countries, entity_spec,
                                                                    entity_sampler):
    graph = open_graph(countries)
    plain = PromptBuilder(countries, entity_spec, entity_sampler,
                          settings=PromptSettings(setting="vanilla"),
                          graph=graph)
    noisy = {w: PromptBuilder(countries, entity_spec, entity_sampler,
                              settings=PromptSettings(setting="distractor", weighting=w),
                              graph=graph) for w in ("tail", "head", "uniform")}
    checked = 0
    for index in range(12):
        sample = entity_sampler.sample(0, index)
        edges = path_distractors(countries, sample.nodes, sample.relations)
        sentences = set().union(*(either_way(countries, *e) for e in edges)) if edges else set()
        assert not any(f"- {s}\n" in context_of(plain.build(index)) for s in sentences)
        if not edges:
            continue
        checked += 1
        for builder in noisy.values():
            prompt = builder.build(index)
            assert any(f"- {s}\n" in context_of(prompt) for s in sentences), index
            assert len(prompt.provenance.distractors) == 1
            assert prompt.provenance.distractors[0] in {d for _, _, d in edges}
            assert "distractor" in prompt.provenance.extra["option_roles"]
    assert checked >= 2


def test_entity_distractor_weights_by_position(countries, entity_spec):
    """Algorithm 6's weights: hop i's candidates weigh i + 1 (tail), hops - i (head) or 1,
    summed over the hops an entity is found at; the last hop gives none (Definition 2.3)."""
    spec = parse_spec({**entity_spec.model_dump(mode="json"), "rho": 4,
                       "name": "countries.test_pivots4", "lengths": {3: 1.0}}, "test")
    assert isinstance(spec, EntitySpec)
    sampler = prepare_sampler(spec, countries)
    graph = open_graph(countries)
    for index in range(3):
        sample = sampler.sample(0, index)
        assert sample.hops == 3
        graph.load(sample.nodes)
        found = path_distractors(countries, sample.nodes, sample.relations)
        for weighting, weight in (("tail", lambda i: i + 1), ("head", lambda i: 3 - i),
                                  ("uniform", lambda i: 1)):
            expected: dict[str, float] = {}
            for source, _, other in found:
                hop = sample.nodes.index(source)
                expected[other] = expected.get(other, 0) + weight(hop)
            got = path_candidates(graph, sample.nodes, sample.relations, weighting)
            assert {d.id: w for d, w in got} == expected


# -- edges with their own sentences and several aliases (Wikidata5m with texts) ------------


TEXTS = {
    "Q1": "Arvenia is a small republic in the north. Its capital is Belmont, on the coast. "
          "Arvenia shares a long border with Elsmere.",
    "Q2": "Belmont is a port city. The harbour of Belmont is the largest in Arvenia.",
    "Q4": "Dunfeld is an old market town.",
    "Q5": "Elsmere is a kingdom. Elsmere has its capital at Dunfeld.",
}
ALIASES = {"Q1": ["Arvenia", "Republic of Arvenia", "the Arvenian state"],
           "Q2": ["Belmont", "Belmont City"], "Q4": ["Dunfeld"],
           "Q5": ["Elsmere", "Kingdom of Elsmere"], "Q6": ["Farrow Island"]}
TRIPLES = [("Q1", "P36", "Q2"), ("Q2", "P17", "Q1"), ("Q1", "P47", "Q5"), ("Q5", "P36", "Q4"),
           ("Q4", "P17", "Q5"), ("Q1", "P150", "Q6")]
RELATIONS = {"P36": ["capital", "seat of government"], "P17": ["country"],
             "P47": ["shares border with", "neighbour of"], "P150": ["contains"]}


@pytest.fixture(scope="module")
def texts_kg(embedded_server, tmp_path_factory) -> GraphStore:
    folder = tmp_path_factory.mktemp("w5m-texts")
    (folder / "wikidata5m_all_triplet.txt").write_text(
        "".join("\t".join(t) + "\n" for t in TRIPLES), encoding="utf-8")
    (folder / "wikidata5m_entity.txt").write_text(
        "".join("\t".join([q, *a]) + "\n" for q, a in ALIASES.items()), encoding="utf-8")
    (folder / "wikidata5m_relation.txt").write_text(
        "".join("\t".join([p, *a]) + "\n" for p, a in RELATIONS.items()), encoding="utf-8")
    (folder / "wikidata5m_text.txt").write_text(
        "".join(f"{q}\t{t}\n" for q, t in TEXTS.items()), encoding="utf-8")
    store, _ = load_kg(embedded_server, "wikidata5m", [folder], "prompts_w5m_texts",
                       settings={"unsupported_edges": "template"})
    return store


def test_edge_sentences_aliases_and_alias_notes(texts_kg):
    spec = parse_spec({"kind": "entity", "name": "texts.arvenia", "description": "t",
                       "pivots": ["Q1"], "rho": 3}, "test")
    assert isinstance(spec, EntitySpec)
    sampler = prepare_sampler(spec, texts_kg)
    builder = PromptBuilder(texts_kg, spec, sampler,
                            settings=PromptSettings(few_shot=0, options=3, shuffle=False))
    pivots_shown, relations_shown, own_sentences = set(), set(), 0
    for index in range(30):
        sample = sampler.sample(0, index)
        prompt = builder.build(index)
        assert prompt.skipped is None, prompt.skipped
        context = context_of(prompt)
        for i, rel_type in enumerate(sample.relations):
            sentences = edge_sentences(texts_kg, sample.nodes[i], rel_type, sample.nodes[i + 1])
            for sentence in sentences:  # all of an edge's own sentences are essential
                assert f"- {sentence}\n" in context
        own_sentences += "Its capital is Belmont, on the coast." in context
        alias = prompt.provenance.aliases["Q1"]
        pivots_shown.add(alias)
        notes = prompt.text.split("Names used in the question:\n")[-1].split("\nQuestion:")[0]
        if alias == "the Arvenian state":  # the name is not in the alias: explained
            assert "- \"the Arvenian state\" refers to Arvenia.\n" in notes
        else:
            assert f"\"{alias}\" refers to" not in prompt.text
        for rel_alias in prompt.provenance.extra["relation_aliases"]:
            relations_shown.add(rel_alias)
            if rel_alias in ("seat of government", "neighbour of"):
                main = {"seat of government": "capital",
                        "neighbour of": "shares border with"}[rel_alias]
                assert f"- The relation \"{rel_alias}\" is the relation \"{main}\".\n" in notes
        check_options(prompt, {sample.nodes[-1]}, 3)
    assert own_sentences > 0
    assert pivots_shown == set(ALIASES["Q1"])
    assert {"seat of government", "neighbour of"} & relations_shown


# -- the KG snapshot: the same prompts without per-prompt reads -----------------------------


@pytest.mark.parametrize("setting", ["vanilla", "distractor"])
def test_snapshot_gives_the_same_prompts_as_per_entity_reads(alz, samplers, setting, tmp_path):
    from kgcert.graphview.snapshot import pull

    snapshot = pull(alz, tmp_path)
    assert snapshot is not None
    assert len(snapshot) == alz.value("MATCH (:Entity{{:kg}})-[e]->(:Entity{{:kg}}) "
                                      "RETURN count(e)")
    stored = pull(alz, tmp_path)  # read back from the file the first pull wrote
    assert stored is not None and list(tmp_path.rglob("prompt-graph-*.npz"))
    for name, sampler in samplers.items():
        spec = sampler.compiled.spec
        reads = PromptBuilder(alz, spec, sampler, seed=5, settings=PromptSettings(setting=setting),
                              graph=open_graph(alz))
        for graph in (open_graph(alz, snapshot), open_graph(alz, stored)):
            local = PromptBuilder(alz, spec, sampler, seed=5,
                                  settings=PromptSettings(setting=setting), graph=graph)
            for index in range(8):
                assert local.build(index) == reads.build(index), (name, index)
            assert graph.round_trips < reads.graph.round_trips  # no edge read, only aliases


def test_snapshot_answers_label_members_as_the_server_does(alz, tmp_path):
    from kgcert.graphview.snapshot import pull

    snapshot = pull(alz, tmp_path)
    local, reads = open_graph(alz, snapshot), open_graph(alz)
    labels = [row["label"] for row in alz.query(
        "MATCH (n:Entity{{:kg}}) UNWIND labels(n) AS label RETURN DISTINCT label")]
    assert len(labels) > 3
    for label in [*labels, "NoSuchLabel"]:
        trips = local.round_trips
        assert local.label_members(label) == reads.label_members(label), label
        assert local.round_trips == trips  # from the arrays, no query
    assert reads.label_members("drug") and reads.label_members("NoSuchLabel") == []

def test_snapshot_gives_the_same_entity_prompts(countries, entity_spec):
    from kgcert.graphview.snapshot import pull

    snapshot = pull(countries)
    assert snapshot is not None
    sampler = prepare_sampler(entity_spec, countries)
    for setting in ("vanilla", "distractor"):
        reads = PromptBuilder(countries, entity_spec, sampler,
                              settings=PromptSettings(setting=setting),
                              graph=open_graph(countries))
        local = PromptBuilder(countries, entity_spec, sampler,
                              settings=PromptSettings(setting=setting),
                              graph=open_graph(countries, snapshot))
        assert [local.build(i) for i in range(8)] == [reads.build(i) for i in range(8)]


def test_a_snapshot_of_a_kg_whose_edges_have_sentences_keeps_them(texts_kg):
    from kgcert.graphview.snapshot import pull

    snapshot = pull(texts_kg)
    assert snapshot is not None and snapshot.sentences is not None
    local, reads = open_graph(texts_kg, snapshot), open_graph(texts_kg)
    own = 0
    for entity in snapshot.id_list:
        facts = tuple(local.adjacency(entity).facts)
        assert facts == tuple(reads.adjacency(entity).facts), entity
        own += sum(1 for fact in facts if fact.sentences)
    assert own


def test_snapshot_answer_sets_are_the_servers(alz, samplers, tmp_path):
    """The answer sets found in the snapshot's arrays are the compiled answer-set query's,
    for every shipped spec and for question entities that answer nothing."""
    from kgcert.graphview.answers import AnswerFinder
    from kgcert.graphview.snapshot import pull

    snapshot = pull(alz, tmp_path)
    assert snapshot is not None
    for sampler in samplers.values():
        compiled = sampler.compiled
        finder = AnswerFinder(snapshot, compiled)
        askings = [{v: sampler.sample(seed, i).nodes[v] for v in compiled.given}
                   for seed in SEEDS for i in range(10)]
        first = askings[0]
        askings.append({v: first[compiled.given[0]] for v in compiled.given})  # one entity twice
        askings.append({**first, compiled.given[0]: askings[1][compiled.given[-1]]})
        for given in askings:
            rows = alz.query(compiled.answers_cypher(), **given)
            assert finder.answers(given) == tuple(sorted(str(r["id"]) for r in rows)), given


# -- a synthetic PrimeKG: hubs, many distractors, every shipped spec -----------------------


@pytest.fixture(scope="module")
def synthetic(embedded_server, tmp_path_factory) -> GraphStore:
    from kgcert.synth.primekg import SyntheticPrimeKG

    folder = tmp_path_factory.mktemp("synthetic-primekg")
    SyntheticPrimeKG(0.003, seed=2).write_kg_csv(folder / "kg.csv")
    store, _ = load_kg(embedded_server, "primekg", [folder / "kg.csv"], "prompts_synth")
    return store


class _WritesEveryLine(PromptBuilder):
    """Writes every offered sentence before trimming (no lower bound on a line's cost, no
    line cost known before its sentence is written)."""

    _floor = 0

    def _measured_lengths(self) -> None:
        return None


@pytest.mark.parametrize("setting", ["vanilla", "distractor"])
def test_snapshot_prompts_are_the_reads_prompts_on_a_synthetic_primekg(synthetic, setting,
                                                                      tmp_path):
    """Every shipped PrimeKG spec on a power-law KG (hub entities with hundreds of edges,
    prompts with dozens of distractors): the snapshot path (array rows, answer sets from
    the arrays) gives the per-entity reads' prompts byte for byte, and leaving unwritten the
    sentences the room left cannot take changes no prompt."""
    from kgcert.graphview.snapshot import pull

    snapshot = pull(synthetic, tmp_path)
    assert snapshot is not None
    reads_graph, rows_graph = open_graph(synthetic), open_graph(synthetic, snapshot)
    built = trimmed = 0
    for path in sorted(p for p in SPECS.glob("*.yaml") if not is_suite_file(p)):
        spec = load_spec_file(path)
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, synthetic, tmp_path)
        reads = PromptBuilder(synthetic, spec, sampler, seed=1,
                              settings=PromptSettings(setting=setting),
                              graph=reads_graph)
        rows = PromptBuilder(synthetic, spec, sampler, seed=1,
                             settings=PromptSettings(setting=setting),
                             graph=rows_graph)
        arrays = PromptBuilder(synthetic, spec, sampler, seed=1,
                               settings=PromptSettings(setting=setting),
                               graph=rows_graph)
        arrays.array_tiers_from = 0  # tiers 2 and 3 as arrays in every prompt
        every_line = _WritesEveryLine(synthetic, spec, sampler, seed=1,
                                      settings=PromptSettings(setting=setting),
                                      graph=rows_graph)
        for index in range(5):
            expected = every_line.build(index)
            assert reads.build(index) == expected, (spec.name, index)
            assert rows.build(index) == expected, (spec.name, index)
            assert arrays.build(index) == expected, (spec.name, index)
            built += expected.skipped is None
            extra = expected.provenance.extra
            trimmed += extra.get("context_kept", {}).get("rest", 0) < extra.get(
                "context_offered", {}).get("rest", 0)
    assert built > 40 and trimmed > 5  # budgets filled: sentences left unwritten
    assert rows_graph.round_trips < reads_graph.round_trips


@pytest.mark.parametrize(("setting", "chars"), [("vanilla", None), ("distractor", None),
                                               ("distractor", 2_900)])
def test_array_tier_engine_gives_the_reference_engines_prompts(synthetic, setting, chars,
                                                               tmp_path):
    """Over one snapshot graph, tiers 2 and 3 as arrays in every prompt and as Fact objects
    (the reference engine) give the same prompts, byte for byte; also at a budget that cuts
    the distractor setting's distractor sentences, which both keep first."""
    from kgcert.graphview.snapshot import pull
    from kgcert.prompts.tiers import ArrayTiers, FactTiers

    graph = open_graph(synthetic, pull(synthetic, tmp_path))
    budget = Budget.characters(chars) if chars else None
    built = cut = 0
    for path in sorted(p for p in SPECS.glob("*.yaml") if not is_suite_file(p)):
        spec = load_spec_file(path)
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, synthetic, tmp_path)
        arrays = PromptBuilder(synthetic, spec, sampler, seed=2,
                               settings=PromptSettings(setting=setting, budget=budget), graph=graph)
        arrays.array_tiers_from = 0
        reference = PromptBuilder(synthetic, spec, sampler, seed=2,
                                  settings=PromptSettings(setting=setting, budget=budget),
                                  graph=graph)
        reference.tier_engine = FactTiers
        assert arrays.tier_engine is ArrayTiers
        for index in range(4):
            expected = reference.build(index)
            assert arrays.build(index) == expected, (spec.name, index)
            built += expected.skipped is None
            extra = expected.provenance.extra
            if setting == "distractor" and extra.get("distractor_candidates"):
                # a prompt with distractors holds one, or is skipped (old main kept none of
                # them in most of these prompts at 2,900 characters)
                assert expected.provenance.distractors or expected.skipped, (spec.name, index)
                kept, offered = extra.get("context_kept", {}), extra["context_offered"]
                cut += expected.skipped is not None or kept["options"] < offered["options"]
    assert built > 30
    if chars is not None:
        assert cut > 5  # the budget cut tier 2 of prompts with distractors


@pytest.mark.parametrize("over_snapshot", [False, True])
def test_emptying_the_graph_cache_changes_no_prompt(synthetic, over_snapshot, tmp_path):
    """A bound of one edge empties the cache before nearly every prompt: the prompts are
    those of a cache never emptied, over the reads and over a snapshot (whose bound is the
    larger, its cached edges being array views)."""
    from kgcert.graphview.snapshot import pull

    snapshot = pull(synthetic, tmp_path) if over_snapshot else None
    kept = open_graph(synthetic, snapshot)
    emptied = open_graph(synthetic, snapshot, max_cached_edges=1)
    for name in ("gene_target", "synergistic"):
        spec = load_spec_file(SPECS / f"{name}.yaml")
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, synthetic, tmp_path)
        for setting in ("vanilla", "distractor"):
            always = PromptBuilder(synthetic, spec, sampler, seed=3,
                                   settings=PromptSettings(setting=setting),
                                   graph=kept)
            often = PromptBuilder(synthetic, spec, sampler, seed=3,
                                  settings=PromptSettings(setting=setting),
                                  graph=emptied)
            for index in range(6):
                assert often.build(index) == always.build(index), (name, setting, index)
    kept.begin_prompt()
    emptied.begin_prompt()
    assert len(kept._adjacency) > 50  # still all there
    assert not emptied._adjacency
    assert (kept.max_cached_edges > open_graph(synthetic).max_cached_edges) == over_snapshot


def test_hub_caches_at_their_smallest_change_no_prompt(synthetic, tmp_path, monkeypatch):
    """Every entity a hub whose groupings outlive the graph's cache, and every bound on what
    is kept at its smallest (the hubs' rows, the builder's answers, the allowed facts per
    entity), with a cache emptied every few prompts: the prompts are those of the
    defaults."""
    from kgcert.graphview import rows
    from kgcert.graphview.snapshot import pull
    from kgcert.prompts import mcqa

    snapshot = pull(synthetic, tmp_path)
    assert snapshot is not None
    cases = []
    for name in ("gene_target", "synergistic"):
        spec = load_spec_file(SPECS / f"{name}.yaml")
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, synthetic, tmp_path)
        cases += [(spec, sampler, setting) for setting in ("vanilla", "distractor")]

    def prompts(graph: PromptGraph) -> list[Prompt]:
        return [PromptBuilder(synthetic, spec, sampler, seed=5,
                              settings=PromptSettings(setting=setting),
                              graph=graph).build(index)
                for spec, sampler, setting in cases for index in range(8)]

    want = prompts(open_graph(synthetic, snapshot))
    for setting, value in (("HUB_FACTS", 1), ("HUB_ROWS_KEPT", 40), ("ALLOWED_KEPT", 1),
                           ("FEW_FACTS", 0)):  # no entity grouped afresh: every one thinned
        monkeypatch.setattr(rows, setting, value)
    monkeypatch.setattr(mcqa, "KEPT_UP_TO", 0)
    small = open_graph(synthetic, snapshot, max_cached_edges=300)
    assert prompts(small) == want
    assert small.emptied > 5
    hubs = small.row_index.hubs
    assert hubs and sum(len(kept.other) for kept in hubs.values()) < 40 + max(
        len(kept.other) for kept in hubs.values())


@pytest.mark.parametrize("few_facts", [0, 10**9])
def test_snapshot_neighbours_are_the_reads_neighbours(synthetic, tmp_path, few_facts,
                                                      monkeypatch):
    """Neighbours over snapshot rows map the same ids, in the same order, to the same facts
    as the per-entity reads' dicts: every entity's grouping kept and thinned (few_facts 0)
    and every entity's grouped afresh."""
    from kgcert.graphview import rows as row_module
    from kgcert.graphview.neighbours import Grouped, RowNeighbours
    from kgcert.graphview.snapshot import pull

    monkeypatch.setattr(row_module, "FEW_FACTS", few_facts)

    snapshot = pull(synthetic, tmp_path)
    assert snapshot is not None
    reads, rows = open_graph(synthetic), open_graph(synthetic, snapshot)
    entities = snapshot.id_list[::3]
    checked = 0
    for label in ("drug", "disease", "gene/protein"):
        for excluded in (frozenset(), frozenset({"indication", "drug_drug"})):
            for entity in entities:
                mine = rows.adjacency(entity).neighbours(label, excluded, rows.label)
                theirs = reads.adjacency(entity).neighbours(label, excluded, reads.label)
                assert isinstance(mine, RowNeighbours)
                assert isinstance(mine, Grouped) == (few_facts > 0)
                assert list(mine) == list(theirs) and len(mine) == len(theirs)
                assert sorted(mine.keys()) == list(mine.keys())
                assert {k: tuple(mine[k]) for k in mine} == theirs
                assert entity not in mine and mine.get(entity, "none") == "none"
                assert mine.get("not an entity") is None
                checked += len(theirs)
    assert checked > 1_000, checked


def test_offered_rows_are_each_parts_facts_in_order_with_each_key_once(synthetic, tmp_path):
    """Tier 2 over rows from parts of three kinds interleaved: snapshot edges, and slices of
    two FactRows made from facts. Entries are the parts' facts in order, each fact key once
    and none of the used ones, each with the line cost of the rows it came from."""
    import numpy as np

    from kgcert.graphview.snapshot import pull
    from kgcert.prompts.filler import offer_rows

    snapshot = pull(synthetic, tmp_path)
    assert snapshot is not None
    graph = open_graph(synthetic, snapshot)
    entities = snapshot.id_list[::7][:30]
    graph.load(entities)
    index, lengths = graph.row_index, graph.sentence_lengths(LINE_OVERHEAD)
    assert index is not None and lengths is not None
    edge_rows = [graph.adjacency(entity).facts for entity in entities]
    facts = [fact for rows in edge_rows for fact in list(rows)[:3]]
    first, second = index.rows_of(facts[::2]), index.rows_of(facts[1::2])
    parts = []
    for i, rows in enumerate(edge_rows):
        parts.append((rows, 0, len(rows)))
        made = first if i % 2 else second
        parts.append((made, i % len(made), min(len(made), i % len(made) + 4)))
    used = np.array([index.key_of(fact.fact_key) for fact in facts[:5]], dtype=np.int64)
    expected, seen = [], set(used.tolist())
    for rows, start, end in parts:
        keys, costs = rows.fact_keys(), lengths.line_costs(rows)
        for at in range(start, end):
            if int(keys[at]) not in seen:
                seen.add(int(keys[at]))
                expected.append((rows[at], int(keys[at]), int(costs[at])))
    offered, keys = offer_rows(parts, used, lengths)
    assert offered.costs is not None
    got = list(zip(offered, keys.tolist(), offered.costs.tolist(), strict=True))
    assert got == expected
    assert len(expected) > 100 and any(rows.edges is None for rows, _, _ in parts)
    # Scattered entries asked for together (a distractor prompt's own edges), of made rows
    # (first here, so that they are kept) and of snapshot edges, none made before: the
    # facts that asking one by one gives.
    made_first = sorted(parts, key=lambda part: part[0].edges is not None)
    together, _ = offer_rows(made_first, used, lengths)
    one_by_one, _ = offer_rows(made_first, used, lengths)
    assert together.edges is not None
    places = [*np.flatnonzero(together.edges < 0)[::-3].tolist(),
              *np.flatnonzero(together.edges >= 0)[::40].tolist(), 2, 2]
    assert len(places) > 20 and {int(together.edges[i]) < 0 for i in places} == {True, False}
    assert together.facts_at(places) == [one_by_one.fact(i) for i in places]


def test_snapshot_answer_sets_refuse_a_question_entity_as_the_answer(embedded_server,
                                                                    tmp_path):
    """phenotype_contraindication asks for a disease X other than A. Where drug M is both
    approved and contraindicated for A, A has every edge that X needs, yet is no answer: the
    answer set from the arrays is the server's, with A refused."""
    from kgcert.graphview.answers import AnswerFinder
    from kgcert.graphview.snapshot import pull

    nodes = {"1": ("drug", "Mexolan"), "2": ("disease", "Arden fever"),
             "3": ("effect/phenotype", "Pallor"), "4": ("disease", "Xeric palsy"),
             "5": ("disease", "Other disease")}
    edges = [("indication", "1", "2"), ("contraindication", "1", "2"),
             ("contraindication", "1", "4"), ("contraindication", "1", "5"),
             ("disease_phenotype_positive", "2", "3"), ("disease_phenotype_positive", "4", "3")]
    lines = [
        f"{rel},{rel},{x},{x},{nodes[x][0]},{nodes[x][1]},S,{y},{y},{nodes[y][0]},{nodes[y][1]},S"
        for rel, source, target in edges for x, y in ((source, target), (target, source))]
    csv = tmp_path / "kg.csv"
    csv.write_text("relation,display_relation,x_index,x_id,x_type,x_name,x_source,"
                   "y_index,y_id,y_type,y_name,y_source\n" + "\n".join(lines) + "\n")
    store, _ = load_kg(embedded_server, "primekg", [csv], "answers_refusal")
    spec = load_spec_file(SPECS / "phenotype_contraindication.yaml")
    assert isinstance(spec, RelationSpec)
    compiled = prepare_sampler(spec, store, tmp_path).compiled
    snapshot = pull(store, tmp_path)
    assert snapshot is not None
    given = {"m": "1", "a": "2", "p": "3"}
    rows = store.query(compiled.answers_cypher(), **given)
    assert sorted(str(r["id"]) for r in rows) == ["4"]
    assert AnswerFinder(snapshot, compiled).answers(given) == ("4",)


@pytest.mark.parametrize("dense", [True, False], ids=["kinds in a table", "kinds sorted"])
def test_sentence_lengths_from_the_arrays_are_the_written_lengths(synthetic, tmp_path,
                                                                  monkeypatch, dense):
    """Every edge's sentence length worked out from the snapshot's arrays is the length of
    the sentence written for it (so trimming may skip a line without writing it); with the
    kinds of edge in a dense table, and without (a KG with too many kinds for one)."""
    from kgcert.graphview import lengths as lengths_module
    from kgcert.graphview.lengths import UNKNOWN, template_shape
    from kgcert.graphview.snapshot import pull

    if not dense:
        monkeypatch.setattr(lengths_module, "DENSE_KINDS", 0)
    snapshot = pull(synthetic, tmp_path)
    assert snapshot is not None
    graph = open_graph(synthetic, snapshot)
    checked = 0
    for entity in snapshot.id_list[::7]:
        rows = graph.adjacency(entity).facts
        lengths = graph.sentence_lengths(LINE_OVERHEAD)
        assert lengths is not None and (lengths._table is not None) == dense
        for fact, length in zip(rows, lengths.of(rows).tolist(), strict=True):
            assert length == len(graph.sentences(fact)[0]), fact
            checked += 1
    assert checked > 1_000
    assert template_shape("{source} and {source} treat {target}.") == (13, 2, 1)
    assert template_shape("{0} treats {target}") is None  # written as the generic sentence
    assert template_shape("{source!r} treats {target}") == UNKNOWN


def test_token_budget_keeps_a_distractor_when_the_whole_prompt_is_recounted(synthetic,
                                                                           tmp_path):
    """With a budget whose count of the joined prompt exceeds the sum of its lines' counts
    (here a quarter of the characters, rounded down), the builder drops optional lines until
    the prompt fits: the distractor sentences go last and never the last of them."""
    from kgcert.prompts.context import NO_DISTRACTOR_FITS

    def quarters(text: str) -> int:
        return len(text) // 4

    budget = Budget.tokens(quarters, 760, "quarter characters")
    holding = 0
    for name in ("gene_target", "exposure_drug", "synergistic"):
        spec = load_spec_file(SPECS / f"{name}.yaml")
        assert isinstance(spec, RelationSpec)
        builder = PromptBuilder(synthetic, spec, prepare_sampler(spec, synthetic, tmp_path),
                                seed=4, settings=PromptSettings(setting="distractor",
                                                                budget=budget))
        for index in range(5):
            prompt = builder.build(index)
            if prompt.skipped is None:
                assert quarters(prompt.text) <= 760
            if prompt.provenance.extra.get("distractor_candidates"):
                assert prompt.provenance.distractors or prompt.skipped, (name, index)
                holding += bool(prompt.provenance.distractors)
            if prompt.skipped and "distractor" in prompt.skipped:
                assert prompt.skipped.startswith(NO_DISTRACTOR_FITS)
    assert holding >= 5
