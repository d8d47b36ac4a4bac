"""One sample's subgraph for the report's explorer: the question's edges, the context edges the
prompt kept, the answer options (each with its role) and the Definition 2.3 distractors, laid
out by networkx so the page only draws it.

    graph = sample_graph(record["prompt"])
    graph["nodes"]  # [{"id", "label", "x", "y", "question", "option", "role", "distractor"}]
    graph["edges"]  # [{"source", "target", "relation", "kind": "question" | "context"}]

Big contexts are cut to MAX_NODES nodes, question edges first, then the edges that touch an
option or a distractor; `omitted` counts the edges left out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kgcert.specs.kind import recorded_kind

MAX_NODES = 30
MAX_MORE = 60  # context edges left out of the drawing, kept for expand-on-click
GRAPH_FIELDS = ("provenance", "option_ids", "options")  # what a drawing reads of a prompt
PARALLEL_FROM = 400  # prompts from which layouts are spread over worker processes
LAYOUT_ITERATIONS = 30  # enough for graphs this small to settle
CANVAS = 1000  # coordinates are whole numbers in [0, CANVAS]

Edge = tuple[str, str, str]  # (source id, relation, target id)


def _question_edges(provenance: Mapping[str, Any]) -> list[Edge]:
    return [(str(e[0]), str(e[1]), str(e[2])) for e in provenance.get("edges") or []
            if isinstance(e, list | tuple) and len(e) == 3]


def _context_edges(extra: Mapping[str, Any]) -> list[Edge]:
    """`extra.context_edges` holds "source|relation|target" for each fact the prompt kept."""
    edges = []
    for text in extra.get("context_edges") or []:
        parts = str(text).split("|")
        if len(parts) == 3:
            edges.append((parts[0], parts[1], parts[2]))
    return edges


def _kept(question: list[Edge], context: list[Edge], pinned: Iterable[str],
          focus: set[str]) -> tuple[list[tuple[Edge, str]], set[str]]:
    """Edges drawn (with their kind) and every node drawn, within MAX_NODES where possible."""
    nodes: set[str] = set()
    kept: list[tuple[Edge, str]] = []
    for edge in question:  # the question's DAG is always drawn whole
        kept.append((edge, "question"))
        nodes.update((edge[0], edge[2]))
    nodes.update(pinned)
    seen = set(question)
    ranked = sorted((e for e in dict.fromkeys(context) if e not in seen),
                    key=lambda e: 0 if {e[0], e[2]} & focus else 1)
    for edge in ranked:
        new = {edge[0], edge[2]} - nodes
        if len(nodes) + len(new) > MAX_NODES:
            continue
        kept.append((edge, "context"))
        nodes.update(new)
    return kept, nodes


def _layout(nodes: tuple[str, ...], edges: tuple[tuple[str, str], ...]
            ) -> dict[str, tuple[int, int]]:
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    if len(nodes) == 1:
        return {nodes[0]: (CANVAS // 2, CANVAS // 2)}
    position = nx.spring_layout(graph, seed=0, iterations=LAYOUT_ITERATIONS)
    xs = [float(p[0]) for p in position.values()]
    ys = [float(p[1]) for p in position.values()]

    def scale(value: float, low: float, high: float) -> int:
        return round((value - low) / (high - low) * CANVAS) if high > low else CANVAS // 2

    return {node: (scale(float(p[0]), min(xs), max(xs)), scale(float(p[1]), min(ys), max(ys)))
            for node, p in position.items()}


def sample_graph(prompt: Mapping[str, Any]) -> dict[str, Any]:
    """The drawable subgraph of one prompt record (as `Prompt.as_dict` wrote it)."""
    provenance = prompt.get("provenance") or {}
    extra = provenance.get("extra") or {}
    question = _question_edges(provenance)
    context = _context_edges(extra)
    kind = recorded_kind(provenance.get("kind"))
    if kind is not None and kind.task:  # a task's edges are the subgraph it shows, no DAG
        question, context = [], question
    option_ids = [str(i) for i in prompt.get("option_ids") or []]
    roles = [str(r) for r in extra.get("option_roles") or []]
    names = [str(n) for n in prompt.get("options") or []]
    distractors = {str(d) for d in provenance.get("distractors") or []}
    question_nodes = {str(n) for n in (provenance.get("nodes") or {}).values()}
    question_nodes |= {n for e in question for n in (e[0], e[2])}
    focus = set(option_ids) | distractors
    kept, nodes = _kept(question, context, [*option_ids, *sorted(distractors),
                                            *sorted(question_nodes)], focus | question_nodes)
    order = tuple(sorted(nodes))
    links = {(min(e[0], e[2]), max(e[0], e[2])) for e, _ in kept if e[0] != e[2]}
    position = _layout(order, tuple(sorted(links)))
    aliases = {str(k): str(v) for k, v in (provenance.get("aliases") or {}).items()}
    variables = {str(v): str(k) for k, v in (provenance.get("nodes") or {}).items()}
    drawn = []
    for node in order:
        entry: dict[str, Any] = {"id": node, "x": position[node][0], "y": position[node][1]}
        if node in option_ids:
            number = option_ids.index(node) + 1
            entry["option"] = number
            entry["label"] = names[number - 1] if number <= len(names) else node
            if number <= len(roles):
                entry["role"] = roles[number - 1]
        else:
            entry["label"] = aliases.get(node, node)
        if node in question_nodes:
            entry["question"] = variables.get(node, True)
        if node in distractors:
            entry["distractor"] = True
        drawn.append(entry)
    edges = [{"source": e[0], "relation": e[1], "target": e[2], "kind": kind}
             for e, kind in kept]
    total = len(set(question) | set(context))
    drawn_edges = {e for e, _ in kept}
    more = [{"source": e[0], "relation": e[1], "target": e[2]}
            for e in dict.fromkeys(context) if e not in drawn_edges][:MAX_MORE]
    return {"nodes": drawn, "edges": edges, "omitted": total - len(kept), "more": more}


def sample_graphs(prompts: Sequence[Mapping[str, Any]], *,
                  parallel_from: int = PARALLEL_FROM) -> list[dict[str, Any]]:
    """`sample_graph` of each prompt, in worker processes when there are many (a 50,000-sample
    report lays out about 10,000 prompts). Spawned, not forked: the caller may hold a JVM."""
    workers = min(os.cpu_count() or 1, 8)
    if len(prompts) < parallel_from or workers < 2:
        return [sample_graph(prompt) for prompt in prompts]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(sample_graph, prompts, chunksize=64))
