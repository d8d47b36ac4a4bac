"""in_parts: the fixed-size parts the loaders gather rows into (pending_edges.py,
wikidata5m_columns.py)."""

from __future__ import annotations

import pytest

from kgcert.util.parts import in_parts


def test_parts_keep_order_and_size_the_last_shorter() -> None:
    assert list(in_parts(range(7), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(in_parts(range(6), 3)) == [[0, 1, 2], [3, 4, 5]]  # no empty last part
    assert list(in_parts([], 3)) == []
    assert list(in_parts(iter("ab"), 1)) == [["a"], ["b"]]


def test_each_part_is_a_fresh_list_the_caller_may_clear() -> None:
    parts = in_parts(range(4), 2)
    first = next(parts)
    first.clear()  # the Wikidata5m reader clears a block once it is turned into columns
    assert next(parts) == [2, 3]


def test_a_part_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        list(in_parts(range(3), 0))
