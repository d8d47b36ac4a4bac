"""Multiplicity corrections: simultaneous bounds over many specs, and Holm-adjusted p-values.

A run that certifies m specs and reports each at 95% will, on average, have some of the m
intervals miss. A reader who looks at all of them (or at the worst one) needs the statement
"all m intervals hold at once with probability >= 1 - delta". Bonferroni gives that by
running each certificate at confidence 1 - delta/m: by the union bound the chance that any
misses is at most m * delta/m = delta, whatever the dependence between specs (they share a
model and often prompts, so an independence-based split such as Sidak would not be safe).

Holm's step-down procedure is the uniformly more powerful version of Bonferroni for tests: it
controls the family-wise error rate under the same arbitrary dependence. The paired model
comparisons in :mod:`kgcert.stats.paired` use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kgcert.stats._checks import as_count, check_level
from kgcert.stats.binomial import Bounds, clopper_pearson

__all__ = [
    "SimultaneousBounds",
    "bonferroni_confidence",
    "holm_adjust",
    "simultaneous_bounds",
]


def bonferroni_confidence(confidence: float, m: int) -> float:
    """Per-certificate confidence so that ``m`` certificates hold jointly at ``confidence``."""
    level = check_level(confidence, "confidence")
    count = as_count(m, "m")
    if count == 0:
        raise ValueError("m must be >= 1")
    return 1.0 - (1.0 - level) / count


@dataclass(frozen=True)
class SimultaneousBounds:
    """Bounds for several specs that hold all at once with ``family_confidence``.

    ``bounds`` keeps the caller's order as (spec name, bounds) pairs; each ``Bounds`` carries
    the per-spec confidence it was computed at.
    """

    family_confidence: float
    per_spec_confidence: float
    bounds: tuple[tuple[str, Bounds], ...]

    @property
    def m(self) -> int:
        """Number of specs in the family."""
        return len(self.bounds)

    def __getitem__(self, name: str) -> Bounds:
        for spec, spec_bounds in self.bounds:
            if spec == name:
                return spec_bounds
        raise KeyError(name)


def simultaneous_bounds(
    counts: Mapping[str, tuple[int, int]], confidence: float = 0.95, sided: str = "two-sided"
) -> SimultaneousBounds:
    """Clopper-Pearson bounds for each spec's (k, n), Bonferroni-split so all hold jointly."""
    if not counts:
        raise ValueError("need at least one spec")
    per_spec = bonferroni_confidence(confidence, len(counts))
    pairs = tuple((name, clopper_pearson(k, n, per_spec, sided)) for name, (k, n) in counts.items())
    return SimultaneousBounds(
        family_confidence=float(confidence), per_spec_confidence=per_spec, bounds=pairs
    )


def holm_adjust(p_values: Sequence[float]) -> tuple[float, ...]:
    """Holm step-down adjusted p-values, in the input order.

    Sorted ascending, the i-th smallest (0-based) p-value is multiplied by (m - i); the running
    maximum keeps the adjusted values monotone, and they are capped at 1. Rejecting where the
    adjusted p-value is <= alpha controls the family-wise error rate at alpha.
    """
    values = [float(p) for p in p_values]
    for p in values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must be in [0, 1], got {p}")
    m = len(values)
    order = sorted(range(m), key=lambda i: values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[index]))
        adjusted[index] = running
    return tuple(adjusted)
