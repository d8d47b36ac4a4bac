"""`Certificate`: one (spec, setting, model) certificate, typed, frozen and versioned.

    cert = Certificate.from_dict(body, where=path)   # InputError naming the file and field
    cert.lower, cert.outcomes.skipped, cert.conditioning.skip_causes, cert.cost.calls
    cert.to_dict()                                   # the certificate's JSON, exactly

Written and read by this type: `to_dict` gives the JSON kgcert has always written (README's
"How to read a certificate" reads it key by key) with `record_version` 2; `from_dict` reads
every version up to 2. A file without `record_version` is version 1 (every certificate
before the type existed) and reads as it is; keys the type does not model (context fields of
older or newer run files) are kept and written back unchanged, so an old certificate
re-serialises to the same JSON. A newer version, or a field of the wrong type, is refused in
one line naming the file.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

from kgcert.certify.parts import Part, PartTypeError, part, parts
from kgcert.errors import InputError
from kgcert.rundir.outcomes import OUTCOMES, REFUSED
from kgcert.rundir.record_version import version_problem

CERTIFICATE_RECORD_VERSION = 2  # 1: no record_version (every certificate before this type)
VERSION_KEY = "record_version"
REQUIRED = ("spec", "setting", "model", "k", "n")
COUNTED = tuple(o for o in OUTCOMES if o != REFUSED)  # in `outcomes` since the first format
LISTED = ("spec", "setting", "model", "k", "n", "lower", "upper", "confidence", "seed", "method",
          "cost", "spec_kind")  # what `kgcert runs` shows of each certificate


@dataclasses.dataclass(frozen=True)
class Bound(Part):
    """One bound on P(correct): k of n, its interval and how it was computed."""

    k: int = 0
    n: int = 0
    lower: float = 0.0
    upper: float = 1.0
    estimate: float | None = None
    method: str | None = None
    sided: str | None = None  # "lower": a one-sided lower bound (its upper end says nothing)


@dataclasses.dataclass(frozen=True)
class Outcomes(Part):
    """Every prompt drawn, by outcome (refused: certificates since refusals were told apart)."""

    correct: int = 0
    wrong: int = 0
    unparseable: int = 0
    refused: int | None = None
    error: int = 0
    skipped: int = 0


@dataclasses.dataclass(frozen=True)
class Multiplicity(Part):
    bounds: int | None = None
    each_at: float | None = None
    jointly_at_least: float | None = None


@dataclasses.dataclass(frozen=True)
class Chance(Part):
    options: int = 0
    level: float = 0.0
    reading: str = ""


@dataclasses.dataclass(frozen=True)
class SuiteRedraws(Part):
    """A suite's indices whose first draw did not fit, by cause, and the draws it took."""

    indices: int = 0
    draws: int = 0
    causes: Mapping[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class DistractorsRequired(Part):
    redraws: int = 0
    acceptance_rate: float | None = None


@dataclasses.dataclass(frozen=True)
class DistractorsShown(Part):
    prompts_with: int = 0
    prompts_shown: int = 0


@dataclasses.dataclass(frozen=True)
class Conditioning(Part):
    """Every condition the headline bound rests on, with the counts behind it."""

    budget: Any = None
    drawn: int = 0
    skipped: int = 0
    skip_reasons: Mapping[str, int] = dataclasses.field(default_factory=dict)
    skip_causes: Mapping[str, int] | None = None
    distractors_required: DistractorsRequired | None = part(DistractorsRequired)
    distractors_in_context: DistractorsShown | None = part(DistractorsShown)
    errors_excluded: int = 0
    unparseable_counted_wrong: int = 0
    refused_counted_wrong: int | None = None
    suite_redraws: SuiteRedraws | None = part(SuiteRedraws)


@dataclasses.dataclass(frozen=True)
class Looks(Part):
    """Every look at the certificate's samples and the level they hold at together."""

    joint_confidence: float | None = None
    earlier: tuple[str, ...] = ()
    this_look_confidence: float | None = None
    later: str | None = None  # an earlier look's certificate: the look that superseded it


@dataclasses.dataclass(frozen=True)
class Sequential(Part):
    """The stop rule of a sequential certificate or a race, and where it stopped."""

    half_width: float | None = None
    threshold: float | None = None
    until: str | None = None
    margin: float | None = None
    stopped_at_index: int | None = None


@dataclasses.dataclass(frozen=True)
class Simultaneous(Part):
    """A Bonferroni family over the run's headline bounds."""

    method: str | None = None
    family_confidence: float = 0.0
    certificates: int = 1
    covers: str | None = None


@dataclasses.dataclass(frozen=True)
class Cost(Part):
    """What the certificate's samples cost (kgcert.certify.cost)."""

    calls: int = 0
    cache_hits: int | None = None
    failed_calls: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    calls_without_token_counts: int | None = None
    wall_s: float | None = None
    gpu_s: float | None = None
    price_per_million_tokens: Mapping[str, float] | None = None
    money_usd: float | None = None
    calls_saved: int | None = None  # a race: calls spared against the fixed-n design
    fixed_n_calls: int | None = None

    @property
    def tokens(self) -> int | None:
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return int(self.prompt_tokens or 0) + int(self.completion_tokens or 0)


@dataclasses.dataclass(frozen=True)
class PositionTest(Part):
    position: int = 0
    chosen: int = 0
    share: float = 0.0
    p_value: float = 1.0
    alpha: float = 0.0
    degenerate: bool = False
    method: str | None = None


@dataclasses.dataclass(frozen=True)
class Positions(Part):
    """Chosen and correct option positions, with the degenerate-choice test."""

    options: int = 0
    chosen: tuple[int, ...] = ()
    correct: tuple[int, ...] = ()
    answered: int = 0
    parsed: int = 0
    test: PositionTest | None = part(PositionTest)


@dataclasses.dataclass(frozen=True)
class Matches(Part):
    count: float = 0.0
    exact: bool = True


@dataclasses.dataclass(frozen=True)
class Component(Part):
    """One spec of a suite's mixture, with its weight."""

    spec: str = ""
    weight: float = 0.0
    spec_hash: str | None = None
    spec_file: str | None = None
    matches: Matches | None = part(Matches)


@dataclasses.dataclass(frozen=True)
class Suite(Part):
    """What a suite draws: its specs, with which weights and how they were weighted."""

    name: str = ""
    weighting: str | None = None
    components: tuple[Component, ...] = parts(Component)


@dataclasses.dataclass(frozen=True)
class SpecCount(Part):
    spec: str = ""
    weight: float = 0.0
    drawn: int = 0
    answered: int = 0
    correct: int = 0
    first_draw_skipped: int = 0


@dataclasses.dataclass(frozen=True)
class SuiteCounts(Part):
    """Per spec of a suite, descriptive only (never certified one by one)."""

    certified: bool = False
    per_spec: tuple[SpecCount, ...] = parts(SpecCount)


@dataclasses.dataclass(frozen=True)
class Generation(Part):
    mode: str | None = None
    max_new_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    stop_at_answer: bool | None = None
    choice_prefix: str | None = None


@dataclasses.dataclass(frozen=True)
class Certificate(Part):
    """One certificate (see the module docstring). Every field may be absent in a file of an
    older kgcert; `absent` says which, and `to_dict` leaves them out again."""

    # what is certified
    spec: str = ""
    setting: str = ""
    model: str = ""
    # the headline bound, the other two and how they hold together
    k: int = 0
    n: int = 0
    confidence: float = 0.95
    lower: float = 0.0
    upper: float = 1.0
    estimate: float | None = None
    method: str = ""
    validity: str | None = None
    multiplicity: Multiplicity | None = part(Multiplicity)
    unparseable_excluded: Bound | None = part(Bound)
    unconditional: Bound | None = part(Bound)
    chance: Chance | None = part(Chance)
    # the counts and conditions behind them
    outcomes: Outcomes | None = part(Outcomes)
    conditioning: Conditioning | None = part(Conditioning)
    positions: Positions | None = part(Positions)
    suite_counts: SuiteCounts | None = part(SuiteCounts)
    # the population: what was drawn, from which KG, with which weights and seed
    kg: str | None = None
    kg_fingerprint: str | None = None
    spec_hash: str | None = None
    spec_kind: str | None = None
    spec_file: str | None = None
    suite: Suite | None = part(Suite)
    population: str | None = None  # whose budget: the run's or this model's
    budget: Any = None
    options: int | None = None
    few_shot: int | None = None
    distractors_required: bool | None = None
    distractor_weighting: str | None = None
    # the prompt's variant: a task's textualization and entity names, the answer strategy
    textualization: str | None = None
    entity_names: str | None = None
    strategy: str | None = None
    system_prompt: str | None = None
    baseline: Any = None  # older certificates marked the paper's static set so
    seed: int | None = None
    seed_source: str | None = None
    model_identity: Mapping[str, Any] | None = None
    generation: Generation | None = part(Generation)
    # the design and its looks
    design: str | None = None
    looks: Looks | None = part(Looks)
    samples_requested: int | None = None
    samples_recorded: int | None = None
    written_at_n: tuple[int, ...] | None = None
    sequential: Sequential | None = part(Sequential)
    simultaneous: Simultaneous | None = part(Simultaneous)
    comparisons: str | None = None
    sample_file: str | None = None
    cost: Cost | None = part(Cost)
    # what a reader is told
    flags: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    guarantee: str | None = None
    libraries: Mapping[str, str] | None = None
    created_at: str | None = None
    record_version: int | None = None

    @classmethod
    def read(cls, body: Any, where: object) -> Certificate:
        """The certificate in `body` (a file's decoded JSON), else InputError in one line
        naming `where` (the file) and what is wrong."""
        if not isinstance(body, dict) or not set(REQUIRED) <= body.keys():
            raise InputError(f"{where} is not a certificate (spec, setting, model, k or n "
                             "missing)")
        problem = version_problem(body.get(VERSION_KEY), CERTIFICATE_RECORD_VERSION)
        if problem is not None:
            raise InputError(f"{where}: {problem}")
        problem = wrongly_typed(body)
        if problem is None:
            try:
                return cls.from_dict(body)
            except PartTypeError as error:
                problem = str(error)
        raise InputError(f"{where}: {problem}; the certificate was edited or damaged")

    def written(self) -> dict[str, Any]:
        """The JSON this kgcert writes: the certificate at the newest record version."""
        return dataclasses.replace(self, record_version=CERTIFICATE_RECORD_VERSION,
                                   absent=self.absent - {VERSION_KEY}).to_dict()

    def listing(self) -> dict[str, Any]:
        """The fields `kgcert runs --json` lists (null where the file holds none)."""
        body = self.to_dict()
        return {name: body.get(name) for name in LISTED}

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.spec, self.setting, self.model)

    @property
    def version(self) -> int:
        return int(self.record_version or 1)

    @property
    def where(self) -> str:
        return f"{self.spec} / {self.setting} / {self.model}"

    @property
    def stopped_at_index(self) -> int | None:
        """Where a sequential certificate's stopping rule held (None: not sequential)."""
        return self.sequential.stopped_at_index if self.sequential is not None else None

    @property
    def last_index(self) -> int | None:
        """The last sample index the certificate counts: where a sequential rule stopped,
        else its n requested less one (None for a certificate stating neither)."""
        if self.stopped_at_index is not None:
            return int(self.stopped_at_index)
        if self.samples_requested is not None:
            return int(self.samples_requested) - 1
        return None

    @property
    def counts(self) -> Outcomes:
        """The outcomes (all zero for a certificate that states none)."""
        return self.outcomes if self.outcomes is not None else Outcomes()

    @property
    def joint_confidence(self) -> float:
        """The level every look at these samples holds at together (this one's alone when
        the certificate states no looks)."""
        joint = self.looks.joint_confidence if self.looks is not None else None
        return float(joint) if joint is not None else float(self.confidence)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_mapping(value: Any) -> bool:
    return isinstance(value, dict)


