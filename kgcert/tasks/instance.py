"""One generated task instance: the subgraph a model reads, the question and the gold answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgcert.textualize.subgraph import Subgraph


@dataclass(frozen=True)
class TaskInstance:
    """Instance `index` of a task spec under run seed `seed`.

    - `question`: the question in plain words; `answer_format`: the one-line instruction on
      how to state the answer, which the exact scorer relies on. `full_question` joins them.
    - `answers`: every correct answer as the exact string a compliant reply gives (sorted;
      ties and equally short paths all appear). Checked by `score_exact` / `score_flexible`.
    - `details`: structured answer data (the triple asked about, the count, the anchor, the
      direction, the shortest paths as label and id lists, ...), JSON-friendly.
    - `provenance`: how the instance came about: seed entities, sampling parameters, edge
      counts at each sampling stage, attempts, spec hash.
    """

    task: str
    spec_hash: str
    seed: int
    index: int
    subgraph: Subgraph
    question: str
    answer_format: str
    answers: tuple[str, ...]
    details: dict[str, Any] = field(default_factory=dict, hash=False)
    provenance: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def full_question(self) -> str:
        return f"{self.question} {self.answer_format}"

    @property
    def answer(self) -> str:
        """One correct answer (the first in sorted order), for examples and reports."""
        return self.answers[0]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly record (the subgraph as node and edge lists)."""
        return {
            "task": self.task,
            "spec_hash": self.spec_hash,
            "seed": self.seed,
            "index": self.index,
            "question": self.question,
            "answer_format": self.answer_format,
            "answers": list(self.answers),
            "details": self.details,
            "provenance": self.provenance,
            "subgraph": {
                "nodes": [{"id": n.id, "name": n.name, "type": n.type}
                          for n in self.subgraph.nodes],
                "edges": [{"id": e.id, "source": e.source, "relation": e.relation,
                           "target": e.target} for e in self.subgraph.edges],
            },
        }
