"""The in-memory read model of one KG for prompts: one interface, two backends.

    from kgcert.graphview import open_graph, pull

    graph = open_graph(store)                                  # per-entity reads over Bolt
    graph = open_graph(store, snapshot=pull(store, cache_dir))  # the whole KG's arrays

The backend is chosen here, once: the composer (kgcert/prompts/) asks `PromptGraph`'s
questions and never which backend answers them. See kgcert/graphview/view.py.
"""

from __future__ import annotations

from kgcert.graphview.fact import Adjacency, Fact
from kgcert.graphview.snapshot import GraphSnapshot, pull
from kgcert.graphview.view import ENTITY, EntityEdges, EntityInfo, PromptGraph, Relation
from kgcert.store.graph import GraphStore


def open_graph(store: GraphStore, snapshot: GraphSnapshot | None = None, *,
               max_cached_edges: int | None = None) -> PromptGraph:
    """The prompt graph of `store`: over `snapshot`'s arrays when given (None from `pull`
    for a KG whose edges carry their own sentences), else over per-entity reads."""
    if snapshot is not None:
        from kgcert.graphview.arrays import SnapshotGraph

        return SnapshotGraph(store, snapshot, max_cached_edges)
    from kgcert.graphview.reads import ReadGraph

    return ReadGraph(store, max_cached_edges)


__all__ = ["ENTITY", "Adjacency", "EntityEdges", "EntityInfo", "Fact", "GraphSnapshot",
           "PromptGraph", "Relation", "open_graph", "pull"]
