"""TripleRetrieval: is this (head, relation, tail) fact in the knowledge graph? Yes / No.

Balance: instances come in pairs (2j, 2j+1); a generator of its own for pair j says which of
the two is the true triple, so any even number of instances is exactly half Yes, half No,
and each instance still depends only on (seed, spec, index).

Yes: an edge of the subgraph, uniform. No: that edge with its head, relation or tail
(uniform; another part when the drawn one has no valid replacement) replaced by an entity of
the subgraph or a relation of the subgraph such that the result is absent from the SUBGRAPH
- the model sees only the subgraph, so that absence is what makes "No" correct; the fact may
still hold in the full KG (this is not checked, and `details.checked_against` says so).
Absence is checked on what the model reads, the labels: no edge of the subgraph
reads (head label, relation name, tail label), so an entity sharing a label with another
cannot turn a true fact into a "No".
"""

from __future__ import annotations

from kgcert.tasks import scoring
from kgcert.tasks.base import STREAM
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.sampler import Resample
from kgcert.tasks.task import Job, Task
from kgcert.util.rng import sample_rng

PARTS = ("head", "relation", "tail")
ANSWER_FORMAT = "Reply with Yes or No only."


def question_text(head: str, relation: str, tail: str) -> str:
    return (f"Does the knowledge graph contain the fact ({head}, {relation}, {tail}), that "
            f"is, an edge from {head} to {tail} with the relation {relation}?")


class TripleRetrieval(Task):
    name = "triple_retrieval"
    paper_name = "TripleRetrieval"

    def positive(self, job: Job) -> bool:
        pair = sample_rng(job.seed, f"{STREAM}/{job.spec.hash}/pair", job.index // 2)
        return job.index % 2 == int(pair.integers(2))

    def build(self, job: Job) -> TaskInstance:
        positive = self.positive(job)
        sampled = job.sample()
        graph = sampled.subgraph
        if not graph.edges:
            raise Resample("empty subgraph")
        name = {node.id: node.name for node in graph.nodes}
        shown = {(name[e.source], e.relation, name[e.target]) for e in graph.edges}
        edge = job.pick(graph.edges)
        head, relation, tail = edge.source, edge.relation, edge.target
        corrupted = None
        if not positive:
            node_ids = [node.id for node in graph.nodes]
            relations = sorted({e.relation for e in graph.edges})
            for i in job.rng.permutation(len(PARTS)).tolist():
                part = PARTS[i]
                if part == "head":
                    options = [n for n in node_ids
                               if (name[n], relation, name[tail]) not in shown]
                elif part == "relation":
                    options = [r for r in relations
                               if (name[head], r, name[tail]) not in shown]
                else:
                    options = [n for n in node_ids
                               if (name[head], relation, name[n]) not in shown]
                if options:
                    corrupted = part
                    replacement = job.pick(options)
                    if part == "head":
                        head = replacement
                    elif part == "relation":
                        relation = replacement
                    else:
                        tail = replacement
                    break
            if corrupted is None:
                raise Resample("no corruption of the drawn triple is absent from the subgraph")
        triple = (name[head], relation, name[tail])
        answer = "Yes" if positive else "No"
        assert (triple in shown) == positive
        return job.make(
            sampled,
            question=question_text(*triple),
            answer_format=ANSWER_FORMAT,
            answers=[answer],
            details={
                "triple": list(triple),
                "head_id": head,
                "tail_id": tail,
                "source_edge": edge.id,
                "corrupted": corrupted,
                "present": positive,
                "checked_against": "subgraph labels",
            },
        )

    def score_exact(self, instance: TaskInstance, response: str) -> bool:
        return scoring.exact_yes_no(response, instance.answers[0])

    def score_flexible(self, instance: TaskInstance, response: str) -> bool:
        return scoring.flexible_yes_no(response, instance.answers[0])
