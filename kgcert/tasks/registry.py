"""Task registry: a task name maps to the module defining it, imported on first use.

Names are snake_case (`triple_retrieval`); the paper's names (`TripleRetrieval`) are
accepted as aliases. Adding a task is one module with a `@register`ed `Task` subclass and
one entry in `_MODULES`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from kgcert.errors import InputError

if TYPE_CHECKING:
    from kgcert.tasks.base import Task

_MODULES = {
    "triple_retrieval": "kgcert.tasks.triple_retrieval",
    "shortest_path": "kgcert.tasks.shortest_path",
    "agg_by_relation": "kgcert.tasks.agg_by_relation",
    "agg_neighbor_properties": "kgcert.tasks.agg_neighbor_properties",
    "highest_degree_node": "kgcert.tasks.highest_degree_node",
}
_ALIASES = {
    "TripleRetrieval": "triple_retrieval",
    "ShortestPath": "shortest_path",
    "AggByRelation": "agg_by_relation",
    "AggNeighborProperties": "agg_neighbor_properties",
    "HighestDegreeNode": "highest_degree_node",
}
_REGISTRY: dict[str, Task] = {}


def register(cls: type[Task]) -> type[Task]:
    _REGISTRY[cls.name] = cls()
    return cls


def names() -> list[str]:
    return sorted(_MODULES)


def get_task(name: str) -> Task:
    key = _ALIASES.get(name, name)
    if key not in _MODULES:
        raise InputError(f"unknown task {name!r}; valid tasks: {', '.join(names())}")
    if key not in _REGISTRY:
        importlib.import_module(_MODULES[key])
    return _REGISTRY[key]
