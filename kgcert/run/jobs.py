"""Turn a run's RunSpec into jobs (spec x setting, with their prompt builders) and model slots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgcert.answer_format.reply import ANSWER_PREFIX, answer_line_complete
from kgcert.answer_format.strategies import STANDARD, Strategy
from kgcert.errors import InputError
from kgcert.graphview import open_graph, prompt_graph
from kgcert.loading.manifest import read_manifest
from kgcert.models.base import GenerationConfig
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.models.registry import get_model
from kgcert.prompts.budget import Budget
from kgcert.prompts.mcqa import PromptBuilder
from kgcert.prompts.record import Prompt
from kgcert.prompts.setting_names import setting_name
from kgcert.prompts.settings import PromptSettings
from kgcert.run.budget import capped_room, run_budget, window
from kgcert.run.runner import Job, ModelSlot, score_choice
from kgcert.rundir.run_spec import RunSpec
from kgcert.specs import TaskSpec, find_spec, prepare_sampler, spec_hash
from kgcert.specs.kind import composed_spec, spec_kind, task_spec
from kgcert.store.graph import GraphStore
from kgcert.tasks import TaskGenerator
from kgcert.tasks.prompt import TaskPromptBuilder

BudgetGroup = tuple[Budget, tuple[str, ...] | None]  # a budget and the models it is for


def prompt_budget(run: RunSpec, slot: ModelSlot,
                  max_new_tokens: int | None = None) -> Budget:
    """Algorithm 7's budget for one model: a local model's prompts are measured with its own
    tokenizer against its context window less the answer (capped by `context_tokens`); API
    models and models without a known tokenizer get the run's character budget. It depends
    on this model and the run file only, never on the other models of the run.
    `max_new_tokens` overrides the run's answer room (a reasoning strategy needs more)."""
    found = window(slot.model, run, max_new_tokens)
    if found is None:
        return run.prompts.prompt_budget
    tokenizer = found.tokenizer

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    return Budget.tokens(count, capped_room(found.room, run), f"tokens ({found.name})")


def prompt_budgets(run: RunSpec, models: list[ModelSlot],
                   max_new_tokens: int | None = None) -> list[BudgetGroup]:
    """The run's one budget, for every model (None); with `--budget per-model` each model's
    own, and models with the same budget share their prompts."""
    if not run.budget.per_model:
        named = [(slot.spec_string, slot.model) for slot in models]
        return [(run_budget(run, named, max_new_tokens), None)]
    groups: dict[tuple[int, str], tuple[Budget, list[str]]] = {}
    for slot in models:
        budget = prompt_budget(run, slot, max_new_tokens)
        groups.setdefault((budget.limit, budget.unit), (budget, []))[1].append(slot.spec_string)
    if len(groups) <= 1:
        return [(budget, None) for budget, _ in groups.values()]
    return [(budget, tuple(names)) for budget, names in groups.values()]


Budgets = list[BudgetGroup] | Callable[[int], list[BudgetGroup]]


