"""Compile a relation-centric spec against a KG schema: resolved labels and types, and the
Cypher for counting and enumerating matches, the correct answers, and the distractors.

Matches are injective (LLMCert-C Definition 2.4): variables that could bind the same entity
get `<>` constraints. The answer set fixes the variables the question names and asks for
every answer entity that completes a match, so an equally correct entity is never offered as
a wrong option and is judged correct if chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from kgcert.errors import InputError
from kgcert.specs.model import RelationSpec
from kgcert.specs.pattern import PatternEdge
from kgcert.specs.schema import ENTITY, KGSchema
from kgcert.store.cypher import KG_SCOPE, escape_identifier


@dataclass(frozen=True)
class CompiledRelationSpec:
    spec: RelationSpec
    labels: dict[str, str]  # variable -> KG label (Entity when the pattern gives none)
    edges: tuple[PatternEdge, ...]  # with KG relationship types
    absent: tuple[PatternEdge, ...]
    order: tuple[str, ...]  # topological: sources first, the answer last

    @property
    def answer(self) -> str:
        return self.spec.answer

    @property
    def given(self) -> list[str]:
        return self.spec.given()

    def _match(self) -> str:
        paths = [
            f"({e.source}:{escape_identifier(self.labels[e.source])}{KG_SCOPE})"
            f"-[:{escape_identifier(e.rel_type)}]->"
            f"({e.target}:{escape_identifier(self.labels[e.target])}{KG_SCOPE})"
            for e in self.edges
        ]
        return "MATCH " + ", ".join(paths)

    def _conditions(self) -> list[str]:
        conditions = [
            f"{a} <> {b}" for a, b in combinations(self.order, 2)
            if ENTITY in (self.labels[a], self.labels[b]) or self.labels[a] == self.labels[b]
        ]
        conditions += [
            f"NOT ({e.source})-[:{escape_identifier(e.rel_type)}]->({e.target})"
            for e in self.absent
        ]
        return conditions

    def _where(self, extra: list[str] | None = None) -> str:
        conditions = self._conditions() + (extra or [])
        return (" WHERE " + " AND ".join(conditions)) if conditions else ""

    def count_cypher(self, paged: bool = False) -> str:
        """The number of matches; `paged`: only those whose answer id is in [$low, $high]
        (each page's DISTINCT stays under the embedded server's in-heap limit)."""
        page = [f"{self.answer}.id >= $low", f"{self.answer}.id <= $high"] if paged else []
        ids = ", ".join(f"{v}.id AS {v}" for v in self.order)
        return f"{self._match()}{self._where(page)} WITH DISTINCT {ids} RETURN count(*) AS count"

    def enumerate_cypher(self) -> str:
        ids = ", ".join(f"{v}.id AS {v}" for v in self.order)
        order = ", ".join(self.order)
        return f"{self._match()}{self._where()} RETURN DISTINCT {ids} ORDER BY {order}"

    def matches_cypher(self, limit: int = 25) -> str:
        """The first matches by name, for a person to run and read (ids beside the names)."""
        names = ", ".join(f"{v}.name AS {v}, {v}.id AS {v}_id" for v in self.order)
        order = ", ".join(f"{v}_id" for v in self.order)
        return (f"{self._match()}{self._where()} RETURN DISTINCT {names} ORDER BY {order} "
                f"LIMIT {int(limit)}")

    def answers_cypher(self) -> str:
        """Every correct answer given the named variables' ids as parameters $<var>."""
        fixed = [f"{v}.id = ${v}" for v in self.given]
        answer = self.answer
        return (f"{self._match()}{self._where(fixed)} "
                f"RETURN DISTINCT {answer}.id AS id ORDER BY id")

    def distractors_cypher(self) -> str:
        """Definition 2.3 distractors: entities that a DAG node reaches by the same relation as
        one of its DAG edges to a node other than the answer, outside the DAG. Parameters:
        $<var> for each variable's id, $dag for all of them."""
        parts = []
        for edge in self.edges:
            if edge.target == self.answer:
                continue
            parts.append(
                f"MATCH (v:Entity{KG_SCOPE} {{id: ${edge.source}}})"
                f"-[:{escape_identifier(edge.rel_type)}]->"
                f"(t:{escape_identifier(self.labels[edge.target])}{KG_SCOPE}) "
                f"WHERE NOT t.id IN $dag "
                f"RETURN DISTINCT t.id AS id, '{edge.source}' AS via, "
                f"'{edge.target}' AS instead_of")
        return " UNION ".join(parts)


def compile_relation_spec(spec: RelationSpec, schema: KGSchema) -> CompiledRelationSpec:
    graph = spec.graph()
    where = f"spec {spec.name}"
    if not graph.edges:
        raise InputError(f"{where}: the pattern needs at least one relationship")
    labels = {var: schema.label(label, where) for var, label in graph.labels.items()}

    def resolve(edge: PatternEdge) -> PatternEdge:
        rel_type = schema.rel_type(edge.rel_type, where)
        schema.check_endpoints(labels[edge.source], rel_type, labels[edge.target], where)
        return PatternEdge(edge.source, rel_type, edge.target)

    edges = tuple(resolve(edge) for edge in graph.edges)
    absent = tuple(
        PatternEdge(e.source, schema.rel_type(e.rel_type, where), e.target)
        for e in spec.absent_edges()
    )
    return CompiledRelationSpec(spec, labels, edges, absent, tuple(graph.topological_order()))
