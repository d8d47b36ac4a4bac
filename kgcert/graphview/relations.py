"""A KG relation's metadata as the read model keeps it, and the one question sentence lengths
ask of it.

The types that view.py (which reads the relations) and lengths.py (which measures sentences by
their templates) share live here, so neither of those modules imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Relation:
    type: str
    source_type: str
    target_type: str
    display: str
    name: str
    aliases: tuple[str, ...]
    template: str


class RelationLookup(Protocol):
    """Finds the relation that names an edge (`PromptGraph` is one)."""

    def relation_between(self, rel_type: str, source: str, target: str,
                         display: str | None) -> Relation | None:
        """The relation of an edge of `rel_type` from a `source` to a `target` label."""
        ...
