"""Nodes and edges held as columns (Arrow strings, numpy codes) until the writer asks for a part.

A loader that parses to integer codes hands the store these tables instead of lists of dicts:
`ColumnNodes` and `ColumnEdges` act as NodeTable and EdgeTable (store/kg_data.py), and their
`parts()` make the Python rows of one part at a time, so a KG's size costs the arrays
themselves (a few bytes per node and edge), never one Python object per node or edge.

Nodes are numbered by code 0..n-1 across the whole KG; `ids` gives each code's id. Edge parts
name their endpoints by id, not by write position: the embedded writer then hands Java the
same RID string object for every edge of a node (its lookup by id); by position, a new string
per edge end, the load's peak at PrimeKG scale 0.2 was 1.54-1.62 GB against 1.28-1.32 GB
(benchmarks/bench_load_memory.py --layout primekg).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kgcert.store import kg_data
from kgcert.store.kg_data import EdgePart

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

FOLD_PART = 65_536  # values folded per pass


class ColumnNodes:
    """Nodes of one label: `columns` (Arrow arrays, one value per node of this table, in
    write order) become each row's keys in their order; a null leaves its key out of the
    row. `codes` are the nodes' codes among all the KG's nodes."""

    def __init__(self, label: str, codes: np.ndarray, columns: Mapping[str, pa.Array]) -> None:
        self.label = label
        self.codes = codes
        self.columns = dict(columns)

    def __len__(self) -> int:
        return len(self.codes)

    def parts(self, size: int | None = None) -> Iterator[list[dict[str, Any]]]:
        size = size or kg_data.NODE_PART  # read when asked: a test makes parts small
        for start in range(0, len(self), size):
            yield self._rows(start, min(size, len(self) - start))

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row at once (exports and tests; a load goes by parts)."""
        return [row for part in self.parts() for row in part]

    def _rows(self, start: int, count: int) -> list[dict[str, Any]]:
        names = list(self.columns)
        values = [self.columns[n].slice(start, count).to_pylist() for n in names]
        nullable = [n for n in names if self.columns[n].null_count]
        rows = [dict(zip(names, row, strict=True)) for row in zip(*values, strict=True)]
        if nullable:
            for row in rows:
                for name in nullable:
                    if row[name] is None:
                        del row[name]
        return rows


class ColumnEdges:
    """Edges of one relationship type: endpoint codes in the order written, the ids of all codes,
    and optionally properties as Arrow columns (one value per edge; a null leaves its key
    out; a column named in `listed` is stored as a one-item list)."""

    def __init__(self, rel_type: str, sources: np.ndarray, targets: np.ndarray, ids: pa.Array,
                 properties: Mapping[str, pa.Array] | None = None,
                 listed: Sequence[str] = ()) -> None:
        self.rel_type = rel_type
        self.source_codes, self.target_codes = _compact(sources), _compact(targets)
        self.ids = ids  # code -> id, for every node of the KG
        self.columns = None if properties is None else dict(properties)
        self.listed = frozenset(listed)

    def __len__(self) -> int:
        return len(self.source_codes)

    def parts(self, size: int | None = None) -> Iterator[EdgePart]:
        size = size or kg_data.EDGE_PART
        for start in range(0, len(self), size):
            yield self._part(start, min(size, len(self) - start))

    def _part(self, start: int, count: int) -> EdgePart:
        return EdgePart(self._ids(self.source_codes[start:start + count]),
                        self._ids(self.target_codes[start:start + count]),
                        self._properties(start, count))

    def _ids(self, codes: np.ndarray) -> list[str]:
        import pyarrow as pa

        return self.ids.take(pa.array(codes)).to_pylist()

    def _properties(self, start: int, count: int) -> list[dict[str, Any]] | None:
        if self.columns is None:
            return None
        names = list(self.columns)
        if not names:  # edges with properties, none of them set
            return [{} for _ in range(count)]
        values = [self.columns[n].slice(start, count).to_pylist() for n in names]
        out: list[dict[str, Any]] = []
        for row in zip(*values, strict=True):
            out.append({n: [v] if n in self.listed else v
                        for n, v in zip(names, row, strict=True) if v is not None})
        return out

    @property
    def sources(self) -> list[str]:
        return self._ids(self.source_codes)

    @property
    def targets(self) -> list[str]:
        return self._ids(self.target_codes)

    @property
    def properties(self) -> list[dict[str, Any]] | None:
        return self._properties(0, len(self))


