"""Structured JSON: an object keyed by head entity, then by relation, listing the tails.

Example::

    {
      "Andhra Pradesh": {
        "language used": ["Telugu", "Marathi"]
      },
      "Paris [e3]": {
        "capital of": ["France"]
      },
      "Atlantis": {}
    }

Keys are shown names (see :mod:`kgcert.textualize.common`), so two entities that share a name
stay two keys (``Paris [e3]``, ``Paris [e7]``). Heads come in node order and only entities
with outgoing edges are keys, except that an entity with no edge at all is a key with an
empty object so that it is not lost. A head's relations follow the order of their first edge,
and tails follow edge order; a parallel edge repeats its tail in the list.
"""

from __future__ import annotations

import json

from kgcert.errors import InputError
from kgcert.textualize.base import EdgeTextualizer
from kgcert.textualize.common import Pairs, Triple, json_string, structure, triples_from
from kgcert.textualize.subgraph import Subgraph


class StructuredJson(EdgeTextualizer):
    name = "json"
    description = (
        "A JSON object whose keys are subject entities; each maps relation names to the list "
        "of object entities, and entities that share a name carry a bracketed key such as [e3]."
    )

    def render(self, subgraph: Subgraph) -> str:
        heads = []
        for head, relations in structure(subgraph).items():
            if not relations:
                heads.append(f"  {json_string(head)}: {{}}")
                continue
            rows = ",\n".join(
                f"    {json_string(relation)}: [{', '.join(map(json_string, tails))}]"
                for relation, tails in relations.items()
            )
            heads.append(f"  {json_string(head)}: {{\n{rows}\n  }}")
        if not heads:
            return "{}\n"
        return "{\n" + ",\n".join(heads) + "\n}\n"

    def parse_edges(self, text: str) -> list[Triple]:
        try:
            data = json.loads(text, object_pairs_hook=Pairs)
        except json.JSONDecodeError as error:
            raise InputError(f"not valid JSON: {error}") from None
        return triples_from(data, "JSON")
