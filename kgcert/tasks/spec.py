"""Task specs as data: the sampling parameters and the spec of one KG-LLM-Bench task, and the
spec hash that names their random streams.

The spec hash (sha256 of the parsed spec in canonical JSON, 16 hex digits; the description
and `kg` are wording and left out) names the random streams, so changing any setting or the
name gives other instances, and the same spec, seed and index always give the same instance.
The files these are read from, and how they are checked, are spec_file.py's.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from kgcert.errors import InputError

KIND = "task"


@dataclass(frozen=True)
class SamplingParams:
    """How one instance's subgraph is drawn (KG-LLM-Bench Table 4 plus the degree cap)."""

    seed_entities: int = 10
    radius: int = 1
    min_degree: int = 1
    max_edges: int = 200
    max_degree: int | None = None
    core_label: str = "Country"

    def __post_init__(self) -> None:
        for name in ("seed_entities", "radius", "max_edges"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InputError(f"sampling.{name} must be a positive integer, got {value!r}")
        if (not isinstance(self.min_degree, int) or isinstance(self.min_degree, bool)
                or self.min_degree < 0):
            raise InputError(f"sampling.min_degree must be an integer >= 0, got "
                             f"{self.min_degree!r}")
        if self.max_degree is not None and (
            not isinstance(self.max_degree, int) or isinstance(self.max_degree, bool)
            or self.max_degree < 1
        ):
            raise InputError(f"sampling.max_degree must be a positive integer or null, got "
                             f"{self.max_degree!r}")
        if not isinstance(self.core_label, str) or not self.core_label.strip():
            raise InputError("sampling.core_label must be a non-empty entity type name")

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed_entities": self.seed_entities,
            "radius": self.radius,
            "min_degree": self.min_degree,
            "max_degree": self.max_degree,
            "max_edges": self.max_edges,
            "core_label": self.core_label,
        }


@dataclass(frozen=True)
class TaskSpec:
    task: str
    description: str
    instances: int
    sampling: SamplingParams
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    source: str = ""  # the file it came from, for messages
    name: str = ""  # defaults to the task name
    kg: str | None = None

    @property
    def hash(self) -> str:
        data = self.as_dict()
        del data["description"], data["kg"]
        return spec_hash(data)

    def as_dict(self) -> dict[str, Any]:
        """The spec as data (the file path is not part of it)."""
        return {
            "kind": KIND,
            "name": self.name or self.task,
            "kg": self.kg,
            "task": self.task,
            "description": self.description,
            "instances": self.instances,
            "sampling": self.sampling.as_dict(),
            "options": dict(self.options),
        }

    def with_sampling(self, **changes: Any) -> TaskSpec:
        """A copy with some sampling parameters changed (a new spec, so a new hash)."""
        merged = {**self.sampling.as_dict(), **changes}
        return TaskSpec(self.task, self.description, self.instances, SamplingParams(**merged),
                        dict(self.options), self.source, self.name, self.kg)


def spec_hash(data: dict[str, Any]) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
