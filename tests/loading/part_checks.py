"""Assertions shared by the tests of column-held tables (loaders/columnar.py,
loaders/wikidata5m_tables.py): parts made one at a time rebuild the whole table."""

from __future__ import annotations

from typing import Any

from kgcert.store.kg_data import EdgePart


def check_edge_parts(table: Any, size: int = 5) -> list[EdgePart]:
    """Parts of at most `size` edges whose sources, targets and properties, joined, are the
    table's own; returns the parts for the caller's checks of their endpoints."""
    parts = list(table.parts(size))
    assert all(len(p) <= size for p in parts)
    assert [s for p in parts for s in p.sources] == table.sources
    assert [t for p in parts for t in p.targets] == table.targets
    if table.properties is not None:
        assert [x for p in parts for x in p.properties or ()] == table.properties
    return parts
