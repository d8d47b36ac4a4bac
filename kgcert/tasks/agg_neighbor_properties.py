"""AggNeighborProperties: how many neighbours of an entity have an outgoing relation r?

Agg(s, r) (paper Eq. 10) counts the distinct entities e joined to s by at least one edge of
the subgraph, either direction (a self-loop makes s its own neighbour), such that e is the
head of at least one r edge of the subgraph (to any entity, s included). Candidates are the
(s, r) with Agg >= `min_count` (default 1) whose anchor label no other entity shares;
answers are stratified as in AggByRelation: a count uniformly among the distinct counts,
then an (s, r) uniformly among those with it. Relations are compared by name.
"""

from __future__ import annotations

from collections import defaultdict

from kgcert.tasks import scoring
from kgcert.tasks.agg_by_relation import COUNT_FORMAT, check_min_count
from kgcert.tasks.base import stratified, unique_label_nodes
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.spec import TaskSpec
from kgcert.tasks.task import Job, Task


class AggNeighborProperties(Task):
    name = "agg_neighbor_properties"
    paper_name = "AggNeighborProperties"
    option_defaults = {"min_count": 1}

    def check_options(self, spec: TaskSpec) -> None:
        super().check_options(spec)
        check_min_count(self, spec)

    def build(self, job: Job) -> TaskInstance:
        sampled = job.sample()
        graph = sampled.subgraph
        neighbours: dict[str, set[str]] = defaultdict(set)
        outgoing: dict[str, set[str]] = defaultdict(set)
        for edge in graph.edges:
            neighbours[edge.source].add(edge.target)
            neighbours[edge.target].add(edge.source)
            outgoing[edge.source].add(edge.relation)
        relations = sorted({e.relation for e in graph.edges})
        unique = unique_label_nodes(graph)
        floor = int(self.option(job.spec, "min_count"))
        options = []
        for node in graph.nodes:  # sorted by id
            if node.id not in unique:
                continue
            tally: dict[str, int] = defaultdict(int)
            for other in neighbours[node.id]:
                for relation in outgoing.get(other, ()):
                    tally[relation] += 1
            for relation in relations:
                if tally.get(relation, 0) >= floor:
                    options.append((tally.get(relation, 0), (node.id, relation)))
        count, (anchor, relation) = stratified(job, options)
        label = graph.node(anchor).name
        return job.make(
            sampled,
            question=(f"How many of the entities directly connected to {label} (by an edge "
                      f"in either direction) have an outgoing relation of type '{relation}', "
                      f"that is, are the subject of at least one '{relation}' edge in the "
                      f"knowledge graph?"),
            answer_format=COUNT_FORMAT,
            answers=[str(count)],
            details={"count": count, "anchor": anchor, "anchor_label": label,
                     "relation": relation,
                     "neighbours": sorted(n for n in neighbours[anchor]
                                          if relation in outgoing.get(n, ())),
                     "distinct_counts": sorted({v for v, _ in options})},
        )

    def score_exact(self, instance: TaskInstance, response: str) -> bool:
        return scoring.exact_count(response, int(instance.details["count"]))

    def score_flexible(self, instance: TaskInstance, response: str) -> bool:
        return scoring.flexible_count(response, int(instance.details["count"]))
