"""Argument checks shared by the stats modules.

Every public function validates its inputs with these, so a bad count or level fails loudly
with the same message everywhere instead of producing a NaN bound deep inside scipy.
"""

from __future__ import annotations

import math
import operator
from typing import Literal

Sided = Literal["two-sided", "lower", "upper"]
SIDES: tuple[Sided, ...] = ("two-sided", "lower", "upper")


def as_count(value: object, name: str) -> int:
    """Return ``value`` as a non-negative int; numpy integers are accepted, floats and bools not.

    Bools are refused because ``True`` as a count is almost always a caller passing an outcome
    where a tally was meant.
    """
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer count, got a bool")
    try:
        count = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an integer count, got {value!r}") from None
    if count < 0:
        raise ValueError(f"{name} must be >= 0, got {count}")
    return count


def check_level(value: float, name: str) -> float:
    """Return ``value`` as a float strictly inside (0, 1) (a confidence, delta or alpha)."""
    level = float(value)
    if not (0.0 < level < 1.0) or math.isnan(level):
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}")
    return level


def check_sided(value: str) -> Sided:
    """Return ``value`` if it names a supported side, else raise."""
    for side in SIDES:
        if value == side:
            return side
    raise ValueError(f"sided must be one of {SIDES}, got {value!r}")
