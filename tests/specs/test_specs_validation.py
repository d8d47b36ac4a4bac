"""Bad specs get one clear line naming the problem (an InputError), file-level and against a KG.

File-level checks (YAML, fields, pattern syntax and shape, templates) need no server; the
schema and match checks run against the real Alzheimer PrimeKG extract, and the entity ones
against the countries KG in Wikidata5m layout, both loaded into the embedded server.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from kg_helpers import load_kg

from kgcert.errors import InputError
from kgcert.specs import EntitySampler, RelationSampler, load_spec_file, prepare_sampler
from kgcert.specs.model import parse_spec
from kgcert.store.graph import GraphStore

SOURCE = "spec.yaml"
TEMPLATES = ["Which drug treats {a}?", "Name a drug for {a}.", "{a}: which drug?",
             "Find the drug indicated for {a}.", "What is approved for {a}?"]


def _relation(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": "relation", "name": "t", "description": "a test spec",
        "pattern": "(a:disease)-[:indication]->(d:drug)", "answer": "d",
        "templates": list(TEMPLATES),
    }
    data.update(fields)
    return data


def _entity(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": "entity", "name": "e", "description": "a test spec",
                            "pivots": ["Q30"], "rho": 3}
    data.update(fields)
    return data


def _message(data: Any, store: GraphStore | None = None) -> str:
    """The one line a bad spec gets: from parsing, or (with a store) from preparing a sampler."""
    with pytest.raises(InputError) as caught:
        spec = parse_spec(data, SOURCE)
        assert store is not None, "parse_spec accepted a spec it should refuse"
        prepare_sampler(spec, store)
    message = str(caught.value)
    assert "\n" not in message
    return message


@pytest.fixture(scope="module")
def alzheimer(alzheimer_kg) -> GraphStore:
    return alzheimer_kg.store


@pytest.fixture(scope="module")
def countries(embedded_server, shared_data: Path) -> GraphStore:
    store, _ = load_kg(embedded_server, "wikidata5m", [shared_data / "wikidata5m_countries"],
                       "specs_wd5m", replace=False)
    return store


# -- file level -----------------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "where"), [
    ("(a:disease)-[:indication->(d:drug)", "line 1, column 25: mismatched input '-'"),
    ("(a:disease)\n  -[:indication]->(d:drug", "line 2, column 26: mismatched input '<EOF>'"),
])
def test_pattern_syntax_error_names_line_and_column(pattern, where):
    message = _message(_relation(pattern=pattern))
    assert message.startswith(f"{SOURCE}: pattern syntax error at {where} expecting ")
    assert message.endswith(f" in {pattern!r}")


@pytest.mark.parametrize(("pattern", "answer", "problem"), [
    ("(a:drug)-[:x]->(b:drug)-[:y]->(c:drug)-[:z]->(a)", "c",
     "has a directed cycle; a reference DAG must be acyclic"),
    ("(a:drug)-[:x]->(b:drug), (c:drug)-[:y]->(d:drug)", "b",
     "is disconnected (c, d not joined to a)"),
    ("(a:disease)-[:indication]->(d:drug), (a)-[:contraindication]->(e:drug)", "d",
     "has 2 sinks (d, e); a reference DAG needs exactly one, the answer"),
    ("(a:drug)-[:x]->(a)", "a", "has a self-loop on a"),
    ("(a:drug)-[:x]->(b:drug), (a)-[:x]->(b)", "b", "repeats the edge a-[:x]->b"),
])
def test_pattern_that_is_not_a_reference_dag(pattern, answer, problem):
    message = _message(_relation(pattern=pattern, answer=answer))
    assert message == f"{SOURCE}: pattern {pattern!r} {problem}"


def test_answer_must_be_the_sink():
    message = _message(_relation(pattern="(d:drug)-[:indication]->(a:disease)"))
    assert message == (f"{SOURCE}: answer variable 'd' is not the pattern's sink (a); "
                       "edges must point towards the answer")


def test_answer_variable_not_in_the_pattern():
    message = _message(_relation(answer="x"))
    assert message == (f"{SOURCE}: answer variable 'x' is not in the pattern "
                       "'(a:disease)-[:indication]->(d:drug)' (variables: a, d)")


def test_template_placeholder_not_in_the_pattern():
    templates = list(TEMPLATES)
    templates[2] = "Which drug treats {a} in {q}?"
    message = _message(_relation(templates=templates))
    assert message == (f"{SOURCE}: spec t: templates.2: placeholder {{q}} is not a pattern "
                       "variable (variables: a, d)")


def test_fewer_than_five_templates():
    message = _message(_relation(templates=TEMPLATES[:4]))
    assert message == (f"{SOURCE}: templates: Tuple should have at least 5 items after "
                       "validation, not 4")


def test_template_without_placeholder():
    message = _message(_relation(templates=[*TEMPLATES[:4], "Which drug is it?"]))
    assert message == (f"{SOURCE}: templates: Value error, template 'Which drug is it?' names "
                       "no pattern variable")


def test_templates_naming_different_variables():
    pattern = "(a:disease)-[:indication]->(d:drug)<-[:indication]-(b:disease)"
    templates = [t.replace("{a}", "{a} and {b}") for t in TEMPLATES]
    templates[3] = "Find the drug indicated for {a}."
    message = _message(_relation(pattern=pattern, templates=templates))
    assert message == (f"{SOURCE}: spec t: templates.3 names ['a'] but templates.0 names "
                       "['a', 'b']; every template must name the same variables")


def test_template_naming_the_answer():
    templates = list(TEMPLATES)
    templates[1] = "Is {d} approved for {a}?"
    message = _message(_relation(templates=templates))
    assert message == f"{SOURCE}: spec t: templates.1 names the answer {{d}}"


def test_absent_edge_must_be_one_edge_over_pattern_variables():
    two = "(a)<-[:indication]-(d)<-[:indication]-(z)"
    assert _message(_relation(absent=[two])) == (
        f"{SOURCE}: spec t: absent: {two!r} must be one edge")
    assert _message(_relation(absent=["(a)<-[:indication]-(z)"])) == (
        f"{SOURCE}: spec t: absent edge names 'z', which is not a pattern variable")


def test_rho_below_two():
    message = _message(_entity(rho=1))
    assert message == (f"{SOURCE}: rho: Value error, rho must be at least 2 (a path of one hop "
                       "has 2 nodes), got 1")


def test_lengths_outside_the_rho_bound():
    message = _message(_entity(lengths={3: 1.0}))
    assert message == f"{SOURCE}: spec e: lengths: 3 hops is outside 1..2 (rho = 3 nodes)"


@pytest.mark.parametrize(("kind", "shown"), [("relations", "'relations'"), (None, "None")])
def test_unknown_kind(kind, shown):
    data = _relation(kind=kind)
    if kind is None:
        del data["kind"]
    message = _message(data)
    assert message == f"{SOURCE}: kind must be relation, entity or task (got {shown})"


def test_unknown_extra_field():
    message = _message(_relation(answr="d"))
    assert message == f"{SOURCE}: answr: Extra inputs are not permitted"


def test_not_a_mapping():
    assert _message(["kind", "relation"]) == f"{SOURCE}: a spec must be a YAML mapping"


def test_bad_yaml_names_the_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("kind: relation\nname: broken\n  description: oops\nanswer: d\n")
    with pytest.raises(InputError) as caught:
        load_spec_file(path)
    assert str(caught.value) == f"{path}: not valid YAML at line 3, column 14"


def test_missing_spec_file(tmp_path):
    with pytest.raises(InputError) as caught:
        load_spec_file(tmp_path / "nope.yaml")
    assert str(caught.value) == f"spec file {tmp_path / 'nope.yaml'} does not exist"


# -- against the Alzheimer PrimeKG extract ---------------------------------------------------


def test_unknown_label_suggests_the_close_one(alzheimer):
    message = _message(_relation(pattern="(a:dissease)-[:indication]->(d:drug)"), alzheimer)
    assert message == "spec t: unknown label 'dissease'; did you mean disease?"


def test_unknown_label_without_a_close_one_lists_the_labels(alzheimer):
    message = _message(_relation(pattern="(a:planet)-[:indication]->(d:drug)"), alzheimer)
    assert message == ("spec t: unknown label 'planet'; known: disease, drug, effect__phenotype, "
                       "exposure, gene__protein, pathway")


def test_unknown_relation_type_suggests_close_ones(alzheimer):
    message = _message(_relation(pattern="(a:disease)-[:indicaton]->(d:drug)"), alzheimer)
    assert message == ("spec t: unknown relationship type 'indicaton'; did you mean indication, "
                       "contraindication?")


def test_relation_between_labels_it_never_joins(alzheimer):
    message = _message(_relation(pattern="(a:drug)-[:indication]->(d:drug)"), alzheimer)
    assert message == ("spec t: no indication edges go from drug to drug in this KG "
                       "(indication joins disease->drug, drug->disease)")


def test_valid_shape_without_matches(alzheimer):
    # exposure_disease reaches 59 diseases, none of which has an off-label drug here
    pattern = "(a:exposure)-[:exposure_disease]->(x:disease)-[:off_label_use]->(d:drug)"
    message = _message(_relation(pattern=pattern), alzheimer)
    assert message == "spec t has no matches in this KG"


def test_every_candidate_broken_by_a_constraint(alzheimer):
    # every indication is loaded in both directions, so the absent edge kills every match
    message = _message(_relation(absent=["(a)<-[:indication]-(d)"]), alzheimer)
    assert message == ("spec t has no matches in this KG (every candidate breaks injectivity "
                       "or a constraint)")


def test_a_good_spec_passes_the_same_checks(alzheimer):
    """The control for the tests above: the unbroken spec prepares and counts its matches."""
    sampler = prepare_sampler(parse_spec(_relation(), SOURCE), alzheimer)
    assert isinstance(sampler, RelationSampler)
    expected = alzheimer.value("MATCH (a:disease)-[:indication]->(d:drug) "
                               "RETURN count(DISTINCT [a.id, d.id])")
    assert sampler.count().matches == expected == 265


def test_task_spec_has_no_spec_sampler(alzheimer):
    spec = parse_spec({"kind": "task", "name": "tk", "description": "d", "task": "x"}, SOURCE)
    with pytest.raises(InputError, match=re.escape(
            "spec tk is a task spec; `kgcert.tasks` samples those")):
        prepare_sampler(spec, alzheimer)


# -- entity specs against the countries KG ---------------------------------------------------


def test_pivot_not_in_the_kg(countries):
    message = _message(_entity(pivots=["Q30", "Q99999999999"]), countries)
    assert message == "spec e: pivot 'Q99999999999' is not in the KG"
    message = _message(_entity(pivots=["Q30", "Q99999999999", "Qnope"]), countries)
    assert message == "spec e: pivots 'Q99999999999', 'Qnope' are not in the KG"
    many = [f"Q9{i:010d}" for i in range(7)]
    message = _message(_entity(pivots=["Q30", *many]), countries)
    assert message == ("spec e: pivots " + ", ".join(repr(p) for p in many[:5])
                       + " and 2 more are not in the KG")


def test_unknown_relation_in_the_filter_suggests(countries):
    message = _message(_entity(relations={"include": ["P17x"]}), countries)
    assert message == ("spec e: relations: unknown relationship type 'P17x'; did you mean P17, "
                       "P417, P172?")


def test_a_good_entity_spec_prepares(countries):
    """The control: a pivot in the KG with paths of 1 and 2 hops (seigneurie de Naplouse)."""
    sampler = prepare_sampler(parse_spec(_entity(pivots=["Q9304513"]), SOURCE), countries)
    assert isinstance(sampler, EntitySampler)
    assert sampler.lengths == [1, 2]
