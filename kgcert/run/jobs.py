"""Turn a run config into jobs (spec x setting, with their prompt builders) and model slots."""

from __future__ import annotations

from pathlib import Path

from kgcert.manifest import read_manifest
from kgcert.models.base import GenerationConfig
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.models.registry import get_model
from kgcert.prompts.budget import Budget
from kgcert.prompts.graph import PromptGraph
from kgcert.prompts.mcqa import PromptBuilder
from kgcert.prompts.snapshot import pull
from kgcert.prompts.task import TaskPromptBuilder
from kgcert.run.config import RunConfig
from kgcert.run.runner import Job, ModelSlot
from kgcert.specs import TaskSpec, find_spec, prepare_sampler, spec_hash
from kgcert.store.graph import GraphStore

TEMPLATE_RESERVE = 64  # tokens for the chat template's wrapping around the prompt


BudgetGroup = tuple[Budget, tuple[str, ...] | None]  # a budget and the models it is for


def prompt_budget(config: RunConfig, slot: ModelSlot) -> Budget:
    """Algorithm 7's budget for one model: a local model's prompts are measured with its own
    tokenizer against its context window less the answer (capped by `context_tokens`); API
    models and models without a known tokenizer get the run's character budget. It depends
    on this model and the run file only, never on the other models of the run."""
    model = getattr(slot.model, "inner", slot.model)
    tokenizer, limit = getattr(model, "tokenizer", None), getattr(model, "context_limit", None)
    if tokenizer is None or not limit:
        return Budget.characters(config.context_chars)
    room = max(1, int(limit) - config.max_new_tokens - TEMPLATE_RESERVE)
    if config.context_tokens is not None:
        room = min(room, config.context_tokens)
    name = str(getattr(tokenizer, "name_or_path", type(tokenizer).__name__))

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    return Budget.tokens(count, room, f"tokens ({name})")


def prompt_budgets(config: RunConfig, models: list[ModelSlot]) -> list[BudgetGroup]:
    """Each model's budget; models with the same budget share their prompts. A single
    group is for every model (None)."""
    groups: dict[tuple[int, str], tuple[Budget, list[str]]] = {}
    for slot in models:
        budget = prompt_budget(config, slot)
        groups.setdefault((budget.limit, budget.unit), (budget, []))[1].append(slot.spec_string)
    if len(groups) <= 1:
        return [(budget, None) for budget, _ in groups.values()]
    return [(budget, tuple(names)) for budget, names in groups.values()]


def build_jobs(store: GraphStore, config: RunConfig, spec_dirs: list[Path],
               cache_dir: Path | None, budgets: list[BudgetGroup] | None = None) -> list[Job]:
    manifest = read_manifest(store)
    base = {"kg": config.kg, "kg_fingerprint": manifest.fingerprint if manifest else None}
    budgets = budgets or [(Budget.characters(config.context_chars), None)]
    # One entity-edge cache for every builder of the run, over the KG's snapshot when the run
    # has relation or entity specs (thousands of prompts: reading the KG once beats per-prompt
    # reads; the snapshot is cached on disk beside the edge tables).
    prompt_specs = any(not isinstance(find_spec(name, spec_dirs).spec, TaskSpec)
                       for name in config.specs)
    graph = PromptGraph(store, snapshot=pull(store, cache_dir) if prompt_specs else None)
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
                                scorer=task_builder.score))
            continue
        sampler = prepare_sampler(spec, store, cache_dir)
        settings: list[tuple[str, int | None]] = [(s, None) for s in config.settings]
        if config.baseline:  # the paper's static set: fixed names, no noise, reported beside
            settings.append(("baseline", config.baseline))
        for budget, names in budgets:
            for setting, count in settings:
                builder = PromptBuilder(store, spec, sampler, seed=config.seed, setting=setting,
                                        options=config.options, few_shot=config.few_shot,
                                        budget=budget, graph=graph, cache_dir=cache_dir)
                jobs.append(Job(spec.name, spec_hash(spec), setting, builder.build,
                                {**context, "options": config.options,
                                 "few_shot": config.few_shot,
                                 "budget": f"{budget.limit} {budget.unit}",
                                 "distractors_required": builder.require_distractor},
                                n=count, models=names))
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
