"""Prompting strategies: the same prompt asked another way, so each is a setting of its own
and prompt i under a strategy is paired with prompt i under the standard prompt.

- `standard`: the prompt as built.
- `system`: the same text, with the run's system prompt sent as a system message.
- `cot`: the model first reasons step by step between `<reasoning>` and `</reasoning>`, then
  ends with the reply the standard prompt asks for (the answer line, or the task's format).
- `tot`: as `cot`, but the reasoning explores several lines of thought and keeps the one the
  context supports best (a tree of thoughts written out in one reply).

Replies are read after the last `</reasoning>`, so a step of the reasoning that names an
option never counts as the answer. A reply that opens `<reasoning>` and never closes it ran
out of tokens mid-thought: it is unparseable, not wrong. A reply without the tags (the model
ignored the instruction) is read whole, as the standard prompt's replies are. Reasoning
needs room: `cot` adds `reasoning_tokens` to the run's `max_new_tokens`, `tot` twice that.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from kgcert.answer_format.reply import ANSWER_LINE, ANSWER_RULE, CLOSE, OPEN, answer_part
from kgcert.errors import InputError

if TYPE_CHECKING:  # kgcert.prompts pulls in the graph driver; run files read this module
    from kgcert.models.base import ModelResponse
    from kgcert.prompts.budget import Budget
    from kgcert.prompts.record import Prompt

STRATEGIES = ("standard", "system", "cot", "tot")
STANDARD = "standard"

_COT = (f"First think it through step by step between the tags {OPEN} and {CLOSE}: check "
        "what the question asks against the given facts, one step at a time.")
_TOT = (f"First think it through between the tags {OPEN} and {CLOSE} as a tree of thoughts: "
        "start three different lines of reasoning (for example from different entities the "
        "question names), judge each step against the given facts, drop every line that "
        "contradicts them, and settle on the line the facts support best.")
_CHOICE_END = (f"After {CLOSE}, end your reply with one line in exactly this form, choosing "
               "only among the options above:")
_TASK_END = f"After {CLOSE}, give your reply exactly in the form asked above."
_REASONING = {"cot": _COT, "tot": _TOT}
_TOKEN_FACTOR = {"standard": 0, "system": 0, "cot": 1, "tot": 2}


class Scorer(Protocol):
    """Judges one response (the runner's scorer shape)."""

    def __call__(self, prompt: Prompt, response: ModelResponse) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Strategy:
    """One way of asking. `system` is the system prompt (for `system`); `reasoning_tokens`
    the extra answer room per unit of reasoning."""

    name: str = STANDARD
    system: str | None = None
    reasoning_tokens: int = 0

    def __post_init__(self) -> None:
        if self.name not in STRATEGIES:
            raise InputError(f"unknown prompting strategy {self.name!r} (known: "
                             f"{', '.join(STRATEGIES)})")
        if self.name == "system" and not (self.system or "").strip():
            raise InputError("the system strategy needs a system prompt (--system-prompt)")

    @property
    def reasons(self) -> bool:
        return self.name in _REASONING

    def max_new_tokens(self, base: int) -> int:
        """The answer room this strategy needs when the standard prompt's is `base`."""
        return base + _TOKEN_FACTOR[self.name] * self.reasoning_tokens

    def _instruction(self, choice: bool) -> str:
        return f"{_REASONING[self.name]} {_CHOICE_END if choice else _TASK_END}"

    def budget(self, budget: Budget) -> Budget:
        """A budget for the standard prompt that leaves room for what this strategy adds
        (its instruction and system prompt), so the finished prompt fits `budget`."""
        added = "\n".join(part for part in (
            self._instruction(True) if self.reasons else "",
            self.system if self.name == "system" else "") if part)
        if not added:
            return budget
        room = budget.limit - budget.count(added)
        if room < 1:
            raise InputError(f"the {self.name} strategy's text alone is longer than the prompt "
                             f"budget ({budget.limit} {budget.unit})")
        return dataclasses.replace(budget, limit=room)

    def apply(self, prompt: Prompt) -> Prompt:
        """The prompt asked this way (a skipped prompt stays skipped)."""
        if self.name == STANDARD:
            return prompt
        extra = {**prompt.provenance.extra, "strategy": self.name}
        provenance = dataclasses.replace(prompt.provenance, extra=extra)
        if prompt.skipped is not None:
            return dataclasses.replace(prompt, provenance=provenance)
        if self.name == "system":
            return dataclasses.replace(prompt, provenance=provenance, system=self.system)
        return dataclasses.replace(prompt, provenance=provenance,
                                   text=self._reasoning_text(prompt))

    def _reasoning_text(self, prompt: Prompt) -> str:
        if prompt.options:  # multiple choice: the answer rule closes the prompt
            standard_end = f"{ANSWER_RULE}\n{ANSWER_LINE}\n"
            if not prompt.text.endswith(standard_end):
                raise InputError("a multiple-choice prompt must end with its answer line to be "
                                 f"asked with {self.name}")
            head = prompt.text[:-len(standard_end)]
            return f"{head}{self._instruction(True)}\n{ANSWER_LINE}\n"
        return f"{prompt.text}\n{self._instruction(False)}\n"

    def scorer(self, inner: Scorer) -> Scorer:
        """`inner` judging the answer part of each reply (reasoning strategies only)."""
        if not self.reasons:
            return inner

        def score(prompt: Prompt, response: ModelResponse) -> dict[str, Any]:
            if response.error is not None:
                return inner(prompt, response)
            part, note = answer_part(response.text or "")
            verdict = inner(prompt, dataclasses.replace(response, text=part))
            if note is not None:
                verdict = {**verdict, "outcome": "unparseable", "parse_note": note}
            return {**verdict, "answer_text": part.strip()}

        return score
