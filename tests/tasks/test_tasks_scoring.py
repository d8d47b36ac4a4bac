"""Scorers, specs and registry of the KG-LLM-Bench tasks (no graph server needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgcert.errors import InputError
from kgcert.tasks import (
    TaskInstance,
    get_task,
    load_task_spec,
    names,
    parse_task_spec,
    score_exact,
    score_flexible,
    shipped_specs,
)
from kgcert.tasks.scoring import normalize, parse_label_list
from kgcert.tasks.shortest_path import all_shortest_paths, render_labels
from kgcert.textualize.subgraph import Edge, Node, Subgraph

COTE = "Côte d'Ivoire"


def _instance(task: str, answers: list[str], details: dict[str, Any],
              subgraph: Subgraph | None = None) -> TaskInstance:
    graph = subgraph or Subgraph.build([Node("a", "A")], [])
    return TaskInstance(task=task, spec_hash="0" * 16, seed=0, index=0, subgraph=graph,
                        question="q", answer_format="f", answers=tuple(answers),
                        details=details)


def _yes(answer: str = "Yes") -> TaskInstance:
    return _instance("triple_retrieval", [answer], {})


def _count(n: int, task: str = "agg_by_relation") -> TaskInstance:
    return _instance(task, [str(n)], {"count": n})


def _entity(*labels: str) -> TaskInstance:
    return _instance("highest_degree_node", list(labels), {})


def _path_graph() -> Subgraph:
    """s - (x1 | x2 "Côte d'Ivoire") - t, plus a longer detour s - y - z - t and a twin
    label: two entities named "Twin" where only one lies on a shortest path."""
    nodes = [Node("s", "Start"), Node("x1", "Middle"), Node("x2", COTE), Node("t", "End"),
             Node("y", "Twin"), Node("z", "Zed"), Node("w", "Twin")]
    edges = [Edge("1", "s", "r", "x1"), Edge("2", "x1", "r", "t"), Edge("3", "t", "r", "x2"),
             Edge("4", "s", "q", "x2"), Edge("5", "s", "r", "y"), Edge("6", "y", "r", "z"),
             Edge("7", "z", "r", "t"), Edge("8", "w", "r", "t")]
    return Subgraph.build(nodes, edges)


def _path_instance() -> TaskInstance:
    graph = _path_graph()
    length, paths, _ = all_shortest_paths(graph, "s", "t")
    name = {n.id: n.name for n in graph.nodes}
    answers = [render_labels([name[n] for n in p]) for p in paths]
    return _instance("shortest_path", answers,
                     {"source": "s", "target": "t", "length": length}, graph)


# --- Yes / No --------------------------------------------------------------------------------

@pytest.mark.parametrize("reply, exact, flexible", [
    ("Yes", True, True),
    ("  Yes\n", True, True),
    ("Yes.", False, True),
    ("yes", False, True),
    ("**Yes**", False, True),
    ("- Yes, the fact is listed.", False, True),
    ("Answer: Yes", False, True),
    ("> YES", False, True),
    ("No", False, False),
    ("No.", False, False),
    ("The fact is present.\nAnswer: no", False, False),
    ("", False, False),
    ("Yesterday", False, False),
])
def test_yes_no_scoring(reply: str, exact: bool, flexible: bool) -> None:
    assert score_exact(_yes(), reply) is exact
    assert score_flexible(_yes(), reply) is flexible


def test_no_answer_scoring() -> None:
    assert score_exact(_yes("No"), "No")
    assert not score_exact(_yes("No"), "Yes")
    assert score_flexible(_yes("No"), "No, it is not in the graph.")
    assert not score_flexible(_yes("No"), "Yes")


# --- counts ----------------------------------------------------------------------------------

@pytest.mark.parametrize("reply, exact, flexible", [
    ("Answer: 3", True, True),
    ("I count the edges.\nAnswer: 3", True, True),
    ("Answer:3", True, True),
    ("**Answer:** 3", False, True),
    ("answer: 3", False, True),
    ("3", False, True),
    ("3.", False, True),
    ("Three", False, True),
    ("There are 3 such relations.", False, True),
    ("The answer is 3.", False, True),
    ("Answer: 4", False, False),
    ("Answer: 34", False, False),
    ("Answer: 2 ... on reflection, Answer: 3", False, True),
    ("", False, False),
    ("G20 has 2 members and G7 has 3", False, False),
])
def test_count_scoring(reply: str, exact: bool, flexible: bool) -> None:
    for task in ("agg_by_relation", "agg_neighbor_properties"):
        assert score_exact(_count(3, task), reply) is exact
        assert score_flexible(_count(3, task), reply) is flexible


def test_exact_count_takes_the_first_marker_like_the_paper() -> None:
    assert score_exact(_count(2), "Answer: 2 ... on reflection, Answer: 3")


# --- entities --------------------------------------------------------------------------------

@pytest.mark.parametrize("reply, exact, flexible", [
    (f"Answer: {COTE}", True, True),
    (f"Answer: {COTE}  \nbecause it has 5 edges", True, True),
    ("Answer: Côte d’Ivoire", False, True),
    ("Answer: cote d'ivoire", False, True),
    (f"**Answer:** {COTE}", False, True),
    (f"Answer: '{COTE}'", False, True),
    (f"Answer: {COTE}.", False, True),
    (f"{COTE}", False, True),
    (f"Answer: {COTE} (12 relations)", False, True),
    ("Answer: Guinea-Bissau", True, True),
    ("Answer: Guinea Bissau", False, True),
    ("Answer: France", False, False),
    ("Answer: Côte", False, False),
    ("", False, False),
])
def test_entity_scoring_handles_apostrophes(reply: str, exact: bool, flexible: bool) -> None:
    instance = _entity(COTE, "Guinea-Bissau")
    assert score_exact(instance, reply) is exact
    assert score_flexible(instance, reply) is flexible


# --- paths -----------------------------------------------------------------------------------

def test_all_shortest_paths_listed() -> None:
    instance = _path_instance()
    assert instance.details["length"] == 2
    assert set(instance.answers) == {"['Start', 'Middle', 'End']",
                                     "['Start', \"Côte d'Ivoire\", 'End']"}


@pytest.mark.parametrize("reply, exact, flexible", [
    ("SHORTEST PATH: ['Start', 'Middle', 'End']", True, True),
    ("['Start', 'Middle', 'End']", True, True),
    ("SHORTEST PATH: ['Start', \"Côte d'Ivoire\", 'End']", True, True),
    ("SHORTEST PATH: ['Start', 'Côte d'Ivoire', 'End']", True, True),
    ('SHORTEST PATH: ["Start", "Middle", "End"]', True, True),
    ("SHORTEST PATH: ['start', 'middle', 'end']", False, True),
    ("SHORTEST PATH: [Start, Middle, End]", False, True),
    ("Start -> Middle -> End", False, True),
    ("Let me think.\nSHORTEST PATH: ['Start', 'Middle', 'End']", False, True),
    ("**SHORTEST PATH:** ['Start', 'Middle', 'End']", False, True),
    ("SHORTEST PATH: ['Start', 'Middle', 'End'] is the answer", False, True),
    ("SHORTEST PATH: ['Start', 'Twin', 'Zed', 'End']", False, False),  # a longer path
    ("SHORTEST PATH: ['Start', 'Twin', 'End']", False, False),  # the wrong Twin
    ("SHORTEST PATH: ['Start', 'End']", False, False),  # no such edge
    ("SHORTEST PATH: ['End', 'Middle', 'Start']", False, False),  # reversed
    ("SHORTEST PATH: []", False, False),
    ("SHORTEST PATH:", False, False),
    ("", False, False),
    ("[", False, False),
])
def test_path_scoring(reply: str, exact: bool, flexible: bool) -> None:
    instance = _path_instance()
    assert score_exact(instance, reply) is exact
    assert score_flexible(instance, reply) is flexible


def test_parse_label_list() -> None:
    assert parse_label_list("['A', 'B']") == ["A", "B"]
    assert parse_label_list("[]") == []
    assert parse_label_list(f"['{COTE}', \"B\"]") == [COTE, "B"]
    assert parse_label_list("['A', 'B',]") == ["A", "B"]
    assert parse_label_list("['A', B]") is None
    assert parse_label_list("A, B") is None
    assert parse_label_list("['A'") is None


@given(st.lists(st.text(min_size=1).filter(lambda s: "', " not in s and '", ' not in s
                                            and not s.endswith(("'", '"', "\\"))
                                            and "\\" not in s),
                min_size=1, max_size=5))
@settings(max_examples=200, deadline=None)
def test_render_then_parse_round_trips(labels: list[str]) -> None:
    assert parse_label_list(render_labels(labels)) == labels


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_scorers_never_raise(reply: str) -> None:
    for instance in (_yes(), _count(2), _entity(COTE), _path_instance()):
        assert isinstance(score_exact(instance, reply), bool)
        assert isinstance(score_flexible(instance, reply), bool)


def test_none_and_empty_replies_score_false() -> None:
    for instance in (_yes(), _count(0), _entity("A"), _path_instance()):
        assert score_exact(instance, None) is False
        assert score_flexible(instance, None) is False
        assert score_exact(instance, "") is False


def test_normalize() -> None:
    assert normalize("  **Côte d’Ivoire.** ") == normalize("cote d'ivoire") == "cote divoire"
    assert normalize("Guinea-Bissau") == "guinea bissau"


# --- registry and specs ----------------------------------------------------------------------

def test_registry_names_and_aliases() -> None:
    assert names() == ["agg_by_relation", "agg_neighbor_properties", "highest_degree_node",
                       "shortest_path", "triple_retrieval"]
    assert get_task("ShortestPath").name == "shortest_path"
    with pytest.raises(InputError) as error:
        get_task("longest_path")
    for name in names():
        assert name in str(error.value)


def test_shipped_specs_follow_table_4() -> None:
    assert [p.stem for p in shipped_specs()] == names()
    table4 = {  # seeds, max edges, radius, min degree (KG-LLM-Bench App. B.5)
        "triple_retrieval": (10, 200, 1, 1),
        "shortest_path": (10, 200, 1, 1),
        "highest_degree_node": (10, 200, 1, 1),
        "agg_by_relation": (1, 200, 2, 2),
        "agg_neighbor_properties": (1, 200, 2, 2),
    }
    for name, (seeds, max_edges, radius, min_degree) in table4.items():
        spec = load_task_spec(name)
        assert spec.task == name and spec.instances == 100
        s = spec.sampling
        assert (s.seed_entities, s.max_edges, s.radius, s.min_degree) == (
            seeds, max_edges, radius, min_degree)
        assert len(spec.description) > 100


def test_spec_hash_changes_with_any_setting() -> None:
    spec = load_task_spec("triple_retrieval")
    assert spec.hash == load_task_spec("triple_retrieval").hash
    assert spec.with_sampling(max_edges=100).hash != spec.hash
    assert spec.with_sampling(max_edges=200).hash == spec.hash
    raw = spec.as_dict()
    assert parse_task_spec({**raw, "description": "other words"}).hash == spec.hash
    assert parse_task_spec({**raw, "name": "mine"}).hash != spec.hash


def test_task_specs_share_the_spec_catalog() -> None:
    from kgcert.specs.catalog import catalog

    listed = {e.spec.name: e for e in catalog() if e.spec.kind == "task"}
    assert sorted(listed) == [f"kgllmbench.{name}" for name in names()]
    for name, entry in listed.items():
        spec = parse_task_spec(entry.spec.model_dump(mode="json"), str(entry.path))
        assert spec == load_task_spec(name) == load_task_spec(spec.task)


def _spec(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"kind": "task", "task": "agg_by_relation",
                           "description": "counts", "sampling": {"radius": 2}}
    raw.update(changes)
    return raw


@pytest.mark.parametrize("raw, message", [
    (_spec(kind="spec"), "kind must be 'task'"),
    (_spec(task="nope"), "valid tasks"),
    (_spec(colour="red"), "unknown keys colour"),
    (_spec(sampling={"radius": 0}), "sampling.radius"),
    (_spec(sampling={"hops": 2}), "unknown sampling keys hops"),
    (_spec(sampling={"max_degree": -1}), "sampling.max_degree"),
    (_spec(options={"min_count": -1}), "min_count"),
    (_spec(options={"flavour": 1}), "unknown options"),
    (_spec(instances=0), "instances"),
    (_spec(description=""), "description"),
    ([1, 2], "mapping"),
])
def test_bad_specs(raw: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_task_spec(raw, "test.yaml")


def test_bad_highest_degree_directions() -> None:
    raw = _spec(task="highest_degree_node", options={"directions": ["sideways"]})
    with pytest.raises(InputError, match="directions"):
        parse_task_spec(raw, "test.yaml")


def test_spec_file_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_task_spec(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [task\n")
    with pytest.raises(InputError, match="not valid YAML"):
        load_task_spec(bad)
