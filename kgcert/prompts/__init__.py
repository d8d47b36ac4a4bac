"""Prompts: multiple-choice prompts from spec samples (LLMCert-C), their settings and records.

    from kgcert.prompts import PromptBuilder, PromptSettings, Budget

    builder = PromptBuilder(store, spec, seed=0, setting="distractor")   # relation/entity spec
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
