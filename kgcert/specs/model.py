"""Spec files: YAML at the boundary (pydantic, field-level errors), typed records inside.

Three kinds share the header (kind, name, description):
- relation: a reference DAG as a Cypher pattern; prompts are uniform over its injective
  matches (isomorphisms, LLMCert-C Definition 2.4) in the KG;
- entity: bounded paths from pivot entities (LLMCert-C Algorithms 2 and 4);
- task: one of KG-LLM-Bench's five tasks; its fields belong to `kgcert.tasks`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kgcert.errors import InputError
from kgcert.specs.pattern import PatternEdge, PatternGraph, check_reference_dag, parse_pattern
from kgcert.util.yamlfile import read_yaml

PLACEHOLDER = re.compile(r"\{(\w+)\}")
NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
MIN_TEMPLATES = 5


class _Header(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME)
    description: str = Field(min_length=1)
    kg: str | None = None  # the KG family the spec is written for (documentation only)


class RelationSpec(_Header):
    """Uniform over injective matches of `pattern`; the answer is the DAG's only sink."""

    kind: Literal["relation"]
    pattern: str
    answer: str
    absent: tuple[str, ...] = ()  # single-edge patterns over the DAG's variables that must NOT hold
    templates: tuple[str, ...] = Field(min_length=MIN_TEMPLATES)
    distractors: Literal["optional", "required"] = "optional"

    @field_validator("templates")
    @classmethod
    def _templates_name_variables(cls, templates: tuple[str, ...]) -> tuple[str, ...]:
        for template in templates:
            if not PLACEHOLDER.search(template):
                raise ValueError(f"template {template!r} names no pattern variable")
        return templates

    def graph(self) -> PatternGraph:
        return parse_pattern(self.pattern.strip())

    def absent_edges(self) -> tuple[PatternEdge, ...]:
        edges: list[PatternEdge] = []
        for text in self.absent:
            graph = parse_pattern(text.strip())
            if len(graph.edges) != 1:
                raise InputError(f"spec {self.name}: absent: {text!r} must be one edge")
            edges.append(graph.edges[0])
        return tuple(edges)

    def given(self) -> list[str]:
        """The variables every question names: correct answers are judged with these fixed."""
        return sorted(set(PLACEHOLDER.findall(self.templates[0])))

    def check(self) -> None:
        """Shape checks that need the parsed pattern (the schema checks need the KG)."""
        graph = self.graph()
        check_reference_dag(graph, self.answer, self.pattern)
        given = set(self.given())
        for index, template in enumerate(self.templates):
            named = set(PLACEHOLDER.findall(template))
            unknown = named - set(graph.labels)
            if unknown:
                raise InputError(f"spec {self.name}: templates.{index}: placeholder "
                                 f"{{{sorted(unknown)[0]}}} is not a pattern variable "
                                 f"(variables: {', '.join(graph.labels)})")
            if self.answer in named:
                raise InputError(f"spec {self.name}: templates.{index} names the answer "
                                 f"{{{self.answer}}}")
            if named != given:
                raise InputError(f"spec {self.name}: templates.{index} names "
                                 f"{sorted(named)} but templates.0 names {sorted(given)}; "
                                 "every template must name the same variables")
        for edge in self.absent_edges():
            for var in (edge.source, edge.target):
                if var not in graph.labels:
                    raise InputError(f"spec {self.name}: absent edge names {var!r}, which is "
                                     "not a pattern variable")


class RelationFilter(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


class EntitySpec(_Header):
    """Paths from a pivot: pivot uniform over `pivots`, hop count from `lengths`, then a simple
    path of that many hops whose relation sequence, followed from the pivot over the whole
    graph, reaches exactly one entity (the answer): uniform over such paths (`uniform`, the
    default; Algorithm 2's draw from the bounded DAGs) or a random walk conditioned on that
    (`random_walk`, the step rule of the paper's Algorithm 4)."""

    kind: Literal["entity"]
    pivots: tuple[str, ...] = Field(min_length=1)
    rho: int = Field(default=5, description="most nodes on a path, pivot included")
    lengths: dict[int, float] | None = None  # hops -> weight; None: uniform over 1..rho-1
    paths: Literal["uniform", "random_walk"] = "uniform"
    relations: RelationFilter = RelationFilter()

    @field_validator("pivots")
    @classmethod
    def _distinct_pivots(cls, pivots: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({p for p in pivots if pivots.count(p) > 1})
        if repeated:  # a repeated pivot would be drawn more often than the others
            raise ValueError(f"pivot {repeated[0]!r} is listed twice")
        return pivots

    @field_validator("rho")
    @classmethod
    def _rho_at_least_two(cls, rho: int) -> int:
        if rho < 2:
            raise ValueError(f"rho must be at least 2 (a path of one hop has 2 nodes), got {rho}")
        return rho

    def length_weights(self) -> dict[int, float]:
        if self.lengths is None:
            return {hops: 1.0 for hops in range(1, self.rho)}
        for hops, weight in self.lengths.items():
            if not 1 <= hops < self.rho:
                raise InputError(f"spec {self.name}: lengths: {hops} hops is outside "
                                 f"1..{self.rho - 1} (rho = {self.rho} nodes)")
            if weight < 0:
                raise InputError(f"spec {self.name}: lengths: weight of {hops} hops is negative")
        if sum(self.lengths.values()) <= 0:
            raise InputError(f"spec {self.name}: lengths: weights sum to zero")
        return dict(sorted(self.lengths.items()))

    def check(self) -> None:
        self.length_weights()


class TaskSpec(_Header):
    """A KG-LLM-Bench task; `kgcert.tasks` reads the parameters."""

    model_config = ConfigDict(extra="allow", frozen=True)

    kind: Literal["task"]
    task: str

    def check(self) -> None:
        return None


Spec = Annotated[RelationSpec | EntitySpec | TaskSpec, Field(discriminator="kind")]


class _SpecFile(BaseModel):
    spec: Spec


def _location(error: Any) -> str:
    parts = [str(p) for p in error["loc"][2:]] if len(error["loc"]) > 2 else [
        str(p) for p in error["loc"][1:]]
    return ".".join(parts) or "(top level)"


def parse_spec(data: Any, source: str) -> RelationSpec | EntitySpec | TaskSpec:
    """Validate one spec mapping; errors name the file and the field."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: a spec must be a YAML mapping")
    if data.get("kind") not in ("relation", "entity", "task"):
        raise InputError(f"{source}: kind must be relation, entity or task "
                         f"(got {data.get('kind')!r})")
    try:
        spec = _SpecFile.model_validate({"spec": data}).spec
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError(f"{source}: {_location(first)}: {first['msg']}") from None
    try:
        spec.check()
    except InputError as error:
        raise InputError(f"{source}: {error}") from None
    return spec


def load_spec_file(path: Path) -> RelationSpec | EntitySpec | TaskSpec:
    return parse_spec(read_yaml(path, "spec file"), str(path))


def spec_hash(spec: RelationSpec | EntitySpec | TaskSpec) -> str:
    """Identifies what a spec samples and asks; the description is left out (wording only)."""
    body = spec.model_dump(mode="json", exclude={"description"})
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
