"""List of edges: one ``(head, relation, tail)`` per line, in edge order.

Example::

    (Andhra Pradesh, language used, Telugu)
    (Paris [e3], capital of, France)
    ("Washington, D.C.", capital of, United States)

Names are written bare unless that would be ambiguous: a name or relation that is empty,
has spaces at either end, or contains a comma, a parenthesis, a double quote, a backslash or
a control character is written as a JSON string. Entities that share a name carry their key
(see :mod:`kgcert.textualize.common`). Parallel edges are repeated lines. Entities without
any edge do not appear: the format lists edges only.
"""

from __future__ import annotations

import json

from kgcert.errors import InputError
from kgcert.textualize.base import EdgeTextualizer
from kgcert.textualize.common import Triple, hidden_char, json_string, shown_edges
from kgcert.textualize.subgraph import Subgraph

_SPECIAL = frozenset(',()"\\')


def _item(text: str) -> str:
    if (
        not text
        or text != text.strip()
        or any(char in _SPECIAL or hidden_char(char) for char in text)
    ):
        return json_string(text)
    return text


def _parse_line(line: str, number: int) -> Triple:
    if not (line.startswith("(") and line.endswith(")")):
        raise InputError(f"edge list line {number} is not of the form (head, relation, tail)")
    body = line[1:-1]
    items: list[str] = []
    position = 0
    decoder = json.JSONDecoder()
    while True:
        if body.startswith('"', position):
            try:
                value, position = decoder.raw_decode(body, position)
            except json.JSONDecodeError as error:
                raise InputError(f"edge list line {number}: bad quoted name ({error})") from None
        else:
            end = body.find(",", position)
            end = len(body) if end < 0 else end
            value, position = body[position:end], end
        items.append(value)
        if position == len(body):
            break
        if not body.startswith(", ", position):
            raise InputError(f"edge list line {number}: expected ', ' after {value!r}")
        position += 2
    if len(items) != 3:
        raise InputError(f"edge list line {number} has {len(items)} items, not 3")
    return items[0], items[1], items[2]


class EdgeList(EdgeTextualizer):
    name = "list"
    description = (
        "Each line is one directed edge, written (subject, relation, object); a name with a "
        "comma, parenthesis or quote is written as a double-quoted string, and entities that "
        "share a name carry a bracketed key such as [e3]."
    )

    def render(self, subgraph: Subgraph) -> str:
        lines = (
            f"({_item(head)}, {_item(relation)}, {_item(tail)})"
            for head, relation, tail in shown_edges(subgraph)
        )
        return "".join(f"{line}\n" for line in lines)

    def parse_edges(self, text: str) -> list[Triple]:
        return [
            _parse_line(line, number)
            for number, line in enumerate(text.split("\n"), start=1)
            if line.strip()
        ]
