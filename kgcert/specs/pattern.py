"""Parse a spec's Cypher pattern into a reference DAG.

The parser (`pattern_parser`) is antlr4-cypher (the openCypher grammar compiled for ANTLR's
official Python runtime): it accepts exactly what Cypher accepts and reports syntax errors with
line and column. cypher-guard (Neo4j field team) was the other candidate; it validates whole queries
against a schema but exposes no syntax tree to Python, and a tree is what the compiler needs.

A pattern is a comma-separated list of paths of node patterns `(v:Label)` joined by
single-hop relationship patterns `-[:TYPE]->` or `<-[:TYPE]-`. Every node needs a variable;
each relationship needs exactly one type and a direction. Variable-length hops, properties
and relationship variables are refused: a reference DAG is a fixed set of typed nodes and
typed, directed edges.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path

from kgcert.errors import InputError
from kgcert.specs.pattern_graph import PatternEdge, PatternGraph

__all__ = ["PatternEdge", "PatternGraph", "check_reference_dag", "parse_pattern"]


def parse_pattern(text: str) -> PatternGraph:
    """Parse and check syntax; shape checks (DAG, one sink) are `check_reference_dag`'s job.

    A pattern parsed once is cached in kgcert's cache directory (keyed by the text and the
    parser's source), so later commands skip ANTLR's import and parse (about a second)."""
    cache = _cache_file(text)
    cached = _read_cached(cache) if cache else None
    if cached is not None:
        return cached
    from kgcert.specs.pattern_parser import parse_cypher_pattern

    graph = parse_cypher_pattern(text)
    if cache:
        _write_cached(cache, graph)
    return graph


def _cache_file(text: str) -> Path | None:
    from kgcert.util.locations import cache_dir

    try:
        parser_source = Path(__file__).with_name("pattern_parser.py").read_bytes()
    except OSError:
        return None
    folder = cache_dir() / "patterns"
    key = hashlib.sha256(parser_source + b"\0" + text.encode("utf-8")).hexdigest()
    return folder / f"{key[:32]}.json"


def _read_cached(path: Path) -> PatternGraph | None:
    """The cached parse, or None when absent or not as written (then it is parsed again)."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        labels = {str(var): (None if label is None else str(label))
                  for var, label in body["labels"]}
        edges = tuple(PatternEdge(str(s), str(r), str(t)) for s, r, t in body["edges"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return PatternGraph(labels, edges)


def _write_cached(path: Path, graph: PatternGraph) -> None:
    from kgcert.util.atomicfile import write_cache_json

    write_cache_json(path, {"labels": list(graph.labels.items()),
                            "edges": [[e.source, e.rel_type, e.target] for e in graph.edges]})


def check_reference_dag(graph: PatternGraph, answer: str, text: str) -> None:
    """A reference DAG: connected, acyclic, no repeated edge, one sink, which is the answer."""
    if answer not in graph.labels:
        raise InputError(f"answer variable {answer!r} is not in the pattern {text!r} "
                         f"(variables: {', '.join(graph.labels)})")
    seen: set[PatternEdge] = set()
    for edge in graph.edges:
        if edge.source == edge.target:
            raise InputError(f"pattern {text!r} has a self-loop on {edge.source}")
        if edge in seen:
            raise InputError(f"pattern {text!r} repeats the edge {edge.source}-[:{edge.rel_type}]->"
                             f"{edge.target}")
        seen.add(edge)
    if len(graph.topological_order()) != len(graph.labels):
        raise InputError(f"pattern {text!r} has a directed cycle; a reference DAG must be acyclic")
    neighbours: dict[str, set[str]] = defaultdict(set)
    for edge in graph.edges:
        neighbours[edge.source].add(edge.target)
        neighbours[edge.target].add(edge.source)
    start = graph.variables[0]
    reached = {start}
    frontier = [start]
    while frontier:
        for nxt in neighbours[frontier.pop()] - reached:
            reached.add(nxt)
            frontier.append(nxt)
    if reached != set(graph.labels):
        apart = ", ".join(var for var in graph.labels if var not in reached)
        raise InputError(f"pattern {text!r} is disconnected ({apart} not joined to {start})")
    sinks = graph.sinks()
    if len(sinks) != 1:
        raise InputError(f"pattern {text!r} has {len(sinks)} sinks ({', '.join(sinks)}); "
                         "a reference DAG needs exactly one, the answer")
    if sinks[0] != answer:
        raise InputError(f"answer variable {answer!r} is not the pattern's sink ({sinks[0]}); "
                         "edges must point towards the answer")
