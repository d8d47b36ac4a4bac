"""Pseudonymization: deterministic, collision-free fictional names applied consistently."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgcert.errors import InputError
from kgcert.tasks.pseudonym import fictional_names, pseudonymize
from kgcert.textualize import get_textualizer
from kgcert.textualize.subgraph import Edge, Node, Subgraph

ids_lists = st.lists(st.text(min_size=1, max_size=10), max_size=40)


@pytest.fixture
def graph() -> Subgraph:
    nodes = [
        Node("Q90", "Paris", "city"),
        Node("Q142", "France", "country"),
        Node("Q830149", "Paris", "city"),
        Node("Q60", "New York", "city"),
        Node("Q61", "New York City", "city"),
        Node("Q62", "York", "city"),
        Node("Q7", "C++", "language"),
        Node("Q8", "Fever", "disease"),
    ]
    edges = [
        Edge("a", "Q90", "capital of", "Q142"),
        Edge("b", "Q830149", "named after", "Q90"),
        Edge("c", "Q61", "located in", "Q60"),
        Edge("d", "Q62", "twinned with", "Q61"),
        Edge("e", "Q62", "twinned with", "Q61"),
    ]
    return Subgraph.build(nodes, edges)


def test_same_seed_same_names_in_any_order() -> None:
    ids = [f"Q{i}" for i in range(50)]
    types = {entity_id: "country" for entity_id in ids[:20]}
    first = fictional_names(ids, 7, types=types)
    shuffled = ids[:]
    random.Random(3).shuffle(shuffled)
    second = fictional_names(shuffled, 7, types=dict(reversed(types.items())))
    assert first == second
    assert fictional_names(ids, 8, types=types) != first
    assert fictional_names(ids, "7", types=types) != first  # int and str seeds differ


@settings(max_examples=200, deadline=None)
@given(ids_lists, st.integers(0, 2**40), st.lists(st.text(max_size=10), max_size=20))
def test_names_are_distinct_and_avoid_the_given_names(
    ids: list[str], seed: int, avoid: list[str]
) -> None:
    names = fictional_names(ids, seed, avoid=avoid)
    assert set(names) == set(ids)
    folded = [name.casefold() for name in names.values()]
    assert len(set(folded)) == len(folded)
    assert not set(folded) & {name.casefold() for name in avoid}
    assert names == fictional_names(list(reversed(ids)), seed, avoid=list(reversed(avoid)))


def test_types_choose_a_style() -> None:
    ids = [f"x{i}" for i in range(20)]
    genes = fictional_names(ids, 1, types=dict.fromkeys(ids, "gene/protein"))
    assert all(re.fullmatch(r"[A-Z]{3,4}\d{1,2}", name) for name in genes.values())
    drugs = fictional_names(ids, 1, types=dict.fromkeys(ids, "drug"))
    endings = ("mab", "vir", "olol", "azole", "pril", "statin", "cillin", "tinib", "zepam")
    assert all(name.endswith(endings) for name in drugs.values())
    plain = fictional_names(ids, 1)
    assert all(re.fullmatch(r"[A-Z][a-z]+", name) for name in plain.values())


def test_fictional_names_never_contain_a_real_name_as_a_word() -> None:
    ids = [f"x{i}" for i in range(300)]
    names = fictional_names(ids, 5, types=dict.fromkeys(ids, "disease"), avoid=["Fever", "palsy"])
    assert not any(re.search(r"\b(fever|palsy)\b", name, re.I) for name in names.values())


def test_pseudonymize_renames_names_not_ids(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3)
    real = {node.name.casefold() for node in graph.nodes}
    assert not {name.casefold() for name in mapping.names.values()} & real
    # Equal real names get one fictional name; distinct real names get distinct ones.
    assert mapping.names["Q90"] == mapping.names["Q830149"] == mapping.by_name["Paris"]
    assert len(set(mapping.by_name.values())) == len(mapping.by_name) == 7
    hidden = mapping.apply_subgraph(graph)
    assert [node.id for node in hidden.nodes] == [node.id for node in graph.nodes]
    assert hidden.edges == graph.edges
    assert hidden.node("Q142").name == mapping.by_name["France"]
    assert pseudonymize(graph, 3) == mapping


def test_pseudonymize_a_subset_takes_equal_names_along(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3, ids=["Q90", "Q62"])
    assert set(mapping.names) == {"Q90", "Q830149", "Q62"}
    assert mapping.kept_names == ("France", "New York", "New York City", "C++", "Fever")
    with pytest.raises(InputError, match="outside the subgraph"):
        pseudonymize(graph, 3, ids=["Q999"])


def test_avoid_keeps_outside_names_free(graph: Subgraph) -> None:
    plain = pseudonymize(graph, 3)
    taken = plain.by_name["France"]
    again = pseudonymize(graph, 3, avoid=[taken.upper()])
    assert taken not in again.by_name.values()


def test_apply_text_replaces_whole_words_only(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3)
    paris, france = mapping.by_name["Paris"], mapping.by_name["France"]
    text = "Paris is the capital of France. Parisian, Paris's, FrancePress, (Paris)"
    assert mapping.apply_text(text) == (
        f"{paris} is the capital of {france}. Parisian, {paris}'s, FrancePress, ({paris})"
    )
    assert mapping.apply_text("paris") == "paris"  # case-sensitive


def test_apply_text_prefers_longest_names(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3)
    city, state, york = (mapping.by_name[n] for n in ("New York City", "New York", "York"))
    text = "New York City, New York, York and New Yorkshire"
    assert mapping.apply_text(text) == f"{city}, {state}, {york} and New Yorkshire"
    assert mapping.restore_text(mapping.apply_text(text)) == text


def test_apply_text_protects_kept_names(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3, ids=["Q62"])  # only York
    york = mapping.by_name["York"]
    text = "York, New York and New York City"
    assert mapping.apply_text(text) == f"{york}, New York and New York City"


def test_names_with_regex_characters(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3)
    cpp = mapping.by_name["C++"]
    text = "I write C++, (C++) and C++/CLI; not C, xC++ or C++x."
    assert mapping.apply_text(text) == f"I write {cpp}, ({cpp}) and {cpp}/CLI; not C, xC++ or C++x."


def test_text_and_subgraph_stay_consistent(graph: Subgraph) -> None:
    """Rendering the renamed subgraph equals renaming the rendered text (markers included)."""
    mapping = pseudonymize(graph, 9)
    for name in ("list", "yaml", "turtle"):
        textualizer = get_textualizer(name)
        renamed = textualizer.render(mapping.apply_subgraph(graph))
        assert renamed == mapping.apply_text(textualizer.render(graph)), name
        assert "Paris" not in renamed and "France" not in renamed


def test_record_is_plain_data(graph: Subgraph) -> None:
    mapping = pseudonymize(graph, 3)
    mapping.apply_text("Paris")  # fills the cached patterns
    record = json.loads(json.dumps(dataclasses.asdict(mapping)))
    assert record["by_name"]["Paris"] == mapping.by_name["Paris"]
    assert set(record) == {"seed", "names", "by_name", "kept_names"}


word_names = st.text(st.sampled_from("abcdefgh ABC"), min_size=1, max_size=8).map(str.strip)


@settings(max_examples=150, deadline=None)
@given(st.lists(word_names.filter(bool), min_size=1, max_size=12), st.integers(0, 1000))
def test_apply_text_leaves_no_real_name(node_names: list[str], seed: int) -> None:
    graph = Subgraph.build([Node(f"n{i}", name) for i, name in enumerate(node_names)], [])
    mapping = pseudonymize(graph, seed)
    text = ", ".join(node_names)
    hidden = mapping.apply_text(text)
    assert hidden == ", ".join(mapping.by_name[name] for name in node_names)
    for name in node_names:
        assert not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", hidden)
    assert mapping.restore_text(hidden) == text
