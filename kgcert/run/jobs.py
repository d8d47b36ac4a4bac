"""Turn a run config into jobs (spec x setting, with their prompt builders) and model slots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgcert.manifest import read_manifest
from kgcert.models.base import GenerationConfig, ModelResponse
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.models.registry import get_model
from kgcert.prompts.budget import Budget
from kgcert.prompts.mcqa import PromptBuilder
from kgcert.prompts.record import Prompt
from kgcert.prompts.task import TaskPromptBuilder, restore_response
from kgcert.run.config import RunConfig
from kgcert.run.runner import Job, ModelSlot, Scorer
from kgcert.specs import TaskSpec, find_spec, prepare_sampler, spec_hash
from kgcert.store.graph import GraphStore
from kgcert.tasks import score_exact, score_flexible


def _task_scorer(builder: TaskPromptBuilder) -> Scorer:
    def score(prompt: Prompt, response: ModelResponse) -> dict[str, Any]:
        if response.error is not None:
            return {"outcome": "error", "parse_note": response.error}
        if not response.text.strip():
            return {"outcome": "unparseable", "parse_note": "empty response"}
        instance = builder.generator.instance(prompt.provenance.index)
        text = restore_response(prompt, response.text)
        exact, flexible = score_exact(instance, text), score_flexible(instance, text)
        return {"outcome": "correct" if flexible else "wrong", "exact_correct": exact,
                "flexible_correct": flexible}
    return score


def build_jobs(store: GraphStore, config: RunConfig, spec_dirs: list[Path],
               cache_dir: Path | None) -> list[Job]:
    manifest = read_manifest(store)
    base = {"kg": config.kg, "kg_fingerprint": manifest.fingerprint if manifest else None}
    budget = Budget.characters(config.context_chars)
    jobs: list[Job] = []
    for name in config.specs:
        entry = find_spec(name, spec_dirs)
        spec = entry.spec
        context = {**base, "spec_kind": spec.kind, "spec_file": str(entry.path)}
        if isinstance(spec, TaskSpec):
            for form in config.formats:
                task_builder = TaskPromptBuilder(store, entry.path, seed=config.seed,
                                                 textualization=form)
                jobs.append(Job(spec.name, spec_hash(spec), form, task_builder.build,
                                {**context, "textualization": form},
                                scorer=_task_scorer(task_builder)))
            continue
        sampler = prepare_sampler(spec, store, cache_dir)
        for setting in config.settings:
            builder = PromptBuilder(store, spec, sampler, seed=config.seed, setting=setting,
                                    options=config.options, few_shot=config.few_shot,
                                    budget=budget, cache_dir=cache_dir)
            jobs.append(Job(spec.name, spec_hash(spec), setting, builder.build,
                            {**context, "options": config.options,
                             "few_shot": config.few_shot, "budget": repr(budget.limit) +
                             f" {budget.unit}"}))
    return jobs


def build_models(config: RunConfig, response_cache: Path | None) -> list[ModelSlot]:
    generation = GenerationConfig(max_new_tokens=config.max_new_tokens,
                                  temperature=config.temperature, seed=config.seed,
                                  mode=config.mode)
    cache = ResponseCache(response_cache) if (config.cache and response_cache) else None
    slots = []
    for spec_string in config.models:
        model = get_model(spec_string, generation, **config.model_options.get(spec_string, {}))
        if cache is not None and model.cacheable:
            model = CachedModel(model, cache)
        slots.append(ModelSlot(spec_string, model, generation))
    return slots
