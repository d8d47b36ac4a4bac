"""Prompts: multiple-choice prompts from spec samples, task prompts, and their records.

    from kgcert.prompts import PromptBuilder, TaskPromptBuilder, Budget

    builder = PromptBuilder(store, spec, seed=0, setting="distractor")   # relation/entity spec
    prompt = builder.build(i)         # Prompt: text, options, correct_option, provenance
    tasks = TaskPromptBuilder(store, "shortest_path", seed=0, textualization="json")
    task_prompt = tasks.build(i)      # Prompt: text, answers, task, provenance
"""

from kgcert.graphview import PromptGraph
from kgcert.prompts.budget import Budget
from kgcert.prompts.mcqa import SETTINGS, PromptBuilder, build_prompt, redraw_seed
from kgcert.prompts.record import Prompt, Provenance
from kgcert.prompts.task import TaskPromptBuilder, build_task_prompt, restore_response

__all__ = [
    "SETTINGS",
    "Budget",
    "Prompt",
    "PromptBuilder",
    "PromptGraph",
    "Provenance",
    "TaskPromptBuilder",
    "build_prompt",
    "build_task_prompt",
    "redraw_seed",
    "restore_response",
]
