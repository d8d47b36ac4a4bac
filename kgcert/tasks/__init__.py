"""The five KG-LLM-Bench tasks (Markowitz et al. 2025) over a KG in the graph store.

    from kgcert.tasks import TaskGenerator, score_exact, score_flexible

    generator = TaskGenerator(store, "shortest_path", seed=0)   # spec name, path or TaskSpec
    instance = generator.instance(5)        # depends only on (seed, spec, 5) and the KG
    instance.subgraph                       # kgcert.textualize.subgraph.Subgraph the model reads
    instance.full_question                  # question + answer-format instruction
    instance.answers                        # every correct answer
    score_exact(instance, reply), score_flexible(instance, reply)

Specs ship in specs/tasks/<task>.yaml (KG-LLM-Bench Table 4 parameters).
"""

from __future__ import annotations

from kgcert.tasks.base import MAX_ATTEMPTS, TaskGenerator, generate_instance
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.neighbourhood import CachedView, CypherView, KGView, edge_id, make_view
from kgcert.tasks.registry import TASKS, get_task, names
from kgcert.tasks.spec import SamplingParams, TaskSpec
from kgcert.tasks.spec_file import load_task_spec, parse_task_spec, shipped_specs
from kgcert.tasks.task import Task


def score_exact(instance: TaskInstance, response: str | None) -> bool:
    """The paper's exact-match rule for the instance's task (never raises on any reply)."""
    return get_task(instance.task).score_exact(instance, response or "")


def score_flexible(instance: TaskInstance, response: str | None) -> bool:
    """A reading tolerant of case, punctuation, quotes, markdown and chatter around the
    answer (never raises on any reply)."""
    return get_task(instance.task).score_flexible(instance, response or "")


__all__ = [
    "MAX_ATTEMPTS",
    "TASKS",
    "CachedView",
    "CypherView",
    "KGView",
    "SamplingParams",
    "Task",
    "TaskGenerator",
    "TaskInstance",
    "TaskSpec",
    "edge_id",
    "generate_instance",
    "get_task",
    "load_task_spec",
    "make_view",
    "names",
    "parse_task_spec",
    "score_exact",
    "score_flexible",
    "shipped_specs",
]
