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

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kgcert.errors import InputError
from kgcert.store.graph import GraphStore
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.neighbourhood import DEFAULT_CACHE_EDGES, KGView, make_view
from kgcert.tasks.registry import get_task
from kgcert.tasks.sampler import Resample, SampledSubgraph, build_subgraph, choose_seeds
from kgcert.tasks.spec import TaskSpec, load_task_spec
from kgcert.textualize.subgraph import Subgraph
from kgcert.util.rng import sample_rng

MAX_ATTEMPTS = 100
STREAM = "kgllmbench"


@dataclass
class Job:
    """What a task's `build` works with for one draw of one instance."""

    view: KGView
    spec: TaskSpec
    seed: int
    index: int
    rng: np.random.Generator
    attempt: int

    def seeds(self) -> list[str]:
        return choose_seeds(self.view, self.spec.sampling, self.rng)

    def sample(self, seeds: Sequence[str] | None = None,
               path: Sequence[str] | None = None) -> SampledSubgraph:
        chosen = list(seeds) if seeds is not None else self.seeds()
        return build_subgraph(self.view, self.spec.sampling, self.rng, chosen, path=path)

    def pick(self, items: Sequence[Any]) -> Any:
        if not items:
            raise Resample("nothing to choose from")
        return items[int(self.rng.integers(len(items)))]

    def make(self, sampled: SampledSubgraph, *, question: str, answer_format: str,
             answers: Sequence[str], details: dict[str, Any],
             **provenance: Any) -> TaskInstance:
        record = {
            "seed_entities": list(sampled.seeds),
            "centres": list(sampled.centres),
            "protected_edges": list(sampled.protected),
            "edges_by_stage": dict(sampled.stages),
            "sampling": self.spec.sampling.as_dict(),
            "options": dict(self.spec.options),
            "attempts": self.attempt,
            **provenance,
        }
        return TaskInstance(
            task=self.spec.task,
            spec_hash=self.spec.hash,
            seed=self.seed,
            index=self.index,
            subgraph=sampled.subgraph,
            question=question,
            answer_format=answer_format,
            answers=tuple(sorted(set(answers))),
            details=details,
            provenance=record,
        )


class Task(ABC):
    name: ClassVar[str]
    paper_name: ClassVar[str]
    option_defaults: ClassVar[dict[str, Any]] = {}

    def check_options(self, spec: TaskSpec) -> None:
        unknown = sorted(set(spec.options) - set(self.option_defaults))
        if unknown:
            allowed = ", ".join(sorted(self.option_defaults)) or "none"
            raise InputError(f"{spec.source}: unknown options for task {self.name}: "
                             f"{', '.join(unknown)} (allowed: {allowed})")

    def option(self, spec: TaskSpec, key: str) -> Any:
        return spec.options.get(key, self.option_defaults[key])

    @abstractmethod
    def build(self, job: Job) -> TaskInstance:
        """One instance from one draw; raise Resample when this draw cannot make one."""

    @abstractmethod
    def score_exact(self, instance: TaskInstance, response: str) -> bool: ...

    @abstractmethod
    def score_flexible(self, instance: TaskInstance, response: str) -> bool: ...


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
