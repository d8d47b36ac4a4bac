"""Subgraph sampling for the KG-LLM-Bench tasks (paper Sec. 4.5, Table 4).

One instance's subgraph, every random choice from the instance's own generator:

1. Seeds: `seed_entities` distinct core entities (type `core_label`, at least
   max(1, min_degree) edges in the KG), uniform without replacement.
2. Ego graphs: every edge whose two ends lie within `radius` undirected hops of a seed
   (or of an extra centre, e.g. the entities of a shortest path), all seeds composed.
   Parallel edges (one pair, several relations) and self-loops are all kept.
3. Low-degree filter: entities with fewer than `min_degree` edge ends in the composed graph
   lose their edges (one pass; a self-loop is two ends, as in networkx).
4. Degree cap: with `max_degree` set, entities are visited in a random order and each one
   above the cap loses randomly chosen edges until it is at the cap.
5. Pruning: a uniformly random subset of `max_edges` edges is kept.

Protected edges (the shortest path the ShortestPath task plants) survive steps 3-5.
The subgraph's nodes are the ends of its edges; nodes are listed by id and edges by
(head id, type, tail id, ordinal): the sampler decides what is in the graph, the caller (a
textualizer, a prompt builder) decides the order it is shown in.
Every random choice draws from ordered data (sorted ids, sorted edge keys), so the same
generator state gives the same subgraph on every run, whatever was sampled before.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgcert.errors import InputError
from kgcert.tasks.neighbourhood import EgoGraph, KGView
from kgcert.tasks.spec import SamplingParams
from kgcert.textualize.subgraph import Edge, Node, Subgraph


class Resample(Exception):  # noqa: N818 - a signal, not an error
    """This draw cannot make an instance (no path, ambiguous label, ...): draw again."""


@dataclass(frozen=True)
class SampledSubgraph:
    subgraph: Subgraph
    seeds: tuple[str, ...]
    centres: tuple[str, ...]
    protected: tuple[str, ...] = ()  # ids of edges the pruning had to keep
    stages: dict[str, int] = field(default_factory=dict)  # edge counts after each step
    edge_types: dict[str, str] = field(default_factory=dict)  # edge id -> relationship type


def choose_seeds(view: KGView, params: SamplingParams, rng: np.random.Generator) -> list[str]:
    core = view.core_entities(params.core_label, max(1, params.min_degree))
    if len(core) < params.seed_entities:
        raise InputError(
            f"the KG has {len(core)} entities of type {params.core_label!r} with at least "
            f"{max(1, params.min_degree)} edges; the spec needs {params.seed_entities} seeds"
        )
    picks = rng.choice(len(core), size=params.seed_entities, replace=False)
    return [core[int(i)] for i in picks]


def _path_edges(graph: EgoGraph, path: Sequence[str], rng: np.random.Generator) -> list[int]:
    """One edge per hop of `path` (either direction), chosen at random among parallel ones."""
    chosen: list[int] = []
    for u, v in zip(path, path[1:], strict=False):
        a, b = (bisect_left(graph.entities, x) for x in (u, v))
        if graph.entities[a:a + 1] != [u] or graph.entities[b:b + 1] != [v]:
            raise RuntimeError(f"path hop {u} - {v} is not in the ego graph")
        heads, tails = graph.heads, graph.tails
        options = np.flatnonzero(((heads == a) & (tails == b)) | ((heads == b) & (tails == a)))
        if not len(options):
            raise RuntimeError(f"path hop {u} - {v} has no edge in the ego graph")
        chosen.append(int(options[int(rng.integers(len(options)))]))
    return chosen


def build_subgraph(
    view: KGView,
    params: SamplingParams,
    rng: np.random.Generator,
    seeds: Sequence[str],
    *,
    path: Sequence[str] | None = None,
) -> SampledSubgraph:
    """Steps 2-5 around `seeds` (plus the entities of `path`, whose hops are kept)."""
    centres = list(dict.fromkeys([*seeds, *(path or ())]))
    graph = view.ego_edges(centres, params.radius)
    ego, heads, tails = graph.edges, graph.heads, graph.tails
    count, size = len(ego), len(graph.entities)
    protected = np.zeros(count, dtype=bool)
    if path and len(path) > 1:
        protected[_path_edges(graph, path, rng)] = True
    alive = np.ones(count, dtype=bool)
    stages = {"ego": count}

    def degrees() -> np.ndarray:  # edge ends per entity over the alive edges (loops: 2)
        return (np.bincount(heads[alive], minlength=size)
                + np.bincount(tails[alive], minlength=size))

    if params.min_degree > 1:
        low = degrees() < params.min_degree
        alive &= ~(low[heads] | low[tails]) | protected
    stages["min_degree"] = int(alive.sum())

    if params.max_degree is not None:
        cap = params.max_degree
        degree = degrees()
        over = np.flatnonzero(degree > cap)
        for i in rng.permutation(len(over)).tolist():
            node = over[i]
            excess = degree[node] - cap
            if excess <= 0:
                continue
            options = np.flatnonzero(((heads == node) | (tails == node)) & alive & ~protected)
            options = options[rng.permutation(len(options))]
            ends = np.where(heads[options] == tails[options], 2, 1)
            # remove edges in that random order until the entity is at the cap
            take = min(int(np.searchsorted(np.cumsum(ends), excess)) + 1, len(options))
            removed = options[:take]
            alive[removed] = False
            np.subtract.at(degree, heads[removed], 1)
            np.subtract.at(degree, tails[removed], 1)
    stages["degree_cap"] = int(alive.sum())

    free = np.flatnonzero(alive & ~protected)
    room = max(0, params.max_edges - int(protected.sum()))
    if len(free) > room:
        free = free[rng.choice(len(free), size=room, replace=False)]
    kept = np.sort(np.concatenate([free, np.flatnonzero(protected)]))
    final = [ego[i] for i in kept.tolist()]
    stages["final"] = len(final)

    node_ids = sorted({edge.head for edge in final} | {edge.tail for edge in final})
    info = view.entity_info(node_ids)
    entities = [Node(node_id, *info[node_id]) for node_id in node_ids]
    edges = [Edge(edge.id, edge.head, view.relation_name(edge.type), edge.tail)
             for edge in final]
    return SampledSubgraph(
        subgraph=Subgraph.build(entities, edges),
        seeds=tuple(seeds),
        centres=tuple(centres),
        protected=tuple(sorted(ego[i].id for i in np.flatnonzero(protected).tolist())),
        stages=stages,
        edge_types={edge.id: edge.type for edge in final},
    )


def sample_subgraph(view: KGView, params: SamplingParams,
                    rng: np.random.Generator) -> SampledSubgraph:
    """Steps 1-5: fresh seeds, then their pruned, composed ego graph."""
    return build_subgraph(view, params, rng, choose_seeds(view, params, rng))


def _pick(rng: np.random.Generator, items: Sequence[Any], weights: Sequence[int]) -> Any:
    """One item with probability proportional to its (integer) weight."""
    total = sum(weights)
    target = rng.random() * total
    running = 0
    for item, weight in zip(items, weights, strict=True):
        running += weight
        if target < running:
            return item
    return items[-1]


class _Side:
    """One direction of the bidirectional BFS: layers, shortest-path counts, predecessors."""

    def __init__(self, root: str) -> None:
        self.layers: list[list[str]] = [[root]]
        self.depth: dict[str, int] = {root: 0}
        self.count: dict[str, int] = {root: 1}
        self.parents: dict[str, list[str]] = {root: []}

    def expand(self, view: KGView) -> list[str]:
        frontier = self.layers[-1]
        level = len(self.layers)
        adjacent = view.neighbours(frontier)
        layer: list[str] = []
        for parent in frontier:  # sorted: layers are built sorted
            for child in adjacent.get(parent, []):
                seen = self.depth.get(child)
                if seen is None:
                    self.depth[child] = level
                    self.count[child] = self.count[parent]
                    self.parents[child] = [parent]
                    layer.append(child)
                elif seen == level:
                    self.count[child] += self.count[parent]
                    self.parents[child].append(parent)
        layer.sort()
        for child in layer:
            self.parents[child].sort()
        self.layers.append(layer)
        return layer

    def walk_back(self, node: str, rng: np.random.Generator) -> list[str]:
        """A uniformly random shortest path from `node` back to the root (node first)."""
        walk = [node]
        while self.parents[walk[-1]]:
            options = self.parents[walk[-1]]
            walk.append(_pick(rng, options, [self.count[p] for p in options]))
        return walk


def sample_shortest_path(view: KGView, source: str, target: str, rng: np.random.Generator,
                         max_length: int = 12) -> list[str] | None:
    """A shortest path (edges either way) from source to target in the KG, uniform over all
    shortest paths; None when there is none within `max_length` hops.

    Bidirectional BFS, one neighbourhood query per ring, always growing the smaller frontier.
    When the rings first meet after the source side reached depth a and the target side depth
    b, every shortest path (length a + b) crosses the meeting set at exactly one entity m;
    the number of paths through m is count_source(m) * count_target(m), so drawing m in
    proportion to that and each half backwards in proportion to the path counts is uniform.
    """
    if source == target:
        return [source]
    ahead, behind = _Side(source), _Side(target)
    while len(ahead.layers) + len(behind.layers) - 2 < max_length:
        grow_source = len(ahead.layers[-1]) <= len(behind.layers[-1])
        side, other = (ahead, behind) if grow_source else (behind, ahead)
        layer = side.expand(view)
        if not layer:
            return None
        depth_other = len(other.layers) - 1
        meet = [node for node in layer if other.depth.get(node) == depth_other]
        if meet:
            middle = _pick(rng, meet, [ahead.count[m] * behind.count[m] for m in meet])
            first = ahead.walk_back(middle, rng)[::-1]
            second = behind.walk_back(middle, rng)
            return first + second[1:]
    return None
