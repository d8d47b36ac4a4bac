"""The task interface and instance generation.

Instance `i` of a spec under run seed `s` is built from one generator,
`sample_rng(s, "kgllmbench/<spec hash>", i)`, and nothing else random: seeds, ego-graph
pruning, the question's choices. A draw that cannot make an instance (no path between the
two seeds, an answer that would be ambiguous because two entities share a label, ...) is
redrawn from the same generator, up to `MAX_ATTEMPTS` times; the number of draws is
recorded in the provenance. So instance i depends only on (seed, spec, i) and the KG,
whatever was generated before it, in whichever order, on whichever reader.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from kgcert.errors import InputError
from kgcert.store.graph import GraphStore
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.neighbourhood import DEFAULT_CACHE_EDGES, KGView, make_view
from kgcert.tasks.registry import get_task
from kgcert.tasks.sampler import Resample
from kgcert.tasks.spec import TaskSpec
from kgcert.tasks.spec_file import load_task_spec
from kgcert.tasks.task import Job
from kgcert.textualize.subgraph import Subgraph
from kgcert.util.rng import sample_rng

MAX_ATTEMPTS = 100
STREAM = "kgllmbench"


def stratified(job: Job, options: Sequence[tuple[int, Any]]) -> tuple[int, Any]:
    """The paper's answer stratification (App. B.3): draw an answer value uniformly among the
    distinct values, then one option uniformly among those having it. `options` are
    (value, what) pairs in a fixed order."""
    if not options:
        raise Resample("no candidate question")
    values = sorted({value for value, _ in options})
    value = values[int(job.rng.integers(len(values)))]
    return value, job.pick([what for v, what in options if v == value])


def unique_label_nodes(subgraph: Subgraph) -> set[str]:
    """Ids of the entities whose label no other entity of the subgraph shares."""
    counts = Counter(node.name for node in subgraph.nodes)
    return {node.id for node in subgraph.nodes if counts[node.name] == 1}


def generate_instance(view: KGView, spec: TaskSpec, seed: int, index: int) -> TaskInstance:
    """Instance `index` of `spec` under run seed `seed`, read through `view`."""
    task = get_task(spec.task)
    rng = sample_rng(seed, f"{STREAM}/{spec.hash}", index)
    reasons: Counter[str] = Counter()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return task.build(Job(view, spec, seed, index, rng, attempt))
        except Resample as why:
            reasons[str(why)] += 1
    summary = "; ".join(f"{reason} ({n}x)" for reason, n in reasons.most_common(3))
    raise InputError(f"task {spec.task}: no instance {index} after {MAX_ATTEMPTS} draws "
                     f"({summary}); check the spec's sampling parameters against this KG")


class TaskGenerator:
    """Instances of one task spec over one loaded KG.

    `cache_edges` bounds the adjacency cache (see neighbourhood.CachedView); 0 composes every
    ego graph on the server instead. Either way the instances are the same. Pass `view` to
    share one reader (and its cache) between the generators of several tasks on one KG.
    """

    def __init__(self, store: GraphStore, spec: TaskSpec | str, seed: int = 0, *,
                 cache_edges: int | None = DEFAULT_CACHE_EDGES,
                 view: KGView | None = None) -> None:
        if seed < 0:
            raise InputError(f"the run seed must be a non-negative integer, got {seed}")
        self.spec = spec if isinstance(spec, TaskSpec) else load_task_spec(spec)
        self.seed = seed
        self.view = view if view is not None else make_view(store, cache_edges)

    def instance(self, index: int) -> TaskInstance:
        if index < 0:
            raise InputError(f"instance index must be >= 0, got {index}")
        return generate_instance(self.view, self.spec, self.seed, index)

    def instances(self, count: int | None = None, start: int = 0) -> Iterator[TaskInstance]:
        """Instances start .. start+count-1 (count defaults to the spec's `instances`)."""
        stop = start + (self.spec.instances if count is None else count)
        for index in range(start, stop):
            yield self.instance(index)
