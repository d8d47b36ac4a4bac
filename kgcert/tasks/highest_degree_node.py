"""HighestDegreeNode: which entity has the most incoming / outgoing / total edges?

The direction is drawn uniformly among `directions` (default all three). Degrees count
edges of the subgraph, parallel edges each; a self-loop is one outgoing and one incoming
edge, so two towards the total (networkx's convention). Every entity with the top degree is
a correct answer (ties). The model reads labels, so the degrees are also summed per label;
a draw where that changes the set of top labels (two entities sharing a label together
outrank the top entity, or split a tie) is redrawn, since its answer would depend on whether
the reader tells the two apart.
"""

from __future__ import annotations

from collections import Counter

from kgcert.errors import InputError
from kgcert.tasks import scoring
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.sampler import Resample
from kgcert.tasks.spec import TaskSpec
from kgcert.tasks.task import Job, Task

DIRECTIONS = ("incoming", "outgoing", "total")
_MEANING = {
    "incoming": "edges in which it is the object (the second entity)",
    "outgoing": "edges in which it is the subject (the first entity)",
    "total": "edges in which it is the subject or the object",
}


class HighestDegreeNode(Task):
    name = "highest_degree_node"
    paper_name = "HighestDegreeNode"
    option_defaults = {"directions": list(DIRECTIONS)}

    def check_options(self, spec: TaskSpec) -> None:
        super().check_options(spec)
        chosen = self.option(spec, "directions")
        if (not isinstance(chosen, list) or not chosen
                or any(d not in DIRECTIONS for d in chosen) or len(set(chosen)) != len(chosen)):
            raise InputError(f"{spec.source}: options.directions must be a non-empty list of "
                             f"distinct values among {', '.join(DIRECTIONS)}")

    def build(self, job: Job) -> TaskInstance:
        directions = [d for d in DIRECTIONS if d in self.option(job.spec, "directions")]
        direction = job.pick(directions)
        sampled = job.sample()
        graph = sampled.subgraph
        if not graph.edges:
            raise Resample("empty subgraph")
        degree: Counter[str] = Counter()
        for edge in graph.edges:
            if direction in ("outgoing", "total"):
                degree[edge.source] += 1
            if direction in ("incoming", "total"):
                degree[edge.target] += 1
        top = max(degree.values())
        winners = sorted(node for node, d in degree.items() if d == top)
        by_label: Counter[str] = Counter()
        for node_id, d in degree.items():
            by_label[graph.node(node_id).name] += d
        label_top = max(by_label.values())
        labels = sorted({graph.node(n).name for n in winners})
        if label_top != top or sorted(k for k, d in by_label.items() if d == top) != labels:
            raise Resample("entities sharing a label change the answer")
        return job.make(
            sampled,
            question=(f"Which entity has the highest number of {direction} relations in the "
                      f"knowledge graph, counting {_MEANING[direction]}?"),
            answer_format="Reply with one line of the form Answer: <entity label>.",
            answers=labels,
            details={"direction": direction, "degree": top, "entities": winners,
                     "labels": labels},
        )

    def score_exact(self, instance: TaskInstance, response: str) -> bool:
        return scoring.exact_entity(response, instance.answers)

    def score_flexible(self, instance: TaskInstance, response: str) -> bool:
        return scoring.flexible_entity(response, instance.answers)
