"""Every knob of a prompt's rendering in one frozen record, built once and described once.

    settings = PromptSettings.of_run(config)            # a run's knobs, from its config
    PromptBuilder(store, spec, settings=settings.with_(setting="distractor"))
    TaskPromptBuilder(store, spec, settings=settings.with_(textualization="yaml"))

Multiple-choice prompts read `setting` .. `filler_per_entity`, task prompts `textualization`
and `pseudonymize`. Values are checked when the record is made (a bad one is an InputError
naming it); `describe` and `describe_task` say what a run records of them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from kgcert.errors import InputError
from kgcert.prompts.budget import Budget
from kgcert.prompts.distractors import WEIGHTINGS, Weighting
from kgcert.prompts.fewshot import MAX_EXAMPLES
from kgcert.specs.kind import Kind
from kgcert.util import defaults

# baseline: the paper's static comparison set, vanilla context with every entity and
# relation under its name, the first template, and no shuffling.
Setting = Literal["vanilla", "distractor", "baseline"]
SETTINGS: tuple[Setting, ...] = ("vanilla", "distractor", "baseline")
FILLER_PER_ENTITY = 40


class RunKnobs(Protocol):
    """The prompt knobs a run's config sets (`kgcert.run.config.RunConfig` is one): named
    here, so the prompt layer never imports the run layer, not even for a type."""

    @property
    def options(self) -> int: ...

    @property
    def few_shot(self) -> int: ...

    @property
    def context_chars(self) -> int: ...

    @property
    def distractor_weighting(self) -> Weighting: ...


@dataclass(frozen=True)
class PromptSettings:
    """How prompts are rendered, whichever spec they come from.

    `budget` bounds the whole prompt (None: 12,000 characters); `require_distractor` None
    follows the spec's `distractors: required`; `max_distractors` None: all of a relation
    DAG's, one of an entity path's."""

    setting: Setting = "vanilla"
    options: int = defaults.OPTIONS
    few_shot: int = defaults.FEW_SHOT
    shuffle: bool = True
    budget: Budget | None = None
    weighting: Weighting = "tail"
    max_distractors: int | None = None
    require_distractor: bool | None = None
    filler_per_entity: int = FILLER_PER_ENTITY
    textualization: str = "list"
    pseudonymize: bool = False

    def __post_init__(self) -> None:
        if self.setting not in SETTINGS:
            raise InputError(f"setting must be one of {', '.join(SETTINGS)}, "
                             f"got {self.setting!r}")
        if self.options < 2:
            raise InputError(f"a question needs at least 2 options, got {self.options}")
        if not 0 <= self.few_shot <= MAX_EXAMPLES:
            raise InputError(f"few-shot examples: 0 to {MAX_EXAMPLES}, got {self.few_shot}")
        if self.weighting not in WEIGHTINGS:
            raise InputError(f"distractor weighting must be one of {', '.join(WEIGHTINGS)}")
        if self.max_distractors is not None and self.max_distractors < 1:
            raise InputError("max_distractors must be at least 1")
        if self.filler_per_entity < 0:
            raise InputError("filler_per_entity must be non-negative")

    @classmethod
    def of_run(cls, config: RunKnobs) -> PromptSettings:
        """The knobs a run config sets (its settings, formats and budgets vary per job)."""
        return cls(options=config.options, few_shot=config.few_shot,
                   budget=Budget.characters(config.context_chars),
                   weighting=config.distractor_weighting)

    def with_(self, **changes: Any) -> PromptSettings:
        return dataclasses.replace(self, **changes)

    @property
    def prompt_budget(self) -> Budget:
        return self.budget if self.budget is not None else Budget.characters()

    def describe(self, kind: Kind, distractors_required: bool) -> dict[str, Any]:
        """What a run records of a multiple-choice job's knobs (`kind`: relation or entity;
        entity paths record their distractors' position weighting)."""
        described: dict[str, Any] = {"options": self.options, "few_shot": self.few_shot,
                                     "budget": self.prompt_budget.text(),
                                     "distractors_required": distractors_required}
        if kind.path and self.setting == "distractor":
            described["distractor_weighting"] = self.weighting
        return described

    def describe_task(self) -> dict[str, Any]:
        """What a run records of a task job's knobs."""
        return {"textualization": self.textualization,
                "entity_names": "pseudonymized" if self.pseudonymize else "real"}


# The builders' default (frozen, so one instance serves every call).
DEFAULT_SETTINGS = PromptSettings()