def _compact(codes: np.ndarray) -> np.ndarray:
    """Node codes in 32 bits where they fit: half what a KG's edges cost while held."""
    import numpy as np

    if codes.dtype != np.int32 and (not len(codes) or int(codes.max()) < 2**31):
        return codes.astype(np.int32)
    return codes


def group_by(codes: np.ndarray, groups: int) -> list[np.ndarray]:
    """For each group 0..groups-1, the positions holding it, in order (a stable sort of
    small integer codes is a radix sort: linear)."""
    import numpy as np

    small = codes.astype(np.uint16 if groups < 2**16 else np.int64)
    order = np.argsort(small, kind="stable")
    bounds = np.searchsorted(small[order], np.arange(groups + 1))
    return [order[bounds[g]:bounds[g + 1]] for g in range(groups)]


def in_first_order(codes: np.ndarray, groups: int) -> list[tuple[int, np.ndarray]]:
    """(group, its positions in order) for each group present, the groups in order of their
    first position."""
    found = [(g, members) for g, members in enumerate(group_by(codes, groups)) if len(members)]
    return sorted(found, key=lambda item: int(item[1][0]))


def node_tables(labels: Iterable[tuple[str, np.ndarray]], columns: dict[str, pa.Array]
                ) -> dict[str, ColumnNodes]:
    import pyarrow as pa

    return {label: ColumnNodes(label, members,
                               {k: v.take(pa.array(members)) for k, v in columns.items()})
            for label, members in labels}


def first_appearances(values: pa.Array) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """(the distinct values in order of first appearance, each value's position among them,
    each distinct value's first index in `values`)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    seen = pc.unique(values)
    local = pc.index_in(values, value_set=seen).to_numpy()
    first = np.full(len(seen), len(local), dtype=np.int64)
    np.minimum.at(first, local, np.arange(len(local)))
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return seen.take(pa.array(order)), rank[local], first[order]


def _python_whitespace() -> str:
    """An RE2 class of every character str.strip() removes (Arrow's trim differs)."""
    spaces = (c for c in map(chr, range(0x3001)) if c.isspace())
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in spaces) + "]"


def stripped(values: pa.Array) -> pa.Array:
    """str.strip() of every value; only the values that start or end with whitespace go
    through Python."""
    import pyarrow as pa
    import pyarrow.compute as pc

    space = _python_whitespace()
    padded = pc.match_substring_regex(values, f"^{space}|{space}$")
    if not pc.any(padded).as_py():
        return values
    fixed = [v.strip() for v in values.filter(padded).to_pylist()]
    return pc.replace_with_mask(values, padded, pa.array(fixed, pa.string()))


def folded(values: pa.Array, fold: Callable[[str], str]) -> pa.Array:
    """`fold` (ASCII folding) of every value that is not ASCII already (folding leaves
    ASCII as it is)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(values) > FOLD_PART:  # the Python strings of one part at a time
        return pa.concat_arrays([folded(values.slice(start, FOLD_PART), fold)
                                 for start in range(0, len(values), FOLD_PART)])
    other = pc.invert(pc.string_is_ascii(values))
    if not pc.any(other).as_py():
        return values
    fixed = [fold(v) for v in values.filter(other).to_pylist()]
    return pc.replace_with_mask(values, other, pa.array(fixed, pa.string()))
