"""A suite's stated mixture, as a run file and run.yaml hold it: its name, specs and weights
(with the match counts behind `weights: matches`). Its drawing and folding live in
`kgcert.run.suite`; the record lives here, beside the run file's other keys."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

PLAIN_NAME = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")

WEIGHTINGS = ("equal", "explicit", "matches")


class MatchCount(BaseModel):
    """A spec's matches in the KG, counted once before the first answer for `--weights
    matches`: exact when its sampler enumerates them, else estimated from seeded probe draws
    (the weights are then fixed at that estimate, recorded, and are what the run certifies)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: float = Field(gt=0)
    exact: bool


class SuiteConfig(BaseModel):
    """The mixture a suite run certifies: its name, specs and weights (summing to 1).

    With `weighting: matches` the weights are each spec's share of the specs' matches in the
    KG; they stay empty until the run, with the graph open, counts them (`weighted_by`) before
    its first answer, and run.yaml records them with the counts, so a resume keeps them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    specs: tuple[str, ...] = Field(min_length=1)
    weights: tuple[float, ...] = ()
    weighting: str = "equal"  # how the weights were stated: equal, explicit or matches
    matches: tuple[MatchCount, ...] | None = None  # per spec, with weighting: matches

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        # The name becomes the certificate's and the sample file's folder name in the run.
        if not PLAIN_NAME.fullmatch(name):
            raise ValueError(f"suite name {name!r} is not a plain name: use letters, digits, "
                             "'_' and '-', in parts joined by single dots (no path, no '..')")
        return name

    @model_validator(mode="after")
    def _weights_fit(self) -> SuiteConfig:
        if self.weighting not in WEIGHTINGS:
            raise ValueError(f"suite {self.name}: weights {self.weighting!r} must be one of "
                             f"{', '.join(WEIGHTINGS)}")
        if len(set(self.specs)) != len(self.specs):
            raise ValueError(f"suite {self.name}: a spec is named twice")
        if self.weighting != "matches" and self.matches is not None:
            raise ValueError(f"suite {self.name}: match counts go with weights: matches")
        if self.pending:
            if self.matches is not None:
                raise ValueError(f"suite {self.name}: match counts without their weights")
            return self
        if len(self.weights) != len(self.specs):
            raise ValueError(f"suite {self.name}: {len(self.specs)} specs but "
                             f"{len(self.weights)} weights")
        if any(w <= 0 for w in self.weights) or abs(sum(self.weights) - 1) > 1e-9:
            raise ValueError(f"suite {self.name}: weights must be positive and sum to 1")
        if self.weighting == "matches":
            counts = [m.count for m in self.matches or ()]
            if len(counts) != len(self.specs) or any(
                    abs(w - c / sum(counts)) > 1e-9 for w, c in zip(self.weights, counts,
                                                                   strict=True)):
                raise ValueError(f"suite {self.name}: weights: matches needs one match count "
                                 "per spec, and weights in proportion to them")
        return self

    @model_serializer(mode="wrap")
    def _without_unset_counts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        body: dict[str, Any] = handler(self)
        if body.get("matches") is None:  # suites of other weightings hash as they did before
            body.pop("matches", None)
        return body

    @property
    def pending(self) -> bool:
        """Weighted by matches that are not counted yet (the graph was not open)."""
        return self.weighting == "matches" and not self.weights

    def weighted_by(self, counts: Sequence[MatchCount]) -> SuiteConfig:
        """This suite with its weights in proportion to `counts` (one per spec)."""
        total = sum(c.count for c in counts)
        return SuiteConfig(name=self.name, specs=self.specs, weighting="matches",
                           weights=tuple(c.count / total for c in counts),
                           matches=tuple(counts))

    def stated(self) -> SuiteConfig:
        """The suite as a command states it, weights by matches not yet counted: what names
        the run's folder, so the same command finds it again after the count."""
        if self.weighting != "matches":
            return self
        return SuiteConfig(name=self.name, specs=self.specs, weighting="matches")

    def key(self) -> str:
        """The stream key of the spec draws."""
        return f"suite:{self.name}"
