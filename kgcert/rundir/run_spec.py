"""`RunSpec`: a run's settings as one frozen, nested record, parsed once.

    spec = RunSpec.parse(run_file, flags)       # a run file with the flags on top
    spec = RunSpec.of(kg="toy", specs=("a",), models=("oracle",), n=50)  # tests, simulations
    spec.design.n, spec.prompts.few_shot, spec.generation.max_new_tokens  # what layers read
    spec.design_hash()                          # what every sample and certificate carries

The run file (and run.yaml, which is one) keeps its flat keys: `RunFileKeys`, the parser,
checks them, `RunSpec` groups them, and `settings()` gives them back exactly, so run.yaml is
the same bytes and the design hash and the run-folder fingerprint the same values as before
the settings were grouped. Every layer reads the grouped parts, never the flat keys. `RunDir`
alone reads and writes run.yaml (`read_run_spec`, `write_run_spec`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from kgcert.answer_format.strategies import Strategy
from kgcert.errors import InputError
from kgcert.prompts.budget import Budget as PromptBudget
from kgcert.prompts.settings import PromptKnobError, PromptSettings
from kgcert.rundir.run_file_keys import (
    BudgetPart,
    RunFileKeys,
    SequentialConfig,
    load_run_file_keys,
)
from kgcert.rundir.suite_config import SuiteConfig

# Not part of the design: models may be added (they answer the same prompts), batching and
# caching change no answer, how the seed came about is reported, not hashed, and where the
# spec files were found is not what they say (the spec hashes are); prices change no answer.
OUTSIDE = ("models", "model_options", "batch_size", "cache", "seed_source", "specs_dirs",
           "prices")


def design_fields(spec: RunSpec) -> dict[str, Any]:
    """What a design hash covers, as the flat run-file keys (a resume names the changed ones)."""
    config = spec._keys
    body = config.model_dump(mode="json", exclude=set(OUTSIDE))
    for name in ("suite", "until", "margin"):  # older runs hash as they did before these
        if body.get(name) is None:
            body.pop(name, None)
    if config.extendable:  # declared before the first answer: n may grow later
        body.pop("n")
    if config.simultaneous:  # the Bonferroni family counts the models
        body["models"] = list(config.models)
    if config.until is not None:  # the race's Holm family is over the pairs of its models
        body["race"] = sorted(config.models)
    return body


def design_hash(spec: RunSpec) -> str:
    body = json.dumps(design_fields(spec), sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class KgChoice:
    """The KG the run reads, with its load fingerprint once the graph is open."""

    name: str
    fingerprint: str | None = None


@dataclass(frozen=True)
class SpecChoice:
    """The specs the run certifies, or the suite mixing them (with its weights), and the
    folders their files were found in."""

    names: tuple[str, ...]
    suite: SuiteConfig | None = None
    dirs: tuple[str, ...] = ()

    @property
    def weights(self) -> tuple[float, ...] | None:
        return self.suite.weights if self.suite is not None else None


@dataclass(frozen=True)
class ModelChoice:
    """The models the run asks, with their options and prices, as the run file gave them."""

    names: tuple[str, ...]
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    prices: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def options_of(self, model: str) -> dict[str, Any]:
        return dict(self.options.get(model, {}))


@dataclass(frozen=True)
class SeedChoice:
    """The run seed, and whether the user gave it or the run drew it."""

    value: int
    source: Literal["given", "drawn"] = "given"


@dataclass(frozen=True)
class Variants:
    """What each spec is asked in: settings and a baseline set (relation and entity specs),
    textualizations and entity names (task specs), each under every prompting strategy."""

    settings: tuple[str, ...]
    formats: tuple[str, ...]
    entity_names: tuple[str, ...]
    strategies: tuple[str, ...]
    system_prompt: str | None
    reasoning_tokens: int
    baseline: int

    def strategy(self, name: str) -> Strategy:
        return Strategy(name, self.system_prompt if name == "system" else None,
                        self.reasoning_tokens)


@dataclass(frozen=True)
class Generation:
    """How the models answer, and how the calls are batched and cached."""

    max_new_tokens: int
    temperature: float
    mode: Literal["generate", "choice"]
    batch_size: int
    cache: bool


@dataclass(frozen=True)
class BudgetChoice:
    """The prompt budget: `mode` is run, per-model, N or N:TOKENIZER; `parts` the run's one
    budget once resolved; `context_tokens` caps a tokenizer's room. (The character budget
    for models without a tokenizer is `RunSpec.prompts.budget`.)"""

    mode: str
    context_tokens: int | None
    parts: tuple[BudgetPart, ...] | None

    @property
    def per_model(self) -> bool:
        return self.mode == "per-model"


@dataclass(frozen=True)
class Design:
    """How the samples are counted: n (the most drawn, with a stop rule), the confidence, the
    stop rule (sequential, or a race `until` ranked or best within `margin`), the Bonferroni
    family (`simultaneous`) and whether n may grow later (`extendable`)."""

    n: int
    confidence: float
    sequential: SequentialConfig | None
    until: Literal["ranked", "best"] | None
    margin: float | None
    simultaneous: bool
    extendable: bool


@dataclass(frozen=True)
class RunSpec:
    """A run's settings, grouped (see the module docstring). `older_budget` marks a run.yaml
    written before runs had one budget: its samples hold per-model prompts."""

    kg: KgChoice
    specs: SpecChoice
    models: ModelChoice
    seed: SeedChoice
    prompts: PromptSettings  # every prompt knob: options, few-shot, weighting, character budget
    variants: Variants
    generation: Generation
    budget: BudgetChoice
    design: Design
    older_budget: bool = field(default=False, compare=False)

    @classmethod
    def parse(cls, path: Path | None, overrides: Mapping[str, Any]) -> RunSpec:
        """The run file's settings with every given flag on top (None flags are not given)."""
        source = str(path) if path else "run settings"
        return cls.from_keys(load_run_file_keys(path, dict(overrides)), source=source)

    @classmethod
    def of(cls, **keys: Any) -> RunSpec:
        """A run's settings from flat run-file keys, checked as a run file's are (tests,
        benchmarks and simulations name a run this way)."""
        return cls.from_keys(RunFileKeys.model_validate(keys))

    @classmethod
    def from_keys(cls, config: RunFileKeys, *, kg_fingerprint: str | None = None,
                  older_budget: bool = False, source: str = "run settings") -> RunSpec:
        """The flat run-file keys grouped; a prompt knob `PromptSettings` refuses is an
        InputError naming `source` and the key, as the parser names its own."""
        try:
            prompts = PromptSettings(options=config.options, few_shot=config.few_shot,
                                     budget=PromptBudget.characters(config.context_chars),
                                     weighting=config.distractor_weighting)
        except PromptKnobError as error:
            raise InputError(f"{source}: {error.key}: {error.reason}") from None
        return cls(
            kg=KgChoice(config.kg, kg_fingerprint),
            specs=SpecChoice(config.specs, config.suite, config.specs_dirs),
            models=ModelChoice(config.models, config.model_options, config.prices),
            seed=SeedChoice(config.seed, config.seed_source),
            prompts=prompts,
            variants=Variants(config.settings, config.formats, config.entity_names,
                              config.strategies, config.system_prompt,
                              config.reasoning_tokens, config.baseline),
            generation=Generation(config.max_new_tokens, config.temperature, config.mode,
                                  config.batch_size, config.cache),
            budget=BudgetChoice(config.budget, config.context_tokens, config.run_budget),
            design=Design(config.n, config.confidence, config.sequential, config.until,
                          config.margin, config.simultaneous, config.extendable),
            older_budget=older_budget)

    def revised(self, **keys: Any) -> RunSpec:
        """These run-file keys changed, and the whole checked again as a run file is (what
        `kgcert run` does with --price and --limit)."""
        return RunSpec.from_keys(load_run_file_keys(None, self._keys.model_dump() | keys))

    # Typed changes: a resume's seed, budget, suite weights and models, and quantization.

    def with_seed(self, value: int, source: Literal["given", "drawn"]) -> RunSpec:
        return dataclasses.replace(self, seed=SeedChoice(value, source))

    def with_budget_parts(self, parts: tuple[BudgetPart, ...] | None) -> RunSpec:
        return dataclasses.replace(self, budget=dataclasses.replace(self.budget, parts=parts))

    def with_budget_mode(self, mode: str) -> RunSpec:
        return dataclasses.replace(self, budget=dataclasses.replace(self.budget, mode=mode))

    def with_suite(self, suite: SuiteConfig | None) -> RunSpec:
        return dataclasses.replace(self, specs=dataclasses.replace(self.specs, suite=suite))

    def with_models(self, names: tuple[str, ...]) -> RunSpec:
        return dataclasses.replace(self, models=dataclasses.replace(self.models, names=names))

    def with_model_options(self, options: Mapping[str, Mapping[str, Any]]) -> RunSpec:
        return dataclasses.replace(self, models=dataclasses.replace(self.models,
                                                                    options=options))

    def with_prices(self, prices: Mapping[str, Mapping[str, float]]) -> RunSpec:
        return dataclasses.replace(self, models=dataclasses.replace(self.models, prices=prices))

    @cached_property
    def _keys(self) -> RunFileKeys:
        """The flat run-file keys, in the run file's order (what run.yaml holds)."""
        return RunFileKeys.model_validate({
            "kg": self.kg.name, "specs": self.specs.names, "models": self.models.names,
            "model_options": {name: dict(values) for name, values in self.models.options.items()},
            "settings": self.variants.settings, "formats": self.variants.formats,
            "n": self.design.n, "confidence": self.design.confidence,
            "seed": self.seed.value, "seed_source": self.seed.source,
            "options": self.prompts.options, "few_shot": self.prompts.few_shot,
            "batch_size": self.generation.batch_size,
            "max_new_tokens": self.generation.max_new_tokens,
            "temperature": self.generation.temperature, "mode": self.generation.mode,
            "context_chars": self.prompts.prompt_budget.limit,
            "context_tokens": self.budget.context_tokens, "budget": self.budget.mode,
            "run_budget": self.budget.parts, "extendable": self.design.extendable,
            "sequential": self.design.sequential, "simultaneous": self.design.simultaneous,
            "baseline": self.variants.baseline, "cache": self.generation.cache,
            "strategies": self.variants.strategies, "system_prompt": self.variants.system_prompt,
            "reasoning_tokens": self.variants.reasoning_tokens,
            "entity_names": self.variants.entity_names,
            "distractor_weighting": self.prompts.weighting, "specs_dirs": self.specs.dirs,
            "prices": {name: dict(price) for name, price in self.models.prices.items()},
            "suite": self.specs.suite, "until": self.design.until,
            "margin": self.design.margin})

    def settings(self) -> dict[str, Any]:
        """The flat keys as JSON values (what run.yaml says, for reports and summaries)."""
        return self._keys.model_dump(mode="json")

    def design_hash(self) -> str:
        """The hash of the design, carried by every sample and certificate of the run."""
        return design_hash(self)

    def fingerprint(self) -> str:
        """What the run samples and asks (the run folder's name ends with it)."""
        return self._keys.fingerprint()
