"""Parse a spec's Cypher pattern into a reference DAG.

The parser is antlr4-cypher (the openCypher grammar compiled for ANTLR's official Python
runtime): it accepts exactly what Cypher accepts and reports syntax errors with line and
column. cypher-guard (Neo4j field team) was the other candidate; it validates whole queries
against a schema but exposes no syntax tree to Python, and a tree is what the compiler needs.

A pattern is a comma-separated list of paths of node patterns `(v:Label)` joined by
single-hop relationship patterns `-[:TYPE]->` or `<-[:TYPE]-`. Every node needs a variable;
each relationship needs exactly one type and a direction. Variable-length hops, properties
and relationship variables are refused: a reference DAG is a fixed set of typed nodes and
typed, directed edges.
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any

from antlr4 import CommonTokenStream, InputStream, Token
from antlr4.error.ErrorListener import ErrorListener
from antlr4.tree.Tree import TerminalNode
from antlr4_cypher import CypherLexer, CypherParser

from kgcert.errors import InputError

_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {"cypher", "dag"}


@dataclass(frozen=True)
class PatternEdge:
    source: str
    rel_type: str
    target: str


@dataclass(frozen=True)
class PatternGraph:
    """Variables with their label (None: any entity) and the directed, typed edges."""

    labels: dict[str, str | None]
    edges: tuple[PatternEdge, ...]

    @property
    def variables(self) -> list[str]:
        return list(self.labels)

    def sinks(self) -> list[str]:
        has_out = {edge.source for edge in self.edges}
        return [var for var in self.labels if var not in has_out]

    def topological_order(self) -> list[str]:
        """Variables, sources first; ties keep the order of first appearance."""
        indegree = dict.fromkeys(self.labels, 0)
        children: dict[str, list[str]] = defaultdict(list)
        for edge in self.edges:
            indegree[edge.target] += 1
            children[edge.source].append(edge.target)
        ready = deque(var for var in self.labels if indegree[var] == 0)
        order: list[str] = []
        while ready:
            var = ready.popleft()
            order.append(var)
            for child in children[var]:
                indegree[child] -= 1
                if indegree[child] == 0:
                    ready.append(child)
        return order


class _Raise(ErrorListener):
    def __init__(self, text: str) -> None:
        self.text = text

    def syntaxError(self, recognizer: object, symbol: object, line: int, column: int,
                    message: str, error: object) -> None:
        raise InputError(f"pattern syntax error at line {line}, column {column + 1}: {message} "
                         f"in {self.text!r}")


def _name(ctx: Any) -> str:
    text: str = ctx.getText()
    if text.startswith("`") and text.endswith("`"):
        return text[1:-1].replace("``", "`")
    return text


def _children(ctx: Any) -> list[object]:
    return list(ctx.getChildren())


def _node(ctx: Any, labels: dict[str, str | None], text: str) -> str:
    var: str | None = None
    label: str | None = None
    for child in _children(ctx):
        if isinstance(child, CypherParser.SymbolContext):
            var = _name(child)
        elif isinstance(child, CypherParser.NodeLabelsContext):
            names = [c for c in _children(child) if isinstance(c, CypherParser.NameContext)]
            if len(names) != 1:
                raise InputError(f"pattern node {ctx.getText()} must have exactly one label "
                                 f"(or none) in {text!r}")
            label = _name(names[0])
        elif isinstance(child, CypherParser.PropertiesContext):
            raise InputError(f"pattern node {ctx.getText()} has properties; put value "
                             "constraints in the spec, not the pattern")
    if var is None:
        raise InputError(f"pattern node {ctx.getText()} needs a variable name in {text!r}")
    if var in _RESERVED:
        raise InputError(f"variable name {var!r} is reserved (query parameters use it); "
                         f"rename it in {text!r}")
    if not _VARIABLE.match(var):
        raise InputError(f"variable {var!r} must be letters, digits and _ (templates name it "
                         f"as {{{{variable}}}}) in {text!r}")
    if var in labels and label is not None and labels[var] not in (None, label):
        raise InputError(f"variable {var} has two labels ({labels[var]}, {label}) in {text!r}")
    if var not in labels or label is not None:
        labels[var] = label
    return var


def _relationship(ctx: Any, text: str) -> tuple[str, bool]:
    """The relationship's type and whether it points left to right."""
    tokens = [c.getText() for c in _children(ctx) if isinstance(c, TerminalNode)]
    left, right = "<" in tokens, ">" in tokens
    if left == right:
        raise InputError(f"relationship {ctx.getText()} needs one direction (-> or <-) "
                         f"in {text!r}")
    detail = next((c for c in _children(ctx) if isinstance(c, CypherParser.RelationDetailContext)),
                  None)
    types: list[str] = []
    if detail is not None:
        for child in _children(detail):
            if isinstance(child, CypherParser.RelationshipTypesContext):
                types = [_name(c) for c in _children(child)
                         if isinstance(c, CypherParser.NameContext)]
            elif isinstance(child, CypherParser.SymbolContext):
                raise InputError(f"relationship {ctx.getText()} has a variable; the DAG's "
                                 "edges are fixed by their endpoints")
            elif isinstance(child, (CypherParser.RangeLitContext, CypherParser.PropertiesContext)):
                raise InputError(f"relationship {ctx.getText()} must be a single hop "
                                 "without properties")
            elif isinstance(child, TerminalNode) and child.getText() == "*":
                raise InputError(f"relationship {ctx.getText()} must be a single hop "
                                 "(no variable-length paths)")
    if len(types) != 1:
        raise InputError(f"relationship {ctx.getText()} needs exactly one type in {text!r}")
    return types[0], right


def parse_pattern(text: str) -> PatternGraph:
    """Parse and check syntax; shape checks (DAG, one sink) are `check_reference_dag`'s job."""
    listener = _Raise(text)
    lexer = CypherLexer(InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    stream = CommonTokenStream(lexer)
    parser = CypherParser(stream)
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    tree = parser.pattern()
    rest = stream.LT(1)
    if rest is not None and rest.type != Token.EOF:
        raise InputError(f"pattern syntax error at line {rest.line}, column {rest.column + 1}: "
                         f"unexpected {rest.text!r} in {text!r}")
    labels: dict[str, str | None] = {}
    edges: list[PatternEdge] = []
    for part in _children(tree):
        if not isinstance(part, CypherParser.PatternPartContext):
            continue
        for elem in _children(part):
            if isinstance(elem, CypherParser.SymbolContext):
                raise InputError(f"named paths are not supported in a spec pattern: {text!r}")
            if not isinstance(elem, CypherParser.PatternElemContext):
                continue
            previous: str | None = None
            for child in _children(elem):
                if isinstance(child, CypherParser.NodePatternContext):
                    previous = _node(child, labels, text)
                elif isinstance(child, CypherParser.PatternElemChainContext):
                    rel_ctx, node_ctx = (c for c in _children(child)
                                         if not isinstance(c, TerminalNode))
                    rel_type, rightwards = _relationship(rel_ctx, text)
                    current = _node(node_ctx, labels, text)
                    assert previous is not None
                    source, target = (previous, current) if rightwards else (current, previous)
                    edges.append(PatternEdge(source, rel_type, target))
                    previous = current
                elif isinstance(child, CypherParser.PatternElemContext):
                    raise InputError(f"parenthesised sub-patterns are not supported: {text!r}")
    if not labels:
        raise InputError(f"pattern {text!r} has no nodes")
    return PatternGraph(labels, tuple(edges))


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
