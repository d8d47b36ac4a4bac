"""Numbers as the report and the terminal show them: three decimals, and more where three
would make a bound read as equal to the level it is compared with (a lower bound of 0.2502
shown as 0.250 beside "above chance 0.250" reads as a contradiction)."""

from __future__ import annotations

from collections.abc import Iterable

MAX_DIGITS = 6


def bound_text(value: float, against: Iterable[float | None] = (), digits: int = 3) -> str:
    """`value` at `digits` decimals, or at the fewest more (up to MAX_DIGITS) that tell it
    apart from every level in `against` it differs from."""
    levels = [float(level) for level in against if level is not None and level != value]
    for shown in range(digits, MAX_DIGITS + 1):
        if all(round(value, shown) != round(level, shown) for level in levels):
            return f"{value:.{shown}f}"
    return f"{value:.{MAX_DIGITS}f}"


def interval_text(lower: float, upper: float, against: Iterable[float | None] = ()) -> str:
    """`[0.2502, 0.412]`: each end at the precision bound_text gives it."""
    levels = list(against)
    return f"[{bound_text(lower, levels)}, {bound_text(upper, levels)}]"


def level_text(level: float) -> str:
    """A chance level or threshold: as few decimals as say it exactly, at most four."""
    return f"{level:.4f}".rstrip("0").rstrip(".") if level % 1 else f"{level:.0f}"
