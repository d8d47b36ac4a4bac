"""The per-entity backend of the prompt graph: batched reads over Bolt, only what prompts need.

The reads are the named statements of cypher/prompts.cypher, batched over id lists: one
`entities` query, one `out_edges` and one `in_edges` query for all the entities of a prompt
that are not cached yet. What a prompt needs beyond that (its DAG edges, Definition 2.3
distractors, related entities, filler sentences) is picked from these edge lists in Python,
because the embedded server answers each round trip in milliseconds and a prompt needs
several of them, while the same entities (the hubs of a spec) recur from prompt to prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kgcert.graphview.fact import Adjacency, Fact
from kgcert.graphview.view import (
    STATEMENTS,
    AnswerSets,
    EntityInfo,
    PromptGraph,
    chunks,
    entity_label,
)
from kgcert.specs.compile import CompiledRelationSpec
from kgcert.store.cypher import named
from kgcert.store.graph import GraphStore

DEFAULT_CACHE_EDGES = 2_000_000  # read edges: Fact objects, a few hundred bytes each


class CypherAnswers:
    """Answer sets from the compiled answer-set query, one round trip each."""

    def __init__(self, store: GraphStore, compiled: CompiledRelationSpec) -> None:
        self.store, self.compiled = store, compiled

    def answers(self, given: dict[str, str]) -> tuple[str, ...]:
        rows = self.store.query(self.compiled.answers_cypher(), **given)
        return tuple(sorted(str(row["id"]) for row in rows))


class ReadGraph(PromptGraph):
    """A prompt graph over per-entity reads."""

    default_cache_edges = DEFAULT_CACHE_EDGES

    def _load(self, missing: list[str]) -> None:
        facts: dict[str, list[Fact]] = {i: [] for i in missing}
        for chunk in chunks(missing):
            for statement, outgoing in (("out_edges", True), ("in_edges", False)):
                self.round_trips += 1
                for entity, edges in self.store.rows(named(STATEMENTS, statement),
                                                     ids=list(chunk)):
                    entity = str(entity)
                    bucket = facts[entity]
                    for rel_type, other, name, labels, display, sentences in edges:
                        other = str(other)
                        if other not in self._entities:
                            self._entities[other] = EntityInfo(
                                other, str(name if name is not None else other),
                                entity_label(labels))
                        source, target = (entity, other) if outgoing else (other, entity)
                        bucket.append(Fact(source, str(rel_type), target,
                                           None if display is None else str(display),
                                           tuple(str(s) for s in sentences or ())))
        for entity, found in facts.items():
            self._keep(entity, Adjacency.of(entity, found))
        self.entities([i for i in missing if i not in self._entities])

    def _local_info(self, entity_id: str) -> EntityInfo | None:
        return None

    def label_members(self, label: str) -> list[str]:
        if label not in self._label_members:
            rows = self._query("label_members", {"label": label})
            self._label_members[label] = sorted(str(row["id"]) for row in rows)
        return self._label_members[label]

    def answer_sets(self, compiled: CompiledRelationSpec) -> AnswerSets:
        return CypherAnswers(self.store, compiled)

    def option_pool(self, listing: Callable[[], Sequence[str]]) -> Callable[[], Sequence[str]]:
        """Listed only when asked (a hub's are thousands, and a distractor prompt's options
        are mostly filled before them), their names then read in one batch (a read per
        option would cost more)."""
        def listed() -> Sequence[str]:
            found = listing()
            self.preload(found)
            return found
        return listed
