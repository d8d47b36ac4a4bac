"""Task registry: a task name maps to the class defining it, imported on first use.

Names are snake_case (`triple_retrieval`); the paper's names (`TripleRetrieval`) are
accepted as aliases. Adding a task is one module with a `Task` subclass and one line in
`TASKS`. Nothing here imports a task module, and `Task` comes from task.py (which imports neither
this module nor the spec reader), so the task modules, `base` and `spec_file` can all import
this one without a circle, type-only imports counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgcert.plugins.registry import Registry

if TYPE_CHECKING:
    from kgcert.tasks.task import Task


def _instance(name: str, cls: Any) -> Task:
    task = cls()
    if task.name != name:
        raise ValueError(f"task {name!r} names {cls.__qualname__}, whose name is {task.name!r}")
    return task


TASKS = Registry["Task"]("task", "valid tasks", make=_instance, aliases={
    "TripleRetrieval": "triple_retrieval",
    "ShortestPath": "shortest_path",
    "AggByRelation": "agg_by_relation",
    "AggNeighborProperties": "agg_neighbor_properties",
    "HighestDegreeNode": "highest_degree_node",
})
TASKS.add("triple_retrieval", "kgcert.tasks.triple_retrieval:TripleRetrieval")
TASKS.add("shortest_path", "kgcert.tasks.shortest_path:ShortestPath")
TASKS.add("agg_by_relation", "kgcert.tasks.agg_by_relation:AggByRelation")
TASKS.add("agg_neighbor_properties", "kgcert.tasks.agg_neighbor_properties:AggNeighborProperties")
TASKS.add("highest_degree_node", "kgcert.tasks.highest_degree_node:HighestDegreeNode")


def names() -> list[str]:
    return TASKS.names()


def get_task(name: str) -> Task:
    return TASKS.load(name)
