"""ShortestPath: a shortest path between two seed entities, edges usable in either direction.

As in the paper (App. B.2): the first two seeds are the endpoints; a shortest path between
them in the full KG is drawn (uniformly among all of them; pairs with no path are redrawn),
its entities join the seeds, and one edge per hop of it is kept through filtering and
pruning, so the subgraph's distance between the endpoints equals the KG's. Every shortest
path of the SUBGRAPH is a correct answer, not only the planted one: `answers` lists them
all as label lists (up to 10,000; `details.truncated` says when there were more), and the
scorers check a reply against the subgraph itself, so the listing limit never matters.
A draw where an endpoint's label is shared with another entity of the subgraph is redrawn
(the question would not say which entity it means).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence

from kgcert.tasks import scoring
from kgcert.tasks.base import unique_label_nodes
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.sampler import Resample, sample_shortest_path
from kgcert.tasks.task import Job, Task
from kgcert.textualize.subgraph import Subgraph

MAX_LISTED = 10_000
PREFIX = "SHORTEST PATH:"


def render_labels(labels: Sequence[str]) -> str:
    """A list literal of the labels: ['A', 'B'], double quotes for a label with a '."""
    return "[" + ", ".join(f'"{x}"' if "'" in x else f"'{x}'" for x in labels) + "]"


def _adjacency(subgraph: Subgraph) -> dict[str, set[str]]:
    adjacent: dict[str, set[str]] = defaultdict(set)
    for edge in subgraph.edges:
        adjacent[edge.source].add(edge.target)
        adjacent[edge.target].add(edge.source)
    return adjacent


def _distances(adjacent: dict[str, set[str]], root: str) -> dict[str, int]:
    depth = {root: 0}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for other in adjacent.get(node, ()):
            if other not in depth:
                depth[other] = depth[node] + 1
                queue.append(other)
    return depth


def all_shortest_paths(subgraph: Subgraph, source: str, target: str,
                       limit: int = MAX_LISTED) -> tuple[int | None, list[list[str]], bool]:
    """(distance, up to `limit` shortest paths as id lists in sorted order, truncated?)."""
    adjacent = _adjacency(subgraph)
    from_source = _distances(adjacent, source)
    if target not in from_source:
        return None, [], False
    to_target = _distances(adjacent, target)
    length = from_source[target]
    paths: list[list[str]] = []

    def extend(path: list[str]) -> bool:
        node = path[-1]
        if node == target:
            paths.append(list(path))
            return len(paths) < limit
        step = len(path)
        for other in sorted(adjacent[node]):
            if from_source.get(other) == step and to_target.get(other) == length - step:
                path.append(other)
                going = extend(path)
                path.pop()
                if not going:
                    return False
        return True

    complete = extend([source])
    return length, paths, not complete


def check_path(subgraph: Subgraph, source: str, target: str, length: int,
               labels: Sequence[str], norm: Callable[[str], str]) -> bool:
    """Whether `labels` names a shortest source-target path of the subgraph.

    Walks the label sequence over the entities carrying each label (`norm` applied to both
    sides), so an intermediate label shared by two entities is fine when either works. A
    walk from source to target with `length` hops is a shortest path, hence simple.
    """
    if len(labels) != length + 1:
        return False
    by_label: dict[str, set[str]] = defaultdict(set)
    for node in subgraph.nodes:
        by_label[norm(node.name)].add(node.id)
    adjacent = _adjacency(subgraph)
    current = {source} & by_label.get(norm(labels[0]), set())
    for label in labels[1:]:
        reachable = set().union(*(adjacent[node] for node in current)) if current else set()
        current = reachable & by_label.get(norm(label), set())
    return target in current


class ShortestPath(Task):
    name = "shortest_path"
    paper_name = "ShortestPath"
    option_defaults = {"max_path_length": 12}

    def build(self, job: Job) -> TaskInstance:
        seeds = job.seeds()
        source, target = seeds[0], seeds[1]
        planted = sample_shortest_path(job.view, source, target, job.rng,
                                       max_length=int(self.option(job.spec, "max_path_length")))
        if planted is None:
            raise Resample("no path between the two seed entities")
        sampled = job.sample(seeds, path=planted)
        graph = sampled.subgraph
        unique = unique_label_nodes(graph)
        if source not in unique or target not in unique:
            raise Resample("an endpoint's label is shared by another entity")
        length, paths, truncated = all_shortest_paths(graph, source, target)
        if length != len(planted) - 1:
            raise RuntimeError(f"planted path of {len(planted) - 1} hops, subgraph distance "
                               f"{length}")
        name = {node.id: node.name for node in graph.nodes}
        label_paths = sorted({tuple(name[n] for n in path) for path in paths})
        s, t = name[source], name[target]
        return job.make(
            sampled,
            question=(f"What is a shortest path between {s} and {t} in the knowledge graph? "
                      f"Edges may be followed in either direction. List the entities on the "
                      f"path in order, starting with {s} and ending with {t}."),
            answer_format=(f"Reply with one line: {PREFIX} then the list of the quoted "
                           f"labels of every entity on the path, e.g. {PREFIX} "
                           f"{render_labels([s]).rstrip(']')}, ..., "
                           f"{render_labels([t]).lstrip('[')}"),
            answers=[render_labels(labels) for labels in label_paths],
            details={
                "source": source,
                "target": target,
                "source_label": s,
                "target_label": t,
                "length": length,
                "paths": [list(labels) for labels in label_paths],
                "path_ids": paths,
                "planted_path": planted,
                "truncated": truncated,
            },
        )

    def _checker(self, instance: TaskInstance) -> scoring.PathCheck:
        details = instance.details

        def check(labels: list[str], norm: Callable[[str], str]) -> bool:
            return check_path(instance.subgraph, details["source"], details["target"],
                              details["length"], labels, norm)

        return check

    def score_exact(self, instance: TaskInstance, response: str) -> bool:
        return scoring.exact_path(response, self._checker(instance))

    def score_flexible(self, instance: TaskInstance, response: str) -> bool:
        return scoring.flexible_path(response, self._checker(instance))
