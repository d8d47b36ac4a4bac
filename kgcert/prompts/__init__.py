"""Prompts: multiple-choice prompts from spec samples (LLMCert-C), their settings and records.

    from kgcert.prompts import PromptBuilder, PromptSettings, Budget

    settings = PromptSettings(setting="distractor", budget=Budget.characters(8_000))
    builder = PromptBuilder(store, spec, settings=settings, seed=0)   # relation/entity spec
    prompt = builder.build(i)         # Prompt: text, options, correct_option, provenance

The KG read model they use is kgcert.graphview; KG-LLM-Bench task prompts (the same Prompt
record) are kgcert.tasks.prompt.
"""

from kgcert.graphview import PromptGraph
from kgcert.prompts.budget import Budget
from kgcert.prompts.mcqa import PromptBuilder, build_prompt, redraw_seed
from kgcert.prompts.record import Prompt, Provenance
from kgcert.prompts.settings import SETTINGS, PromptSettings

__all__ = [
    "SETTINGS",
    "Budget",
    "Prompt",
    "PromptBuilder",
    "PromptGraph",
    "PromptSettings",
    "Provenance",
    "build_prompt",
    "redraw_seed",
]
