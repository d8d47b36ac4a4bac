"""AggByRelation: how many incoming / outgoing edges of one relation does an entity have?

Agg(s, r, dir) counts the subgraph's edges with relation r that leave s (outgoing) or reach
s (incoming); parallel edges and self-loops count (a self-loop is both). Candidates are the
(s, r, dir) with Agg >= `min_count` (default 1: the relation occurs at the anchor in that
direction) whose anchor label no other entity of the subgraph shares. As in the paper
(App. B.3) the answer is stratified: a count is drawn uniformly among the distinct counts,
then a question uniformly among those with that count, so large counts are not drowned by
the many single edges. Relations are compared by the name the model reads.
"""

from __future__ import annotations

from collections import Counter

from kgcert.errors import InputError
from kgcert.tasks import scoring
from kgcert.tasks.base import stratified, unique_label_nodes
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.spec import TaskSpec
from kgcert.tasks.task import Job, Task

COUNT_FORMAT = "Reply with one line of the form Answer: <number>."
_SIDE = {"outgoing": "is the subject (the first entity)",
         "incoming": "is the object (the second entity)"}


def check_min_count(task: Task, spec: TaskSpec) -> None:
    value = task.option(spec, "min_count")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{spec.source}: options.min_count must be an integer >= 0")


class AggByRelation(Task):
    name = "agg_by_relation"
    paper_name = "AggByRelation"
    option_defaults = {"min_count": 1}

    def check_options(self, spec: TaskSpec) -> None:
        super().check_options(spec)
        check_min_count(self, spec)

    def build(self, job: Job) -> TaskInstance:
        sampled = job.sample()
        graph = sampled.subgraph
        counts: Counter[tuple[str, str, str]] = Counter()
        for edge in graph.edges:
            counts[(edge.source, edge.relation, "outgoing")] += 1
            counts[(edge.target, edge.relation, "incoming")] += 1
        unique = unique_label_nodes(graph)
        floor = int(self.option(job.spec, "min_count"))
        options = []
        relations = sorted({e.relation for e in graph.edges})
        for node in graph.nodes:  # sorted by id
            if node.id not in unique:
                continue
            for relation in relations:
                for direction in ("incoming", "outgoing"):
                    value = counts.get((node.id, relation, direction), 0)
                    if value >= floor:
                        options.append((value, (node.id, relation, direction)))
        count, (anchor, relation, direction) = stratified(job, options)
        label = graph.node(anchor).name
        return job.make(
            sampled,
            question=(f"How many {direction} relations of type '{relation}' does {label} "
                      f"have in the knowledge graph? Count the edges with the relation "
                      f"'{relation}' in which {label} {_SIDE[direction]}."),
            answer_format=COUNT_FORMAT,
            answers=[str(count)],
            details={"count": count, "anchor": anchor, "anchor_label": label,
                     "relation": relation, "direction": direction,
                     "distinct_counts": sorted({v for v, _ in options})},
        )

    def score_exact(self, instance: TaskInstance, response: str) -> bool:
        return scoring.exact_count(response, int(instance.details["count"]))

    def score_flexible(self, instance: TaskInstance, response: str) -> bool:
        return scoring.flexible_count(response, int(instance.details["count"]))
