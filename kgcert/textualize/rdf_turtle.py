"""RDF Turtle: prefixes, one statement per relation, then one statement per entity.

Example::

    @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
    @prefix ent: <urn:kgcert:entity:> .
    @prefix rel: <urn:kgcert:relation:> .

    rel:language_used rdfs:label "language used" .
    rel:capital_of rdfs:label "capital of" .

    ent:e1 rdfs:label "Andhra Pradesh" ;
        rel:language_used ent:e2, ent:e3 .
    ent:e2 rdfs:label "Telugu" .

The graph and its order are described in :mod:`kgcert.textualize.rdf`. The text is written
here rather than by rdflib's serializer, which sorts subjects, predicates and objects by
itself; rdflib parses it back (:meth:`parse_graph`) to exactly
:func:`kgcert.textualize.rdf.rdf_graph`, which the tests check.
"""

from __future__ import annotations

from kgcert.textualize.base import RdfTextualizer
from kgcert.textualize.rdf import PREFIXES, Statement, layout, turtle_string
from kgcert.textualize.subgraph import Subgraph


def _statement(prefix: str, statement: Statement) -> str:
    parts = [f"{prefix}:{statement.subject} rdfs:label {turtle_string(statement.label)}"]
    for relation, objects in statement.links:
        parts.append(f"rel:{relation} " + ", ".join(f"ent:{key}" for key in objects))
    return " ;\n    ".join(parts) + " .\n"


class RdfTurtle(RdfTextualizer):
    name = "turtle"
    rdflib_format = "turtle"
    description = (
        "RDF Turtle: entities are ent: IRIs and relations are rel: IRIs, each named by its "
        "rdfs:label; ';' continues the same subject and ',' separates objects of one relation."
    )

    def render(self, subgraph: Subgraph) -> str:
        shape = layout(subgraph)
        head = "".join(f"@prefix {prefix}: <{iri}> .\n" for prefix, iri in PREFIXES)
        relations = "".join(_statement("rel", statement) for statement in shape.relations)
        entities = "".join(_statement("ent", statement) for statement in shape.entities)
        return "\n".join(part for part in (head, relations, entities) if part)
