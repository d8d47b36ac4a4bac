"""A snapshot's per-entity texts (names, aliases) kept as the UTF-8 bytes they are stored as.

At full Wikidata5m size a tuple of Python strings per entity (and a tuple of them per entity's
aliases) held about a gigabyte in the process that runs specs; the same texts as one UTF-8
buffer with an offset per entity take a fraction of it. An item is decoded when asked for:
a run asks for the few hundred entities each prompt shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

import numpy as np

T = TypeVar("T")
NAME_SEP, ALIAS_SEP = 0, 1  # byte values: "\x00" between entities, "\x01" between aliases


class _Packed(Sequence):
    """Items of a "\\x00"-joined UTF-8 buffer (as the snapshot file stores them), by offset."""

    def __init__(self, utf8: np.ndarray, count: int) -> None:
        self._data = utf8  # uint8, the file's array itself: no copy
        ends = np.flatnonzero(utf8 == NAME_SEP)
        if len(ends) + 1 != count:
            raise ValueError(f"{len(ends) + 1} packed texts where {count} were expected")
        self._starts = np.concatenate([[0], ends + 1]).astype(np.int64)
        self._ends = np.concatenate([ends, [len(utf8)]]).astype(np.int64)
        # Views of the same memory that index to Python ints and slice to bytes without a
        # numpy scalar or array per item: a prompt decodes a few dozen names.
        self._bytes, self._start_at, self._end_at = (
            np.ascontiguousarray(utf8).data, self._starts.data, self._ends.data)

    def __len__(self) -> int:
        return len(self._starts)

    def _text(self, at: int) -> str:
        return str(self._bytes[self._start_at[at]:self._end_at[at]], "utf-8", "surrogatepass")

    def _item(self, at: int) -> object:
        raise NotImplementedError

    @overload
    def __getitem__(self, at: int) -> object: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[object, ...]: ...

    def __getitem__(self, at: int | slice) -> object:
        if isinstance(at, slice):
            return tuple(self._item(i) for i in range(*at.indices(len(self))))
        at = int(at)
        if at < 0:
            at += len(self)
        if not 0 <= at < len(self):
            raise IndexError(at)
        return self._item(at)

    def __iter__(self) -> Iterator[object]:
        return (self._item(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:  # as the tuple it stands for
        if isinstance(other, (tuple, _Packed)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                           strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class PackedNames(_Packed):
    """Per entity its name, None where it has none (`named` False)."""

    def __init__(self, utf8: np.ndarray, named: np.ndarray) -> None:
        super().__init__(utf8, len(named))
        self._named = np.asarray(named, dtype=bool)
        self._is_named = np.ascontiguousarray(self._named).data  # indexes to a Python bool

    def _item(self, at: int) -> str | None:
        return self._text(at) if self._is_named[at] else None


class PackedAliases(_Packed):
    """Per entity its aliases (a tuple, empty where it has none), stored "\\x01"-joined."""

    def _item(self, at: int) -> tuple[str, ...]:
        text = self._text(at)
        return tuple(text.split("\x01")) if text else ()


def item_getter(texts: Sequence[T]) -> Callable[[int], T]:
    """`texts[at]` for a position known to be in range, without the checks and the overload
    dispatch of `__getitem__` (a prompt looks up a few entities' names and aliases)."""
    return texts._item if isinstance(texts, _Packed) else texts.__getitem__  # type: ignore[return-value]


def names_of(utf8: np.ndarray, named: np.ndarray) -> Sequence[str | None]:
    return PackedNames(utf8, named) if len(named) else ()


def aliases_of(utf8: np.ndarray, count: int) -> Sequence[tuple[str, ...]]:
    return PackedAliases(utf8, count) if count else ()