# field -> (test, what it must be, may be null); nested fields as "outer.inner"
FIELD_TYPES: dict[str, tuple[Callable[[Any], bool], str, bool]] = {
    "spec": (_is_str, "a string", False),
    "setting": (_is_str, "a string", False),
    "model": (_is_str, "a string", False),
    "k": (_is_int, "a whole number", False),
    "n": (_is_int, "a whole number", False),
    "lower": (_is_number, "a number", False),
    "upper": (_is_number, "a number", False),
    "estimate": (_is_number, "a number", True),
    "samples_requested": (_is_int, "a whole number", True),
    "outcomes": (_is_mapping, "a mapping", True),
    "unparseable_excluded": (_is_mapping, "a mapping", True),
    "sequential": (_is_mapping, "a mapping", True),
    **{f"outcomes.{name}": (_is_int, "a whole number", False) for name in COUNTED},
    "sequential.stopped_at_index": (_is_int, "a whole number", True),
}


def wrongly_typed(body: Mapping[str, Any]) -> str | None:
    """The first field of `body` that is not what a certificate holds there, said in words."""
    for name, (test, expected, nullable) in FIELD_TYPES.items():
        outer, _, inner = name.partition(".")
        holder = body.get(outer) if inner else body
        field = inner or outer
        if not isinstance(holder, dict) or field not in holder:
            continue
        value = holder[field]
        if (value is None and not nullable) or (value is not None and not test(value)):
            return f"field {name} is {json.dumps(value)[:40]}, expected {expected}"
    return None

