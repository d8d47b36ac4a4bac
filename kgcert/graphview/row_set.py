"""What a neighbour grouping reads of the snapshot rows it groups.

rows.py groups its rows with neighbours.py, and neighbours.py reads those rows back: the
protocol both sides name lives here, so neither of those modules imports the other.
`rows.FactRows` is the one implementation.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from kgcert.graphview.fact import Fact
from kgcert.graphview.snapshot import GraphSnapshot


class SnapshotOwner(Protocol):
    """Whatever the rows share that knows their snapshot (`rows.RowIndex`)."""

    @property
    def snapshot(self) -> GraphSnapshot: ...


class SnapshotRows(Protocol):
    """Edges of one snapshot as array rows, read as facts."""

    @property
    def shared(self) -> SnapshotOwner: ...

    def where(self, rows: np.ndarray) -> SnapshotRows:
        """The rows picked by a mask or by positions, in order."""
        ...

    def all(self) -> tuple[Fact, ...]:
        """Every row's fact, in row order."""
        ...
