"""The run's one prompt budget: fixed at start, recorded in run.yaml, the same for every model.

Prompt i is one text for every model of a run, so every certificate of the run is about the
same distribution, and a model added later answers the same prompts. The budget is the user's
(`--budget N` characters, `--budget N:TOKENIZER` tokens), else the tightest that fits every
model of the run's start: the character budget for models without a tokenizer and, per local
tokenizer, the smallest window less the answer. A prompt fits when it fits every part. A model
whose window cannot hold the budget is refused before any call.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

from kgcert.errors import InputError
from kgcert.prompts.budget import Budget
from kgcert.rundir.run_file_keys import BudgetPart
from kgcert.rundir.run_spec import RunSpec

TEMPLATE_RESERVE = 64  # tokens for the chat template's wrapping around the prompt
SCALE = 1_000_000  # a budget of several parts counts in millionths of the tightest part


@dataclasses.dataclass(frozen=True)
class Window:
    """What one model can hold: None for a model without a known tokenizer and window."""

    tokenizer: Any
    name: str
    room: int  # tokens left for the prompt after the answer and the chat template


def _tokenizer(slot_model: Any) -> tuple[Any, str, int] | None:
    model = getattr(slot_model, "inner", slot_model)
    tokenizer, limit = getattr(model, "tokenizer", None), getattr(model, "context_limit", None)
    if tokenizer is None or not limit:
        return None
    return tokenizer, str(getattr(tokenizer, "name_or_path", type(tokenizer).__name__)), int(limit)


def window(slot_model: Any, run: RunSpec, max_new_tokens: int | None = None
           ) -> Window | None:
    found = _tokenizer(slot_model)
    if found is None:
        return None
    tokenizer, name, limit = found
    answer = run.generation.max_new_tokens if max_new_tokens is None else max_new_tokens
    return Window(tokenizer, name, max(1, limit - answer - TEMPLATE_RESERVE))


def capped_room(room: int, run: RunSpec) -> int:
    """A tokenizer's room for a prompt under the run's `context_tokens` cap: the one place
    the cap applies (the run's budget and each model's own budget both ask here)."""
    cap = run.budget.context_tokens
    return room if cap is None else min(room, cap)


def resolve_parts(run: RunSpec, models: Sequence[tuple[str, Any]]
                  ) -> tuple[BudgetPart, ...]:
    """The run's budget from the user's `--budget`, else from the models of its start."""
    if run.budget.mode not in ("run", "per-model"):
        limit, _, tokenizer = run.budget.mode.partition(":")
        if tokenizer:
            return (BudgetPart(unit="tokens", limit=int(limit), tokenizer=tokenizer.strip()),)
        return (BudgetPart(unit="characters", limit=int(limit)),)
    parts: list[BudgetPart] = []
    rooms: dict[str, int] = {}
    for _, model in models:
        found = window(model, run)
        if found is None:
            if not any(p.unit == "characters" for p in parts):
                parts.append(BudgetPart(unit="characters", limit=run.prompts.prompt_budget.limit))
            continue
        room = capped_room(found.room, run)
        rooms[found.name] = min(room, rooms.get(found.name, room))
    parts += [BudgetPart(unit="tokens", limit=room, tokenizer=name)
              for name, room in rooms.items()]
    return tuple(parts)


def holds(part: BudgetPart, found: Window) -> bool:
    """Whether a window surely holds every prompt that fits `part` (a token covers at least
    one character, so a window of R tokens holds R characters)."""
    if part.unit == "tokens":
        return part.tokenizer == found.name and part.limit <= found.room
    return part.limit <= found.room


def check_windows(run: RunSpec, parts: Sequence[BudgetPart],
                  models: Sequence[tuple[str, Any]]) -> None:
    """Refuse, in one line, a model whose window cannot hold the run's budget."""
    for name, model in models:
        found = window(model, run)
        if found is None or any(holds(part, found) for part in parts):
            continue
        raise InputError(
            f"model {name} cannot hold the run's prompt budget ({describe(parts)}): its window "
            f"leaves {found.room} tokens ({found.name}) for a prompt after the answer; start a "
            "new run (another --out) for it, or give --budget per-model")


def describe(parts: Sequence[BudgetPart]) -> str:
    return " and ".join(part.describe() for part in parts)


def _counter(part: BudgetPart, models: Sequence[tuple[str, Any]]) -> Callable[[str], int]:
    if part.unit == "characters":
        return len
    tokenizer = next((found[0] for _, model in models
                      if (found := _tokenizer(model)) is not None
                      and found[1] == part.tokenizer), None)
    if tokenizer is None:
        tokenizer = _load_tokenizer(str(part.tokenizer))

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    return count


def _load_tokenizer(name: str) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise InputError(f"the run's budget counts tokens of {name}, which needs transformers: "
                         "pip install 'kgcert[hf]'") from None
    try:
        return AutoTokenizer.from_pretrained(name)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot load tokenizer {name} of the run's budget: "
                         f"{str(error).splitlines()[0]}") from None


def run_budget(run: RunSpec, models: Sequence[tuple[str, Any]],
               max_new_tokens: int | None = None) -> Budget:
    """The recorded budget (or, when none is recorded yet, the one the models give) as one
    `Budget`; a strategy with a longer answer gives each token part that much less room."""
    parts = run.budget.parts or resolve_parts(run, models)
    answer = run.generation.max_new_tokens
    extra = max(0, (max_new_tokens or answer) - answer)
    limits = [max(1, p.limit - extra) if p.unit == "tokens" else p.limit for p in parts]
    counters = [_counter(p, models) for p in parts]
    if len(parts) == 1:
        part = parts[0]
        if part.unit == "characters":
            return Budget.characters(limits[0])
        return Budget.tokens(counters[0], limits[0], f"tokens ({part.tokenizer})")

    def count(text: str) -> int:  # the tightest part decides, in millionths of its limit
        return max(math.ceil(counter(text) * SCALE / limit)
                   for counter, limit in zip(counters, limits, strict=True))

    names = " and ".join(p.model_copy(update={"limit": limit}).describe()
                         for p, limit in zip(parts, limits, strict=True))
    return dataclasses.replace(Budget.tokens(count, SCALE, "millionths of the run budget"),
                               label=names)
