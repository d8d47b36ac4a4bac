"""rows_json_safe answers as the library's value-by-value rule (json_bulk_scalar_ok) does."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("arcadedb_embedded")

from arcadedb_embedded.type_conversion import json_bulk_scalar_ok  # noqa: E402

from kgcert.store.json_rows import rows_json_safe  # noqa: E402


def _by_value(rows: list[Any], reserved: tuple[str, ...]) -> bool:
    """The rule asked one value at a time, as the writer used to."""
    def safe(value: Any) -> bool:
        if type(value) is list:
            return all(json_bulk_scalar_ok(item) for item in value)
        return bool(json_bulk_scalar_ok(value))

    return all(type(key) is str and key not in reserved and safe(value)
               for row in rows for key, value in row.items())


class Text(str):
    pass


GOOD = {"id": "Q1", "name": "Zoë", "aliases": ["a", "b"], "n": 3, "x": 1.5, "f": True,
        "none": None, "empty": [], "big": 2**63 - 1, "small": -(2**63)}
ODD_VALUES = [
    "\ud800", "ok \udfff", "\ud83d\ude00", ["fine", "\ud800"], 2**63, -(2**63) - 1, [2**64],
    float("nan"), float("inf"), [float("-inf")], [["nested"]], {"a": 1}, (1, 2), b"bytes",
    Text("a str subclass"), [Text("in a list")], object(),
]


@pytest.mark.parametrize("odd", ODD_VALUES, ids=repr)
def test_an_odd_value_anywhere_gets_the_librarys_answer(odd: Any) -> None:
    rows = [dict(GOOD), dict(GOOD, extra=odd), {"id": "Q2"}]
    assert rows_json_safe(rows) == _by_value(rows, ())


def test_plain_rows_keys_and_reserved_names() -> None:
    rows = [dict(GOOD) for _ in range(5)] + [{}]
    assert rows_json_safe(rows) is True
    assert rows_json_safe([]) is True
    assert rows_json_safe(rows + [{1: "a non-str key"}]) is False
    assert rows_json_safe(rows + [{"_src": "x"}], ("_src", "_dst")) is False
    assert rows_json_safe([{"sentences": ["Only strings here.", "Ünïcode too."]}] * 3) is True
