"""Items gathered into lists of a fixed size, the last one shorter (itertools.batched, which
gives tuples, is Python 3.12+; the project supports older)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def in_parts(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of `size` items in order (the last may be shorter; none is empty). A list is
    the caller's once yielded: a fresh one is started for the next part."""
    if size < 1:
        raise ValueError(f"part size must be positive, got {size}")
    part: list[T] = []
    for item in items:
        part.append(item)
        if len(part) >= size:
            yield part
            part = []
    if part:
        yield part
