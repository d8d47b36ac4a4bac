"""The spec-kind contract: the one place that says which kind a spec is and what that kind means.

A spec is one of three kinds, decided here once from its parsed class (the file's `kind` key):

- relation (LLMCert-C §2.1): samples are a compiled pattern's DAGs, so its matches can be
  counted and its Cypher shown, and a suite can weigh it by its matches;
- entity (Appendix D.7): samples are relation paths from a pivot with one answer, asked as a
  path question, with path few-shot examples and distractors drawn by position weights;
- task (KG-LLM-Bench): instances from `kgcert.tasks`, rendered in textualization formats.

Relation and entity specs are "composed": the multiple-choice composer (kgcert.prompts) renders
their samples, a suite mixes them, `specs check` checks them against the KG. The composer, the
run's jobs, `specs` and `prompts` commands, the report and the write-back ask here (`spec_kind`
for a spec, `recorded_kind` for the kind a prompt record or certificate wrote down) rather than
testing classes or comparing kind names themselves; tests/specs/test_spec_kind.py checks that
no module outside this one does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kgcert.specs.model import EntitySpec, RelationSpec, TaskSpec

KindName = Literal["relation", "entity", "task"]


@dataclass(frozen=True)
class Kind:
    """What one kind of spec is (compare kinds by identity: there are three, below)."""

    name: KindName
    composed: bool  # the composer renders its samples as multiple-choice prompts
    dag: bool  # its samples are a compiled pattern's DAGs (matches counted, Cypher shown)
    path: bool  # its samples are relation paths from a pivot, with one answer

    @property
    def task(self) -> bool:
        """KG-LLM-Bench task instances (kgcert.tasks), rendered in textualization formats."""
        return not self.composed


RELATION = Kind("relation", composed=True, dag=True, path=False)
ENTITY = Kind("entity", composed=True, dag=False, path=True)
TASK = Kind("task", composed=False, dag=False, path=False)
KINDS: dict[str, Kind] = {kind.name: kind for kind in (RELATION, ENTITY, TASK)}


def spec_kind(spec: RelationSpec | EntitySpec | TaskSpec) -> Kind:
    """The kind of a parsed spec."""
    if isinstance(spec, RelationSpec):
        return RELATION
    if isinstance(spec, EntitySpec):
        return ENTITY
    if isinstance(spec, TaskSpec):
        return TASK
    raise TypeError(f"{spec!r} is not a parsed spec")


def kind_named(name: str) -> Kind:
    """The kind called `name` ("relation", "entity" or "task"); ValueError for another."""
    found = KINDS.get(name)
    if found is None:
        raise ValueError(f"spec kind must be relation, entity or task, got {name!r}")
    return found


def recorded_kind(value: object) -> Kind | None:
    """The kind a record wrote down (a prompt's provenance `kind`, a certificate's
    `spec_kind`); None for anything else (a suite's certificate, a missing value)."""
    return KINDS.get(value) if isinstance(value, str) else None


def relation_spec(spec: object) -> RelationSpec | None:
    """`spec` as a relation spec, None when it is of another kind."""
    return spec if isinstance(spec, RelationSpec) else None


def entity_spec(spec: object) -> EntitySpec | None:
    """`spec` as an entity spec, None when it is of another kind."""
    return spec if isinstance(spec, EntitySpec) else None


def composed_spec(spec: object) -> RelationSpec | EntitySpec | None:
    """`spec` as a spec the composer renders (relation or entity), None otherwise."""
    return spec if isinstance(spec, RelationSpec | EntitySpec) else None


def task_spec(spec: object) -> TaskSpec | None:
    """`spec` as a task spec file's header, None when it is of another kind."""
    return spec if isinstance(spec, TaskSpec) else None
