"""Every knob of a prompt's rendering in one frozen record, built once and described once.

    settings = spec.prompts                             # a run's knobs (rundir's RunSpec)
    PromptBuilder(store, spec, settings=settings.with_(setting="distractor"))
    TaskPromptBuilder(store, spec, settings=settings.with_(textualization="yaml"))

Multiple-choice prompts read `setting` .. `filler_per_entity`, task prompts `textualization`
and `pseudonymize`. Values are checked when the record is made (a bad one is an InputError
naming it); `describe` and `describe_task` say what a run records of them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

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


class PromptKnobError(InputError):
    """A knob out of range. `key` and `reason` let a run name it as the run file's key is
    named (`run settings: few_shot: Input should be ...`); the message is for a prompt
    command's flag."""

    def __init__(self, key: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.key, self.reason = key, reason


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
        if not 0 <= self.few_shot <= MAX_EXAMPLES:  # the one check, for runs too
            bound = ("greater than or equal to 0" if self.few_shot < 0
                     else f"less than or equal to {MAX_EXAMPLES}")
            raise PromptKnobError("few_shot", f"Input should be {bound}",
                                  f"few-shot examples: 0 to {MAX_EXAMPLES}, got {self.few_shot}")
        if self.weighting not in WEIGHTINGS:
            raise InputError(f"distractor weighting must be one of {', '.join(WEIGHTINGS)}")
        if self.max_distractors is not None and self.max_distractors < 1:
            raise InputError("max_distractors must be at least 1")
        if self.filler_per_entity < 0:
            raise InputError("filler_per_entity must be non-negative")

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
