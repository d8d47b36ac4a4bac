"""What a prompt's spec kind decides, one class per kind: relation DAGs and entity paths.

The composer (kgcert/prompts/mcqa.py) renders a sample as a `SampleDag` (its roles, edges,
own facts, answer) and asks its kind for the rest: the correct answers, the question, the
Definition 2.3 distractors and the edges that carry a distractor's wrong turn on.

- `DagSamples` (relation specs, LLMCert-C §2.1): a compiled pattern's DAG; answers from the
  answer-set query with the question's entities fixed; all distractors in a seeded order.
- `EntityPaths` (entity specs, Appendix D.7): a relation path from a pivot with one answer;
  `max_distractors` (default 1) drawn by position weights (Algorithm 6).
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgcert.errors import InputError
from kgcert.graphview import ENTITY, Fact, PromptGraph
from kgcert.graphview.view import AnswerSets
from kgcert.prompts.distractors import (
    Distractor,
    Weighting,
    dag_distractors,
    path_candidates,
    weighted_order,
)
from kgcert.prompts.query import Query, path_query, relation_query
from kgcert.specs import DagSample, EntitySpec, PathSample, RelationSampler, RelationSpec
from kgcert.specs import kind as kinds
from kgcert.specs.kind import Kind, KindName, relation_spec


@dataclass(frozen=True)
class SampleDag:
    """A sample as the renderer sees it, whichever kind of spec it came from."""

    roles: dict[str, str]  # pattern variable or path position -> entity id
    edges: tuple[tuple[str, str, str], ...]
    essential: tuple[Fact, ...]
    answer: str
    given: tuple[str, ...]  # entities the question names
    path: tuple[str, ...]  # the other entities of the DAG, answer excluded
    types: frozenset[str]  # the DAG's relationship types


def _own_facts(graph: PromptGraph, spec_name: str,
               edges: Sequence[tuple[str, str, str]]) -> list[Fact]:
    """The stored facts of each sampled edge (source, type, target), in order."""
    essential: list[Fact] = []
    for source, rel_type, target in edges:
        found = graph.adjacency(source).outgoing_to(rel_type, target)
        if not found:
            raise InputError(f"spec {spec_name}: sampled edge {source} -[{rel_type}]-> "
                             f"{target} is not in the KG")
        essential += found
    return essential


class SpecKind(ABC):
    """What one kind of spec decides about its prompts (which kind a spec is, and what each
    kind means, is the contract's: kgcert/specs/kind.py)."""

    kind: Kind

    def __init__(self, spec: RelationSpec | EntitySpec, graph: PromptGraph) -> None:
        self.spec, self.graph = spec, graph

    @property
    def name(self) -> KindName:
        return self.kind.name

    @abstractmethod
    def has_distractor(self, sample: Any) -> bool:
        """Whether the sample has a Definition 2.3 distractor."""

    @abstractmethod
    def dag(self, sample: Any) -> SampleDag: ...

    @abstractmethod
    def correct_answers(self, sample: Any) -> tuple[str, ...]:
        """Every entity that answers the sample's question."""

    @abstractmethod
    def query(self, sample: Any, dag: SampleDag, rng: np.random.Generator,
              fixed: bool) -> Query: ...

    @abstractmethod
    def distractors(self, sample: Any, rng: np.random.Generator, limit: int | None,
                    weighting: Weighting) -> tuple[list[Distractor], int]:
        """The distractors in order of preference, and how many candidates there were."""

    @abstractmethod
    def continuations(self, distractor: Distractor, sample: Any) -> list[Sequence[Fact]]:
        """Edges that carry a distractor's wrong turn on: the distractor's edges of the kinds
        the DAG node it stands in for has in the DAG (same type, same direction), in parts
        (snapshot rows where there is a snapshot)."""

    def provenance(self, weighting: Weighting) -> dict[str, Any]:
        """What the distractor setting's provenance records beside the candidates."""
        return {}

    @property
    def distractors_required(self) -> bool:
        """Whether the spec conditions its distribution on a distractor."""
        return False

    def prepare(self) -> None:
        """Work out what every sample's prompt reads of the spec, before the first one
        (entity paths: nothing beyond the graph's own)."""
        return None


Answers = dict[tuple[str, ...], tuple[str, ...]]  # the question's entities -> every answer
_ANSWERS: weakref.WeakKeyDictionary[RelationSampler, tuple[PromptGraph, Answers]] = (
    weakref.WeakKeyDictionary())


def _shared_answers(sampler: RelationSampler, graph: PromptGraph) -> Answers:
    """The answer sets found for `sampler`'s samples over `graph`, one dict for every builder
    of the pair: a run's settings draw the same samples (prompt i asks the same question in
    each), so the second setting's prompts find their answers already worked out."""
    kept = _ANSWERS.get(sampler)
    if kept is None or kept[0] is not graph:
        kept = _ANSWERS[sampler] = (graph, {})
    return kept[1]


class DagSamples(SpecKind):
    """Relation specs: DAG samples of a compiled pattern."""

    kind = kinds.RELATION

    def __init__(self, spec: RelationSpec, graph: PromptGraph, sampler: RelationSampler) -> None:
        super().__init__(spec, graph)
        self.relation_spec = spec
        self.compiled = sampler.compiled
        self._answers = _shared_answers(sampler, graph)
        self._finder: AnswerSets | None = None

    @property
    def distractors_required(self) -> bool:
        return self.relation_spec.distractors == "required"

    def prepare(self) -> None:
        """The answer sets' finder, and the members of the answer's label (where random
        options are drawn from) over a snapshot, where they cost an array pass, not a read."""
        if self._finder is None:
            self._finder = self.graph.answer_sets(self.compiled)
        label = self.compiled.labels.get(self.compiled.answer, ENTITY)
        if label != ENTITY and self.graph.row_index is not None:  # a snapshot: no read
            self.graph.label_members(label)

    def has_distractor(self, sample: DagSample) -> bool:
        self.graph.load(sample.nodes.values())
        return bool(dag_distractors(self.graph, self.compiled, sample.nodes))

    def dag(self, sample: DagSample) -> SampleDag:
        compiled = self.compiled
        nodes = dict(sample.nodes)
        self.graph.load(nodes.values())
        edges = [(nodes[e.source], e.rel_type, nodes[e.target]) for e in compiled.edges]
        essential = _own_facts(self.graph, self.spec.name, edges)
        given = tuple(nodes[v] for v in compiled.given)
        answer = nodes[compiled.answer]
        path = tuple(nodes[v] for v in compiled.order
                     if nodes[v] != answer and nodes[v] not in given)
        return SampleDag(nodes, tuple(edges), tuple(essential), answer, given, path,
                         frozenset(e.rel_type for e in compiled.edges))

    def correct_answers(self, sample: DagSample) -> tuple[str, ...]:
        """The compiled answer-set query's answers with the question's entities fixed."""
        compiled = self.compiled
        given = {var: sample.nodes[var] for var in compiled.given}
        key = tuple(given[var] for var in compiled.given)
        if key not in self._answers:
            if self._finder is None:
                self._finder = self.graph.answer_sets(compiled)
            self._answers[key] = self._finder.answers(given)
        found = self._answers[key]
        if sample.nodes[compiled.answer] not in found:
            raise RuntimeError(f"spec {self.spec.name}: the drawn answer is not among the "
                               "answer-set query's answers")
        return found

    def query(self, sample: DagSample, dag: SampleDag, rng: np.random.Generator,
              fixed: bool) -> Query:
        return relation_query(self.relation_spec, sample.nodes, self.graph, rng, fixed=fixed)

    def distractors(self, sample: DagSample, rng: np.random.Generator, limit: int | None,
                    weighting: Weighting) -> tuple[list[Distractor], int]:
        """All of them in a seeded random order (the first `limit` when given)."""
        found = dag_distractors(self.graph, self.compiled, sample.nodes)
        order = [found[int(i)] for i in rng.permutation(len(found))]
        return order[:limit if limit is not None else len(order)], len(found)

    def continuations(self, distractor: Distractor, sample: DagSample) -> list[Sequence[Fact]]:
        adjacency = self.graph.adjacency(distractor.id)
        parts: list[Sequence[Fact]] = []
        for edge in self.compiled.edges:
            if edge.source == distractor.via and edge.target == distractor.instead_of:
                continue
            if edge.source == distractor.instead_of:
                parts.append(adjacency.outgoing_rows(edge.rel_type))
            elif edge.target == distractor.instead_of:
                parts.append(adjacency.incoming_rows(edge.rel_type))
        return parts


class EntityPaths(SpecKind):
    """Entity specs: relation paths from a pivot to their one answer."""

    kind = kinds.ENTITY

    def has_distractor(self, sample: PathSample) -> bool:
        self.graph.load(sample.nodes)
        return bool(path_candidates(self.graph, sample.nodes, sample.relations, "uniform"))

    def dag(self, sample: PathSample) -> SampleDag:
        self.graph.load(sample.nodes)
        edges = [(sample.nodes[i], rel_type, sample.nodes[i + 1])
                 for i, rel_type in enumerate(sample.relations)]
        essential = _own_facts(self.graph, self.spec.name, edges)
        roles = {str(i): node for i, node in enumerate(sample.nodes)}
        return SampleDag(roles, tuple(edges), tuple(essential), sample.nodes[-1],
                         (sample.pivot,), tuple(sample.nodes[1:-1]),
                         frozenset(sample.relations))

    def correct_answers(self, sample: PathSample) -> tuple[str, ...]:
        """The path's end: the spec keeps only paths with one answer."""
        return (sample.nodes[-1],)

    def query(self, sample: PathSample, dag: SampleDag, rng: np.random.Generator,
              fixed: bool) -> Query:
        hops = [next(f for f in dag.essential if f.source == s and f.type == t and f.target == o)
                for s, t, o in dag.edges]
        return path_query(sample.pivot, hops, self.graph, rng, fixed=fixed)

    def distractors(self, sample: PathSample, rng: np.random.Generator, limit: int | None,
                    weighting: Weighting) -> tuple[list[Distractor], int]:
        """`limit` (default 1, as Algorithm 6 picks one) drawn by position weights."""
        candidates = path_candidates(self.graph, sample.nodes, sample.relations, weighting)
        return (weighted_order(candidates, limit if limit is not None else 1, rng),
                len(candidates))

    def continuations(self, distractor: Distractor, sample: PathSample) -> list[Sequence[Fact]]:
        position = int(distractor.instead_of)
        if position >= len(sample.relations):
            return []
        return [self.graph.adjacency(distractor.id).outgoing_rows(sample.relations[position])]

    def provenance(self, weighting: Weighting) -> dict[str, Any]:
        return {"distractor_weighting": weighting}


def kind_of(spec: RelationSpec | EntitySpec, graph: PromptGraph,
            sampler: Any) -> SpecKind:
    """What the composer does for `spec`'s kind (its sampler is a RelationSampler for a
    relation spec)."""
    relation = relation_spec(spec)
    if relation is not None:
        if not isinstance(sampler, RelationSampler):
            raise InputError(f"spec {spec.name}: a relation spec needs a relation sampler")
        return DagSamples(relation, graph, sampler)
    return EntityPaths(spec, graph)
