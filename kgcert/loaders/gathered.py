"""Rows that arrive one at a time (a row reader's) gathered into Arrow columns a part at a time,
so that a loader keeps a few bytes per row rather than a Python dict per row (columnar.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

GATHER_PART = 100_000  # rows held as Python values before they become Arrow arrays


class Gathered:
    """String columns; a row may lack a column (null there). Columns come in the order
    they are first met."""

    def __init__(self) -> None:
        self.count = 0
        self._parts: list[tuple[int, dict[str, pa.Array]]] = []  # (rows, columns)
        self._rows: list[Mapping[str, Any]] = []
        self._names: dict[str, None] = {}

    def add(self, row: Mapping[str, Any]) -> None:
        self._rows.append(row)
        for name in row:
            if name not in self._names:
                self._names[name] = None
        self.count += 1
        if len(self._rows) >= GATHER_PART:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        rows, self._rows = self._rows, []
        if rows:
            self._parts.append((len(rows), {
                name: pa.array([row.get(name) for row in rows], pa.string())
                for name in self._names}))

    def columns(self) -> dict[str, pa.Array]:
        """Every column over every row (a part without a column holds nulls there); the
        rows gathered are let go."""
        import pyarrow as pa

        self._flush()
        parts, self._parts = self._parts, []
        return {name: pa.concat_arrays([
            part.get(name, pa.nulls(count, pa.string())) for count, part in parts])
            if parts else pa.array([], pa.string()) for name in self._names}

    def column(self, name: str) -> pa.Array:
        """One column over every row (the rows gathered are let go)."""
        return self.columns()[name]
