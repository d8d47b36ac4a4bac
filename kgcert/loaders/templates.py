"""Sentence templates for relations, read from the declarative files in loaders/."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from kgcert.util.resources import data_folder


@dataclass(frozen=True)
class TemplateBook:
    """Picks the sentence template of a directed relation; the first matching entry wins."""

    entries: tuple[dict[str, str], ...]
    fallback: str
    type_alias: str = "({type}) {name}"
    relation_name: str = "{display} ({target_type})"

    def find(self, relation: str, display: str, source_type: str, target_type: str) -> str | None:
        wanted = {"relation": relation, "display": display, "source": source_type,
                  "target": target_type}
        for entry in self.entries:
            if all(entry[key] == wanted[key] for key in wanted if key in entry):
                return entry["template"]
        return None

    def template(self, relation: str, display: str, source_type: str, target_type: str) -> str:
        found = self.find(relation, display, source_type, target_type)
        if found is not None:
            return found
        return self.fallback.replace("{display}", display)


@cache
def template_book(name: str) -> TemplateBook:
    raw: dict[str, Any] = yaml.safe_load((data_folder("loaders") / f"{name}.yaml").read_text())
    return TemplateBook(
        entries=tuple(raw.get("templates", [])),
        fallback=raw["fallback"],
        type_alias=raw.get("type_alias", "({type}) {name}"),
        relation_name=raw.get("relation_name", "{display} ({target_type})"),
    )
