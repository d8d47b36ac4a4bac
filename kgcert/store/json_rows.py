"""Whether rows can cross into the embedded server as one JSON string and arrive unchanged.

The library's JSON bulk paths change some values on the way (an integer beyond 64 bits, NaN,
a lone surrogate, a key that is not a string), so a row holding one must take its per-value
path. Asking that value by value (`json_bulk_scalar_ok`) was a third of the Python time of a
Wikidata5m load's writes: about 3 µs a value, millions of values. Here the values are
grouped by type with C-level passes (map, chain, join), and only each type's own rule runs:
strings are joined and encoded once (a lone surrogate anywhere fails the encoding), integers
are bounded by their min and max, floats by `math.isfinite`. A value of any other type is
asked the library's way, so the answer is the library's rule for every row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain
from typing import Any

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def rows_json_safe(rows: Sequence[dict[str, Any]], reserved: tuple[str, ...] = ()) -> bool:
    """True when every key is a string outside `reserved` and every value is a scalar JSON
    carries unchanged or a list of such scalars."""
    if not rows:
        return True
    if set(map(type, rows)) != {dict}:
        return all(_row_safe(row, reserved) for row in rows)
    keys = set(chain.from_iterable(rows))
    if any(type(key) is not str or key in reserved for key in keys):
        return False
    values = list(chain.from_iterable(map(dict.values, rows)))
    if list not in set(map(type, values)):
        return scalars_json_safe(values)
    lists = [value for value in values if type(value) is list]
    plain = [value for value in values if type(value) is not list]
    return scalars_json_safe(plain) and scalars_json_safe(list(chain.from_iterable(lists)))


def scalars_json_safe(values: Sequence[Any]) -> bool:
    """`json_bulk_scalar_ok` of every value, by type (a list is not a scalar: False)."""
    kinds = set(map(type, values))
    if not kinds <= _PLAIN_SCALARS:
        from arcadedb_embedded.type_conversion import json_bulk_scalar_ok

        return all(map(json_bulk_scalar_ok, values))
    if str in kinds:
        text = "".join(values if len(kinds) == 1 else
                       [value for value in values if type(value) is str])
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a surrogate code point, paired or not
                return False
    if int in kinds:
        ints = [value for value in values if type(value) is int]
        if min(ints) < _INT64_MIN or max(ints) > _INT64_MAX:
            return False
    if float in kinds:
        return all(map(math.isfinite, [value for value in values if type(value) is float]))
    return True


def _row_safe(row: Any, reserved: tuple[str, ...]) -> bool:
    """One row as the library asks it (rows of unusual types)."""
    from arcadedb_embedded.type_conversion import json_bulk_scalar_ok

    for key, value in row.items():
        if type(key) is not str or key in reserved:
            return False
        if type(value) is list:
            if not all(map(json_bulk_scalar_ok, value)):
                return False
        elif not json_bulk_scalar_ok(value):
            return False
    return True
