"""Nodes and facts of a large KG held as integer codes, so that de-duplicating and reversing
millions of facts is numpy work on int64 keys rather than sets of Python tuples."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclass
class NodeBook:
    """Nodes in order of first appearance; a node's code is its position. The first
    appearance of an id wins."""

    code: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    source_ids: list[str] = field(default_factory=list)

    def add(self, node_id: str, node_type: str, name: str, source: str, source_id: str) -> int:
        code = self.code.get(node_id)
        if code is None:
            code = self.code[node_id] = len(self.ids)
            self.ids.append(node_id)
            self.types.append(node_type)
            self.names.append(name)
            self.sources.append(source)
            self.source_ids.append(source_id)
        return code

    def __contains__(self, node_id: str) -> bool:
        return node_id in self.code

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class Codes:
    """Strings numbered in order of first appearance."""

    code: dict[str, int] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)

    def of(self, name: str) -> int:
        code = self.code.get(name)
        if code is None:
            code = self.code[name] = len(self.names)
            self.names.append(name)
        return code

    def of_all(self, names: list[str]) -> np.ndarray:
        import numpy as np

        return np.fromiter((self.of(n) for n in names), dtype=np.int64, count=len(names))


@dataclass
class DirectedFacts:
    """Facts (source, relation, display, target) de-duplicated, each stored both ways."""

    sources: np.ndarray
    relations: np.ndarray
    displays: np.ndarray
    targets: np.ndarray
    facts: int  # distinct facts before adding the reverse direction


@dataclass
class FactCodes:
    """Facts as parallel integer columns: node codes and relation and display codes."""

    relations: Codes = field(default_factory=Codes)
    displays: Codes = field(default_factory=Codes)
    _blocks: list[np.ndarray] = field(default_factory=list)  # each 4 x n, int32
    _loose: list[tuple[int, int, int, int]] = field(default_factory=list)

    def add_block(self, sources: Any, relations: Any, displays: Any, targets: Any) -> None:
        import numpy as np

        # int32 halves what a row costs until directed() (codes stay far below 2**31).
        self._blocks.append(np.stack([sources, relations, displays, targets]).astype(np.int32))

    def add(self, source: int, relation: str, display: str, target: int) -> None:
        self._loose.append((source, self.relations.of(relation), self.displays.of(display),
                            target))

    def directed(self, nodes: int) -> DirectedFacts:
        """Every distinct fact and its reverse, once each (in no particular order)."""
        import numpy as np

        blocks = self._blocks + ([np.array(self._loose, dtype=np.int32).T] if self._loose
                                 else [])
        self._blocks, self._loose = [], []
        if not blocks:
            empty = np.zeros(0, dtype=np.int64)
            return DirectedFacts(empty, empty, empty, empty, 0)
        x, rel, disp, y = np.concatenate(blocks, axis=1).astype(np.int64)
        # (relation, display) pairs are few: one code each keeps the packed key small.
        pairs, pair = dense_codes(rel * len(self.displays.names) + disp)
        width = max(nodes, 1)
        if width * width * max(len(pairs), 1) < 2**62:
            facts = distinct((x * len(pairs) + pair) * width + y)
            both = distinct(np.concatenate([facts, (y * len(pairs) + pair) * width + x]))
            rest, target = np.divmod(both, width)
            source, pair = np.divmod(rest, len(pairs))
            count = len(facts)
        else:  # too many nodes to pack a fact in 63 bits: sort rows instead (slow)
            facts2 = np.unique(np.stack([x, pair, y], axis=1), axis=0)
            both2 = np.unique(np.concatenate([facts2, facts2[:, ::-1]]), axis=0)
            source, pair, target = both2.T
            count = len(facts2)
        rel_of_pair, disp_of_pair = np.divmod(pairs, len(self.displays.names))
        return DirectedFacts(source, rel_of_pair[pair], disp_of_pair[pair], target, count)


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values (non-negative integers), sorted: counted where their range is
    small, else sorted (np.unique took a minute on 8M int64 keys where a sort took a second,
    numpy 2.4)."""
    import numpy as np

    if len(values) and _small(values):
        return np.flatnonzero(np.bincount(values))
    values = np.sort(values)
    if len(values) < 2:
        return values
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct values sorted, each value's position among them), for non-negative
    integers."""
    import numpy as np

    if not len(values) or not _small(values):
        found = distinct(values)
        return found, np.searchsorted(found, values)
    present = np.bincount(values) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _small(values: np.ndarray) -> bool:
    return int(values.max()) <= 4 * len(values) + 2**20
