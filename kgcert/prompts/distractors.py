"""Distractors (LLMCert-C Definition 2.3) and their position-weighted choice (Algorithm 6).

A distractor is an entity outside the DAG that a DAG node reaches by the same relation as one
of its DAG edges to a node other than the answer: at that step of the reasoning a reader could
take the wrong turn to it. Edges into the answer give none (their alternatives are further
answers, or fail another edge of the DAG).

- Relation-centric DAGs: the same set as the spec's compiled `distractors_cypher()` (tests
  check the two agree), read from the cached edge lists, each with the edge that makes it a
  distractor. PrimeKG DAGs have no linear order, so all are used, in a seeded random order.
- Entity-centric paths: the candidates of hop i (0-based) are the entities that path node i
  reaches by hop i's relation, off the path; Algorithm 6 draws among them with weight i + 1
  ("tail": near the answer, the default), hops - i ("head": near the pivot) or 1 ("uniform").
  An entity found at several hops adds up its weights. A path of one hop has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kgcert.graphview import ENTITY, Fact, PromptGraph
from kgcert.specs.compile import CompiledRelationSpec

Weighting = Literal["tail", "head", "uniform"]
WEIGHTINGS: tuple[Weighting, ...] = ("tail", "head", "uniform")


@dataclass(frozen=True)
class Distractor:
    """An entity that could be taken instead of `instead_of` (a pattern variable or path
    position), reached from `via` by `facts` (its distractor edges)."""

    id: str
    via: str
    instead_of: str
    facts: tuple[Fact, ...]


def dag_distractors(graph: PromptGraph, compiled: CompiledRelationSpec,
                    nodes: dict[str, str]) -> list[Distractor]:
    """Every Definition 2.3 distractor of a relation-centric DAG, sorted by id."""
    dag = set(nodes.values())
    found: dict[tuple[str, str, str], list[Fact]] = {}
    for edge in compiled.edges:
        if edge.target == compiled.answer:
            continue
        source = nodes[edge.source]
        wanted = compiled.labels[edge.target]
        for fact in graph.adjacency(source).outgoing(edge.rel_type):
            other = fact.target
            if other in dag:
                continue
            if wanted != ENTITY and graph.label(other) != wanted:
                continue
            found.setdefault((other, edge.source, edge.target), []).append(fact)
    merged: dict[str, Distractor] = {}
    for (other, via, instead_of), facts in sorted(found.items()):
        if other in merged:  # reached by several DAG edges: keep the first, add its facts
            first = merged[other]
            merged[other] = Distractor(other, first.via, first.instead_of,
                                       first.facts + tuple(facts))
        else:
            merged[other] = Distractor(other, via, instead_of, tuple(facts))
    return [merged[key] for key in sorted(merged)]


def path_candidates(graph: PromptGraph, nodes: Sequence[str], relations: Sequence[str],
                    weighting: Weighting = "tail") -> list[tuple[Distractor, float]]:
    """Algorithm 6's candidates with their weights, sorted by id."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"distractor weighting must be one of {', '.join(WEIGHTINGS)}")
    on_path = set(nodes)
    hops = len(relations)
    weights: dict[str, float] = {}
    first: dict[str, tuple[int, list[Fact]]] = {}
    for i in range(hops - 1):  # hop i ends at node i+1; the last hop ends at the answer
        weight = {"tail": i + 1.0, "head": float(hops - i), "uniform": 1.0}[weighting]
        for fact in graph.adjacency(nodes[i]).outgoing(relations[i]):
            other = fact.target
            if other in on_path:
                continue
            if other not in first:
                first[other] = (i, [])
            if first[other][0] == i:
                first[other][1].append(fact)
            weights[other] = weights.get(other, 0.0) + weight
    return [(Distractor(other, str(first[other][0]), str(first[other][0] + 1),
                        tuple(first[other][1])), weights[other])
            for other in sorted(weights)]


def weighted_order(candidates: Sequence[tuple[Distractor, float]], count: int,
                   rng: np.random.Generator) -> list[Distractor]:
    """Up to `count` candidates drawn one after another without replacement, each in
    proportion to its weight (the first draw is Algorithm 6's WeightedRandomChoice)."""
    pool = list(candidates)
    chosen: list[Distractor] = []
    while pool and len(chosen) < count:
        weights = np.array([w for _, w in pool], dtype=np.float64)
        pick = int(np.searchsorted(np.cumsum(weights), rng.random() * weights.sum(), "right"))
        pick = min(pick, len(pool) - 1)
        chosen.append(pool.pop(pick)[0])
    return chosen
