"""The in-memory read model of one KG for prompts: one interface, two backends.

    from kgcert.graphview import open_graph, pull

    graph = open_graph(store)                                  # per-entity reads over Bolt
    graph = open_graph(store, snapshot=pull(store, cache_dir))  # the whole KG's arrays
    graph = prompt_graph(store, cache_dir)   # what every command builds its prompts over

The backend is chosen here, once: the composer (kgcert/prompts/) asks `PromptGraph`'s
questions and never which backend answers them. See kgcert/graphview/view.py.
"""

from __future__ import annotations

from pathlib import Path

from kgcert.graphview.fact import Adjacency, Fact
from kgcert.graphview.relations import Relation
from kgcert.graphview.snapshot import GraphSnapshot, pull
from kgcert.graphview.view import ENTITY, EntityEdges, EntityInfo, PromptGraph
from kgcert.store.graph import GraphStore


def open_graph(store: GraphStore, snapshot: GraphSnapshot | None = None, *,
               max_cached_edges: int | None = None) -> PromptGraph:
    """The prompt graph of `store`: over `snapshot`'s arrays when given (None from `pull`
    for a KG with sentences on an edge stored twice), else over per-entity reads."""
    if snapshot is not None:
        from kgcert.graphview.arrays import SnapshotGraph

        return SnapshotGraph(store, snapshot, max_cached_edges)
    from kgcert.graphview.reads import ReadGraph

    return ReadGraph(store, max_cached_edges)


def prompt_graph(store: GraphStore, cache_dir: Path | None) -> PromptGraph:
    """The one graph `kgcert prompts`, `kgcert run` and `specs sample` read the KG through:
    its snapshot (read once, then from `cache_dir`), so a few prompts cost what a run's do and
    come out the same (a KG whose edges carry their own sentences too, kept beside the
    arrays); per-entity reads only where `pull` gives None."""
    return open_graph(store, pull(store, cache_dir))


__all__ = ["ENTITY", "Adjacency", "EntityEdges", "EntityInfo", "Fact", "GraphSnapshot",
           "PromptGraph", "Relation", "open_graph", "prompt_graph", "pull"]