def build_jobs(store: GraphStore, run: RunSpec, spec_dirs: list[Path],
               cache_dir: Path | None, budgets: Budgets | None = None) -> list[Job]:
    """One job per (spec, setting): for relation and entity specs each of the run's
    settings, for task specs each textualization and entity-name variant; each of those
    once per prompting strategy (standard keeps the setting's own name, the others add
    `+cot`, `+tot`, `+system`). `budgets` may be a function of the answer room (max new
    tokens), so a reasoning strategy's prompts leave room for its longer answers."""
    manifest = read_manifest(store)
    base = {"kg": run.kg.name, "kg_fingerprint": manifest.fingerprint if manifest else None}

    def budget_groups(max_new_tokens: int) -> list[BudgetGroup]:
        found = budgets(max_new_tokens) if callable(budgets) else budgets
        return found or [(run.prompts.prompt_budget, None)]

    # One entity-edge cache for every builder of the run, over the KG's snapshot when the run
    # has relation or entity specs (thousands of prompts: reading the KG once beats per-prompt
    # reads; the snapshot is cached on disk beside the edge tables).
    prompt_specs = any(spec_kind(find_spec(name, spec_dirs).spec).composed
                       for name in run.specs.names)
    graph = prompt_graph(store, cache_dir) if prompt_specs else open_graph(store)
    strategies = [run.variants.strategy(name) for name in run.variants.strategies]
    knobs = run.prompts  # every prompt knob the run sets, described below
    jobs: list[Job] = []
    for name in run.specs.names:
        entry = find_spec(name, spec_dirs)
        spec = entry.spec
        kind = spec_kind(spec)
        context = {**base, "spec_kind": kind.name, "spec_file": str(entry.path)}
        task = task_spec(spec)
        if task is not None:
            if run.specs.suite is not None:
                raise InputError(f"suite {run.specs.suite.name}: {spec.name} is a task spec; a "
                                 "suite mixes relation and entity specs")
            jobs += _task_jobs(store, run, task, entry.path, context, strategies, knobs)
            continue
        composed = composed_spec(spec)
        assert composed is not None  # the contract's kinds: task, else relation or entity
        try:
            sampler = prepare_sampler(spec, store, cache_dir)
        except InputError as error:  # a suite names a spec with no matches: refused at start
            if run.specs.suite is None:
                raise
            raise InputError(f"suite {run.specs.suite.name}: {error}") from None
        settings: list[tuple[str, int | None]] = [(s, None) for s in run.variants.settings]
        if run.variants.baseline:  # the paper's static set: fixed names, no noise, reported beside
            settings.append(("baseline", run.variants.baseline))
        for strategy in strategies:
            answer_room = strategy.max_new_tokens(run.generation.max_new_tokens)
            for budget, names in budget_groups(answer_room):
                for setting, count in settings:
                    prompt_settings = knobs.with_(setting=setting, budget=budget)
                    # The strategy's own text takes its room from the prompt's budget.
                    builder = PromptBuilder(
                        store, composed, sampler, seed=run.seed.value, graph=graph,
                        cache_dir=cache_dir,
                        settings=prompt_settings.with_(budget=strategy.budget(budget)))
                    described = prompt_settings.describe(kind, builder.require_distractor)
                    described["population"] = ("per-model" if run.budget.per_model
                                               else "run")
                    jobs.append(Job(spec.name, spec_hash(spec),
                                    setting_name(setting, strategy=strategy.name),
                                    _asked(strategy, builder.build),
                                    {**context, **described, **_strategy_context(strategy)},
                                    scorer=strategy.scorer(score_choice), n=count,
                                    models=names, max_new_tokens=answer_room, graph=graph))
    if run.specs.suite is not None:
        from kgcert.run.suite_jobs import suite_jobs

        return suite_jobs(run, jobs)
    return jobs


def _asked(strategy: Strategy, build: Callable[[int], Prompt]) -> Callable[[int], Prompt]:
    if strategy.name == STANDARD:
        return build
    return lambda index: strategy.apply(build(index))


def _strategy_context(strategy: Strategy) -> dict[str, Any]:
    if strategy.name == STANDARD:
        return {}
    described: dict[str, Any] = {"strategy": strategy.name}
    if strategy.system is not None:
        described["system_prompt"] = strategy.system
    return described


def _task_jobs(store: GraphStore, run: RunSpec, spec: TaskSpec, path: Path,
               context: dict[str, Any], strategies: list[Strategy],
               knobs: PromptSettings) -> list[Job]:
    """Every (format, entity names, strategy) of a task spec. One generator serves them
    all, so instance i (subgraph, question, answers) is the same in every variant: only
    its rendering differs, which is what makes the variants paired."""
    generator = TaskGenerator(store, str(path), seed=run.seed.value)
    jobs = []
    for form in run.variants.formats:
        for names in run.variants.entity_names:
            settings = knobs.with_(textualization=form, pseudonymize=names == "pseudonymized")
            builder = TaskPromptBuilder(store, path, seed=run.seed.value, settings=settings,
                                        generator=generator)
            for strategy in strategies:
                jobs.append(Job(spec.name, spec_hash(spec),
                                setting_name(form, names, strategy.name),
                                _asked(strategy, builder.build),
                                {**context, **settings.describe_task(),
                                 **_strategy_context(strategy)},
                                scorer=strategy.scorer(builder.score),
                                max_new_tokens=strategy.max_new_tokens(run.generation.max_new_tokens)))
    return jobs


def build_models(run: RunSpec, response_cache: Path | None) -> list[ModelSlot]:
    # The answer format's stop rule and prefix: a reply may end once its answer line has.
    generation = GenerationConfig(max_new_tokens=run.generation.max_new_tokens,
                                  temperature=run.generation.temperature,
                                  seed=run.seed.value, mode=run.generation.mode,
                                  stop_when=answer_line_complete, choice_prefix=ANSWER_PREFIX)
    cache = ResponseCache(response_cache) if (run.generation.cache and response_cache) else None
    slots = []
    for spec_string in run.models.names:
        model = get_model(spec_string, generation, **run.models.options_of(spec_string))
        if cache is not None and model.cacheable:
            model = CachedModel(model, cache)
        slots.append(ModelSlot(spec_string, model, generation))
    return slots
