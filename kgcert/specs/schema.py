"""The loaded KG's schema as specs see it: labels, relationship types and which labels each
relationship type joins. Names in a spec are matched after the loaders' own sanitizing
(`gene/protein` -> `gene__protein`, or the hashed form that keeps colliding names apart),
and a miss suggests the closest names."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from difflib import get_close_matches

from kgcert.errors import InputError
from kgcert.store.cypher import hashed_identifier, is_kgcert_label, named, sanitize_identifier
from kgcert.store.graph import GraphStore

ENTITY = "Entity"


def _suggest(name: str, choices: list[str]) -> str:
    close = get_close_matches(name, choices, n=3, cutoff=0.5)
    if close:
        return f"; did you mean {', '.join(close)}?"
    shown = ", ".join(sorted(choices)[:12])
    return f"; known: {shown}{', ...' if len(choices) > 12 else ''}"


@dataclass
class KGSchema:
    labels: list[str]
    rel_types: list[str]
    # relationship type -> {(source label, target label)} from the KgcertRelation nodes
    endpoints: dict[str, set[tuple[str, str]]] = field(default_factory=dict)

    @classmethod
    def read(cls, store: GraphStore) -> KGSchema:
        labels = [label for label in store.labels()
                  if not is_kgcert_label(label) and label != ENTITY]
        rel_types = store.relationship_types()
        endpoints: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for row in store.query(named("specs", "relation_endpoints")):
            endpoints[row["type"]].add((row["source_type"], row["target_type"]))
        return cls(labels, rel_types, dict(endpoints))

    def label(self, written: str | None, where: str) -> str:
        """The KG label for a label written in a spec; None (no label) means any entity."""
        if written is None or written == ENTITY:
            return ENTITY
        name = _resolve(written, self.labels, where)
        if name not in self.labels:
            raise InputError(f"{where}: unknown label {written!r}{_suggest(name, self.labels)}")
        return name

    def rel_type(self, written: str, where: str) -> str:
        name = _resolve(written, self.rel_types, where)
        if name not in self.rel_types:
            raise InputError(f"{where}: unknown relationship type {written!r}"
                             f"{_suggest(name, self.rel_types)}")
        return name

    def has_rel_type(self, written: str) -> bool:
        try:
            return sanitize_identifier(written) in self.rel_types
        except ValueError:
            return False

    def check_endpoints(self, source: str, rel_type: str, target: str, where: str) -> None:
        """Refuse an edge whose labels the relationship type never joins in this KG."""
        known = self.endpoints.get(rel_type)
        if not known:
            return  # a KG loaded without relation metadata: the zero-match check catches it
        if any(_fits(source, s) and _fits(target, t) for s, t in known):
            return
        joins = ", ".join(f"{s}->{t}" for s, t in sorted(known))
        raise InputError(f"{where}: no {rel_type} edges go from {source} to {target} in this KG "
                         f"({rel_type} joins {joins})")


def _resolve(written: str, known: list[str], where: str) -> str:
    """The KG identifier a spec's name means: itself, its sanitized form, or (where the
    loader had to keep two names apart, `likes-x` and `likes x`) its hashed form."""
    if written in known:
        return written
    try:
        name = sanitize_identifier(written)
        hashed = hashed_identifier(written)
    except ValueError:
        raise InputError(f"{where}: {written!r} is not a label or relationship type") from None
    return hashed if hashed in known else name


def _fits(wanted: str, actual: str) -> bool:
    return wanted in (ENTITY, actual)
