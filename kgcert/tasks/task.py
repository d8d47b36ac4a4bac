"""What a task is: the `Task` interface every KG-LLM-Bench task module implements, and the
`Job` (one draw of one instance) its `build` works with.

The registry (registry.py) names `Task`, and the spec reader (spec_file.py) asks the registry
for a task to check a spec's options: this module imports neither, so the task types, the
registry and the spec reader form no circle.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kgcert.errors import InputError
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.neighbourhood import KGView
from kgcert.tasks.sampler import Resample, SampledSubgraph, build_subgraph, choose_seeds
from kgcert.tasks.spec import TaskSpec


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
