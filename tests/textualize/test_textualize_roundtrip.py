"""Property tests: any subgraph, with any names, renders reproducibly and parses back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgcert.textualize import EdgeTextualizer, RdfTextualizer, get_textualizer, names, to_ids
from kgcert.textualize.common import hidden_char
from kgcert.textualize.rdf import rdf_graph
from kgcert.textualize.subgraph import Edge, Node, Subgraph

# Any text without surrogates, plus a pool that makes repeated and awkward names likely.
awkward = st.sampled_from(
    ["Paris", "Paris [e1]", "", " padded ", "a, b", "(x)", 'say "hi"', "it's", "yes", "null",
     "1.5", "a: b", "- dash", "#hash", "line\nbreak", "nel\x85", "sep\u2028", "tab\t", "\x7f",
     "ключ", "東京", "🙂", "-x.", "a_b", "a b", "%41", "@id", "rel:x"]
)  # fmt: skip
texts = awkward | st.text(st.characters(exclude_categories=["Cs"]), max_size=12)


@st.composite
def subgraphs(draw: st.DrawFn) -> Subgraph:
    node_names = draw(st.lists(texts, max_size=7))
    nodes = [Node(f"n{i}", name) for i, name in enumerate(node_names)]
    edges: list[Edge] = []
    if nodes:
        index = st.integers(0, len(nodes) - 1)
        for number, (head, relation, tail) in enumerate(
            draw(st.lists(st.tuples(index, texts, index), max_size=10))
        ):
            edges.append(Edge(f"r{number}", f"n{head}", relation, f"n{tail}"))
        if draw(st.booleans()) and edges:
            first = edges[0]
            edges.append(Edge("parallel", first.source, first.relation, first.target))
    return Subgraph.build(nodes, edges)


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(subgraphs())
def test_edge_formats_round_trip(graph: Subgraph) -> None:
    expected = Counter((edge.source, edge.relation, edge.target) for edge in graph.edges)
    for name in ("list", "json", "yaml"):
        textualizer = get_textualizer(name)
        assert isinstance(textualizer, EdgeTextualizer)
        text = textualizer.render(graph)
        assert text == textualizer.render(graph)
        assert Counter(to_ids(textualizer.parse_edges(text), graph)) == expected, name


@SETTINGS
@given(subgraphs())
def test_rdf_formats_round_trip(graph: Subgraph) -> None:
    expected = set(rdf_graph(graph))
    for name in ("turtle", "jsonld"):
        textualizer = get_textualizer(name)
        assert isinstance(textualizer, RdfTextualizer)
        text = textualizer.render(graph)
        assert text == textualizer.render(graph)
        assert set(textualizer.parse_graph(text)) == expected, name


@SETTINGS
@given(subgraphs())
def test_no_raw_control_characters_or_line_breaks_inside_items(graph: Subgraph) -> None:
    """Line-based layouts stay line-based: names cannot add or hide lines."""
    for name in ("list", "json", "turtle", "jsonld"):
        text = get_textualizer(name).render(graph)
        assert not any(hidden_char(char) for char in text.replace("\n", "")), name
    lines = get_textualizer("list").render(graph).split("\n")
    assert len(lines) == len(graph.edges) + 1
    json.loads(get_textualizer("json").render(graph))


RENDER_ALL = """
from kgcert.textualize.subgraph import Edge, Node, Subgraph
from kgcert.textualize import get_textualizer, names
from kgcert.tasks.pseudonym import pseudonymize
nodes = [Node(f"n{i}", name, kind) for i, (name, kind) in enumerate(
    [("Paris", "city"), ("France", "country"), ("Paris", "city"), ("Lyon", "city")])]
edges = [Edge("a", "n0", "capital of", "n1"), Edge("b", "n2", "named after", "n0"),
         Edge("c", "n3", "in", "n1"), Edge("d", "n3", "in", "n1")]
graph = Subgraph.build(nodes, edges)
hidden = pseudonymize(graph, 11).apply_subgraph(graph)
for name in names():
    print(get_textualizer(name).render(graph), get_textualizer(name).render(hidden))
"""


def test_output_does_not_depend_on_hash_seed() -> None:
    outputs = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        result = subprocess.run(
            [sys.executable, "-c", RENDER_ALL], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert names() == ["json", "jsonld", "list", "turtle", "yaml"]
