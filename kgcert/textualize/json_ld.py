"""JSON-LD: one flat ``@context``, then an ``@graph`` with one node object per line.

Example::

    {
      "@context": {
        "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
        "ent": "urn:kgcert:entity:",
        "rel": "urn:kgcert:relation:",
        "label": "rdfs:label",
        "rel:language_used": {"@type": "@id"}
      },
      "@graph": [
        {"@id": "rel:language_used", "label": "language used"},
        {"@id": "ent:e1", "label": "Andhra Pradesh", "rel:language_used": ["ent:e2", "ent:e3"]},
        {"@id": "ent:e2", "label": "Telugu"}
      ]
    }

The context declares the prefixes, ``label`` for ``rdfs:label`` and, for every relation, that
its values are IRIs, so objects can be written as plain ``"ent:e2"`` strings. There is one
``@context`` (the reference implementation nested one inside another). The graph and its
order are those of :mod:`kgcert.textualize.rdf`, the same as the Turtle format.
"""

from __future__ import annotations

from kgcert.textualize.base import RdfTextualizer
from kgcert.textualize.common import json_string
from kgcert.textualize.rdf import PREFIXES, Statement, layout
from kgcert.textualize.subgraph import Subgraph


def _node(prefix: str, statement: Statement) -> str:
    members = [
        f'"@id": {json_string(f"{prefix}:{statement.subject}")}',
        f'"label": {json_string(statement.label)}',
    ]
    for relation, objects in statement.links:
        values = ", ".join(json_string(f"ent:{key}") for key in objects)
        members.append(f"{json_string(f'rel:{relation}')}: [{values}]")
    return "    {" + ", ".join(members) + "}"


class JsonLd(RdfTextualizer):
    name = "jsonld"
    rdflib_format = "json-ld"
    description = (
        "JSON-LD: one @context of prefixes, then an @graph of node objects; entities are ent: "
        "IRIs and relations rel: IRIs, each named by its label, and a relation lists the ent: "
        "IRIs of its objects."
    )

    def render(self, subgraph: Subgraph) -> str:
        shape = layout(subgraph)
        context = [f'    "{prefix}": {json_string(iri)}' for prefix, iri in PREFIXES]
        context.append('    "label": "rdfs:label"')
        context.extend(
            f'    {json_string(f"rel:{statement.subject}")}: {{"@type": "@id"}}'
            for statement in shape.relations
        )
        nodes = [_node("rel", statement) for statement in shape.relations]
        nodes.extend(_node("ent", statement) for statement in shape.entities)
        graph = "[\n" + ",\n".join(nodes) + "\n  ]" if nodes else "[]"
        return '{\n  "@context": {\n' + ",\n".join(context) + f'\n  }},\n  "@graph": {graph}\n}}\n'
