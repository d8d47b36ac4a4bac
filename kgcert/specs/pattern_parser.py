"""The Cypher pattern parser behind `kgcert.specs.pattern.parse_pattern` (antlr4-cypher).

Kept apart because ANTLR's runtime and the generated openCypher parser take a noticeable part of
a second to import; `parse_pattern` reads a cached parse first and imports this only on a miss.
"""

from __future__ import annotations

from typing import Any

from antlr4 import CommonTokenStream, InputStream, Token
from antlr4.error.ErrorListener import ErrorListener
from antlr4.tree.Tree import TerminalNode
from antlr4_cypher import CypherLexer, CypherParser

from kgcert.errors import InputError
from kgcert.specs.pattern_graph import RESERVED, VARIABLE, PatternEdge, PatternGraph
from kgcert.util.paths import not_ascii


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
    if var in RESERVED:
        raise InputError(f"variable name {var!r} is reserved (query parameters use it); "
                         f"rename it in {text!r}")
    if not VARIABLE.match(var):
        raise InputError(f"variable {var!r} must be ASCII letters, digits and _{not_ascii(var)} "
                         f"(templates name it as {{{{variable}}}}) in {text!r}")
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


def parse_cypher_pattern(text: str) -> PatternGraph:
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
