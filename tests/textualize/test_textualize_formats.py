"""The five textualizations on one awkward subgraph: repeated names, a parallel edge, a
self-loop, quotes, apostrophes, colons, commas and non-ASCII names, an isolated entity."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
import yaml
from rdflib import Literal, URIRef
from rdflib.namespace import RDFS

from kgcert.errors import InputError
from kgcert.textualize import (
    EdgeTextualizer,
    RdfTextualizer,
    entity_keys,
    get_textualizer,
    names,
    shown_names,
    to_ids,
)
from kgcert.textualize.rdf import rdf_graph, relation_local_name
from kgcert.textualize.subgraph import Edge, Node, Subgraph

FORMATS = ["json", "jsonld", "list", "turtle", "yaml"]
EDGE_FORMATS = ["json", "list", "yaml"]
RDF_FORMATS = ["jsonld", "turtle"]

NODES = [
    Node("Q90", "Paris", "city"),
    Node("Q142", "France", "country"),
    Node("Q830149", "Paris", "city"),  # Paris, Texas: same name, different entity
    Node("Q16", "Côte d'Ivoire", "country"),
    Node("X1", 'The "Quoted": one, two (three)', "thing"),
    Node("X2", "O'Brien's Land: 東京 ✓", "place"),
    Node("X3", "Atlantis", "island"),  # no edges at all
    Node("X4", "Paris [e1]", "odd"),  # looks like a marked name
]
EDGES = [
    Edge("r1", "Q90", "capital of", "Q142"),
    Edge("r2", "Q830149", "named after", "Q90"),
    Edge("r3", "Q830149", "named after", "Q90"),  # parallel to r2
    Edge("r4", "Q16", "diplomatic relation", "Q142"),
    Edge("r5", "X1", "part of: region", "X2"),
    Edge("r6", "X2", "twinned with", "X2"),  # self-loop
    Edge("r7", "Q142", "diplomatic relation", "Q16"),
    Edge("r8", "Q90", "capital_of", "X4"),  # relation differing from 'capital of' only by '_'
    Edge("r9", "X4", "part of: region", "Q142"),
]


@pytest.fixture
def graph() -> Subgraph:
    return Subgraph.build(NODES, EDGES)


def expected_by_id() -> Counter[tuple[str, str, str]]:
    return Counter((edge.source, edge.relation, edge.target) for edge in EDGES)


ENT = "urn:kgcert:entity:"
REL = "urn:kgcert:relation:"


def expected_rdf() -> set[tuple[URIRef, URIRef, URIRef | Literal]]:
    """Written out by hand: keys follow node order, relations are escaped by name."""
    key = {node.id: f"{ENT}e{i}" for i, node in enumerate(NODES, start=1)}
    rel = {
        "capital of": f"{REL}capital_of",
        "capital_of": f"{REL}capital%5Fof",
        "named after": f"{REL}named_after",
        "diplomatic relation": f"{REL}diplomatic_relation",
        "part of: region": f"{REL}part_of:_region",
        "twinned with": f"{REL}twinned_with",
    }
    triples: set[tuple[URIRef, URIRef, URIRef | Literal]] = set()
    for node in NODES:
        triples.add((URIRef(key[node.id]), RDFS.label, Literal(node.name)))
    for name, iri in rel.items():
        triples.add((URIRef(iri), RDFS.label, Literal(name)))
    for edge in EDGES:
        triples.add(
            (URIRef(key[edge.source]), URIRef(rel[edge.relation]), URIRef(key[edge.target]))
        )
    return triples


def rdf(name: str) -> RdfTextualizer:
    textualizer = get_textualizer(name)
    assert isinstance(textualizer, RdfTextualizer)
    return textualizer


def test_registry_lists_the_five_formats() -> None:
    assert names() == FORMATS


@pytest.mark.parametrize("name", FORMATS)
def test_description_is_one_nonempty_line(name: str) -> None:
    description = get_textualizer(name).description
    assert description.strip() == description
    assert description and "\n" not in description and len(description) < 300


@pytest.mark.parametrize("name", FORMATS)
def test_repeated_renders_are_byte_identical(name: str, graph: Subgraph) -> None:
    textualizer = get_textualizer(name)
    first = textualizer.render(graph)
    assert textualizer.render(graph) == first
    assert textualizer.render(Subgraph.build(list(NODES), list(EDGES))) == first
    assert first.endswith("\n") and first.encode("utf-8")


def test_shown_names_keep_equal_names_apart(graph: Subgraph) -> None:
    shown = shown_names(graph)
    assert shown["Q90"] == "Paris [e1]"
    assert shown["Q830149"] == "Paris [e3]"
    assert shown["Q142"] == "France"  # unique names stay bare
    # A real name that looks like a marked one is marked too, so nothing clashes.
    assert shown["X4"] == "Paris [e1] [e8]"
    assert len(set(shown.values())) == len(NODES)


@pytest.mark.parametrize("name", EDGE_FORMATS)
def test_edge_formats_parse_back_to_the_same_multiset(name: str, graph: Subgraph) -> None:
    textualizer = get_textualizer(name)
    assert isinstance(textualizer, EdgeTextualizer)
    parsed = textualizer.parse_edges(textualizer.render(graph))
    assert Counter(to_ids(parsed, graph)) == expected_by_id()
    assert Counter(to_ids(parsed, graph))[("Q830149", "named after", "Q90")] == 2


@pytest.mark.parametrize("name", ["json", "yaml"])
def test_structured_formats_keep_equal_names_as_separate_keys(name: str, graph: Subgraph) -> None:
    text = get_textualizer(name).render(graph)
    data = json.loads(text) if name == "json" else yaml.safe_load(text)
    assert list(data) == [
        "Paris [e1]",
        "France",
        "Paris [e3]",
        "Côte d'Ivoire",
        'The "Quoted": one, two (three)',
        "O'Brien's Land: 東京 ✓",
        "Atlantis",
        "Paris [e1] [e8]",
    ]
    assert data["Paris [e1]"] == {"capital of": ["France"], "capital_of": ["Paris [e1] [e8]"]}
    assert data["Paris [e3]"] == {"named after": ["Paris [e1]", "Paris [e1]"]}
    assert data["O'Brien's Land: 東京 ✓"] == {"twinned with": ["O'Brien's Land: 東京 ✓"]}
    assert data["Atlantis"] == {}


def test_json_example_layout(graph: Subgraph) -> None:
    text = get_textualizer("json").render(graph)
    assert text.startswith('{\n  "Paris [e1]": {\n    "capital of": ["France"],\n')
    assert '  "Atlantis": {},\n' in text
    assert "東京" in text  # non-ASCII is written as is


def test_list_lines_follow_edge_order(graph: Subgraph) -> None:
    text = get_textualizer("list").render(graph)
    lines = text.splitlines()
    assert lines[0] == "(Paris [e1], capital of, France)"
    assert lines[1] == lines[2] == "(Paris [e3], named after, Paris [e1])"
    quoted = '"The \\"Quoted\\": one, two (three)"'
    assert lines[4] == f"({quoted}, part of: region, O'Brien's Land: 東京 ✓)"
    assert len(lines) == len(EDGES)
    reversed_text = get_textualizer("list").render(Subgraph.build(NODES, EDGES[::-1]))
    assert reversed_text.splitlines() == lines[::-1]


@pytest.mark.parametrize("name", ["json", "yaml"])
def test_grouped_formats_follow_node_order(name: str) -> None:
    flipped = Subgraph.build(NODES[::-1], EDGES)
    text = get_textualizer(name).render(flipped)
    data = json.loads(text) if name == "json" else yaml.safe_load(text)
    # Keys are re-assigned in the new node order, so the real "Paris [e1]" is now unmarked.
    assert list(data) == [
        "Paris [e1]",
        "Atlantis",
        "O'Brien's Land: 東京 ✓",
        'The "Quoted": one, two (three)',
        "Côte d'Ivoire",
        "Paris [e6]",
        "France",
        "Paris [e8]",
    ]
    assert data["France"] == {"diplomatic relation": ["Côte d'Ivoire"]}


@pytest.mark.parametrize("name", RDF_FORMATS)
def test_rdf_formats_parse_back_to_exactly_the_expected_triples(name: str, graph: Subgraph) -> None:
    textualizer = get_textualizer(name)
    assert isinstance(textualizer, RdfTextualizer)
    parsed = set(textualizer.parse_graph(textualizer.render(graph)))
    assert parsed == expected_rdf()


def test_rdf_graph_is_the_expected_graph(graph: Subgraph) -> None:
    assert set(rdf_graph(graph)) == expected_rdf()


def test_rdf_parallel_edges_are_one_triple(graph: Subgraph) -> None:
    text = get_textualizer("turtle").render(graph)
    assert "rel:named_after ent:e1 .\n" in text  # written once, not "ent:e1, ent:e1"
    parsed = rdf("turtle").parse_graph(text)
    named_after = URIRef(f"{REL}named_after")
    assert len(list(parsed.triples((None, named_after, None)))) == 1


def test_equal_names_are_distinct_rdf_entities(graph: Subgraph) -> None:
    parsed = rdf("turtle").parse_graph(rdf("turtle").render(graph))
    paris = sorted(str(s) for s in parsed.subjects(RDFS.label, Literal("Paris")))
    assert paris == [f"{ENT}e1", f"{ENT}e3"]


def test_turtle_layout(graph: Subgraph) -> None:
    text = get_textualizer("turtle").render(graph)
    assert text.startswith("@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
    assert 'rel:capital%5Fof rdfs:label "capital_of" .\n' in text
    assert 'ent:e5 rdfs:label "The \\"Quoted\\": one, two (three)" ;\n' in text
    subjects = re.findall(r"^ent:e(\d+) ", text, flags=re.MULTILINE)
    assert subjects == [str(i) for i in range(1, len(NODES) + 1)]
    relations = re.findall(r"^rel:(\S+) rdfs:label", text, flags=re.MULTILINE)
    assert relations == [
        "capital_of",
        "named_after",
        "diplomatic_relation",
        "part_of:_region",
        "twinned_with",
        "capital%5Fof",
    ]


def test_jsonld_has_one_flat_context(graph: Subgraph) -> None:
    text = get_textualizer("jsonld").render(graph)
    document = json.loads(text)
    assert list(document) == ["@context", "@graph"]
    assert text.count('"@context"') == 1
    context = document["@context"]
    assert "@context" not in context
    assert context["ent"] == ENT and context["rel"] == REL and context["label"] == "rdfs:label"
    assert context["rel:capital_of"] == {"@type": "@id"}
    ids = [item["@id"] for item in document["@graph"]]
    assert ids[-len(NODES) :] == [f"ent:e{i}" for i in range(1, len(NODES) + 1)]
    paris_texas = document["@graph"][ids.index("ent:e3")]
    assert paris_texas == {"@id": "ent:e3", "label": "Paris", "rel:named_after": ["ent:e1"]}


def test_relation_local_names_are_reversible_escapes() -> None:
    assert relation_local_name("capital of") == "capital_of"
    assert relation_local_name("capital_of") == "capital%5Fof"
    assert relation_local_name("-x.y") == "%2Dx%2Ey"
    assert relation_local_name("été") == "été"
    assert relation_local_name("a/b#c") == "a%2Fb%23c"


def test_entity_keys_follow_node_order(graph: Subgraph) -> None:
    assert list(entity_keys(graph).values()) == [f"e{i}" for i in range(1, len(NODES) + 1)]


@pytest.mark.parametrize("name", FORMATS)
def test_empty_subgraph(name: str) -> None:
    empty = Subgraph.build([], [])
    textualizer = get_textualizer(name)
    text = textualizer.render(empty)
    if isinstance(textualizer, EdgeTextualizer):
        assert textualizer.parse_edges(text) == []
    else:
        assert isinstance(textualizer, RdfTextualizer)
        assert len(textualizer.parse_graph(text)) == 0


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("list", "(a, b)\n"),
        ("list", "a, b, c\n"),
        ("list", '("a, b, c)\n'),
        ("json", '["a", "b"]'),
        ("json", '{"a": {"r": "b"}}'),
        ("json", '{"a": {"r": [1]}}'),
        ("json", "{"),
        ("yaml", "- a\n- b\n"),
        ("yaml", "a:\n  r: b\n"),
        ("yaml", "a: [\n"),
    ],
)
def test_malformed_text_is_an_input_error(name: str, text: str) -> None:
    textualizer = get_textualizer(name)
    assert isinstance(textualizer, EdgeTextualizer)
    with pytest.raises(InputError):
        textualizer.parse_edges(text)


def test_unknown_parsed_name_is_an_input_error(graph: Subgraph) -> None:
    with pytest.raises(InputError, match="not in the subgraph"):
        to_ids([("Paris", "capital of", "France")], graph)  # "Paris" alone is ambiguous
