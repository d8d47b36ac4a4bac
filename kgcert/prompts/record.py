"""The prompt record every builder produces and the runner consumes.

A prompt carries everything needed to score the answer and to trace it back to the graph:
its provenance names the spec (and hash), the run seed and sample index, the entities and
edges it was built from, the setting, the textualization and the random choices made, so
the same prompt can be rebuilt byte for byte and its failures explored in Neo4j Browser.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any, Literal

Kind = Literal["relation", "entity", "task"]


@dataclass(frozen=True)
class Provenance:
    spec: str
    spec_hash: str
    kind: Kind
    seed: int
    index: int
    setting: str  # "vanilla", "distractor", or a task's variant
    textualization: str | None = None  # for task prompts and structured contexts
    nodes: dict[str, str] = field(default_factory=dict)  # role (pattern variable, path position)
    edges: tuple[tuple[str, str, str], ...] = ()  # (source id, relationship type, target id)
    template: int | None = None  # which question template
    aliases: dict[str, str] = field(default_factory=dict)  # entity id -> the alias shown
    distractors: tuple[str, ...] = ()  # entity ids of Definition 2.3 distractors in context
    rejected_draws: int = 0  # candidate draws refused before this sample (sampler)
    rejected_prompts: int = 0  # draws refused by a setting's condition (e.g. needs a distractor)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = _fields(self, _MADE_BY_PROVENANCE)
        data["edges"] = [list(edge) for edge in self.edges]
        data["distractors"] = list(self.distractors)
        return data


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt.

    Multiple choice: `options` in the order shown, `option_ids` the entity behind each, and
    `correct_option` the 1-based number of the one correct option. Tasks (free answers):
    no options, `answers` holds every accepted answer and `task` names the scorer.
    `skipped` is set (and `text` empty) when the prompt could not be built faithfully, e.g.
    its essential sentences do not fit the model's context; the reason is recorded.
    `system` is sent as a system message before `text` (the `system` prompting strategy).
    """

    text: str
    provenance: Provenance
    options: tuple[str, ...] = ()
    option_ids: tuple[str, ...] = ()
    correct_option: int | None = None
    answer_id: str | None = None
    answers: tuple[str, ...] = ()
    task: str | None = None
    skipped: str | None = None
    system: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data = _fields(self, _MADE_BY_PROMPT)
        data["provenance"] = self.provenance.as_dict()
        data["options"] = list(self.options)
        data["option_ids"] = list(self.option_ids)
        data["answers"] = list(self.answers)
        return data


# The fields each `as_dict` makes itself: `_fields` leaves them None in their places (the
# dict's key order is the fields'), not copied only to be replaced (the provenance was copied
# twice per prompt).
_MADE_BY_PROVENANCE = frozenset({"edges", "distractors"})
_MADE_BY_PROMPT = frozenset({"provenance", "options", "option_ids", "answers"})
_NAMES: dict[type, tuple[str, ...]] = {}  # each record class's field names, in order


def _fields(record: Prompt | Provenance, made: frozenset[str] = frozenset()
            ) -> dict[str, Any]:
    """What `dataclasses.asdict` gives for these records (containers copied, so the dict
    shares nothing mutable with the record), without its deep copy of every string: a run
    writes one per prompt and model, and asdict's copies were much of a run's own time.
    The fields in `made` are None, for the caller to fill in."""
    names = _NAMES.get(type(record))
    if names is None:
        names = _NAMES[type(record)] = tuple(f.name for f in fields(record))
    return {name: None if name in made else _copied(getattr(record, name)) for name in names}


_ATOMS = frozenset({str, int, float, bool, type(None)})  # exact types: kept as they are


def _copied(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    # A prompt's provenance holds lists of a hundred or so strings: no call per string.
    if isinstance(value, dict):
        return {k if type(k) in _ATOMS else _copied(k): v if type(v) in _ATOMS else _copied(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in _ATOMS else _copied(v) for v in value]
    if isinstance(value, tuple):
        items = [_copied(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    if isinstance(value, Provenance):
        return _fields(value)
    return copy.deepcopy(value)
