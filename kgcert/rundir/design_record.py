"""One design of a run as design.json records it (read and written by `RunDir`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DesignEntry:
    """One design of a run: its hash, the per-certificate confidence it was run at, its n
    and why it began (the run's start, or `--new-design`)."""

    hash: str
    confidence: float
    n: int
    sequential: bool
    extendable: bool
    reason: str
    started_at: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
