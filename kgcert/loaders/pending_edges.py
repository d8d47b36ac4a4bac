"""PrimeKG edges whose endpoints a node file names (nodes.csv + edges.csv, neo4j-admin exports),
held as Arrow columns until every node is read, then coded and checked a part at a time.

The release's edges.csv has 8.1M rows: one Python tuple each (as before) cost more than the
whole parsed KG. A part is PENDING_PART rows: its line numbers (for the problems an absent
endpoint makes) and its four string columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcert.errors import InputError
from kgcert.loaders.factcodes import FactCodes, NodeBook
from kgcert.store.kg_data import Problems
from kgcert.util.parts import in_parts

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

PENDING_PART = 100_000
Fact = tuple[str, str, str, str]  # (source id, relation, display relation, target id)


@dataclass
class PendingEdges:
    path: Path
    lines: np.ndarray
    sources: pa.Array
    relations: pa.Array
    displays: pa.Array
    targets: pa.Array


def pending_edges(path: Path, rows: Iterable[tuple[int, Fact]]) -> Iterator[PendingEdges]:
    """The rows (line number, fact) gathered into parts of PENDING_PART."""
    for part in in_parts(rows, PENDING_PART):
        yield _part(path, part)


def _part(path: Path, rows: list[tuple[int, Fact]]) -> PendingEdges:
    import numpy as np
    import pyarrow as pa

    lines = np.fromiter((line for line, _ in rows), dtype=np.int64, count=len(rows))
    columns = [pa.array([fact[i] for _, fact in rows], pa.string()) for i in range(4)]
    return PendingEdges(path, lines, *columns)


def node_ids(nodes: NodeBook) -> Any:
    import pyarrow as pa

    return pa.array(nodes.ids, pa.string())


def add_pending(part: PendingEdges, known: pa.Array, facts: FactCodes, problems: Problems,
                strict: bool) -> int:
    """Add a part's facts whose endpoints are both nodes (node code = position in `known`);
    each other row is a problem (or, strict, the end). Returns the facts added."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    sources = pc.index_in(part.sources, value_set=known)
    targets = pc.index_in(part.targets, value_set=known)
    absent = pc.or_(sources.is_null(), targets.is_null()).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(absent)
    shown = min(len(bad), 1 if strict else max(0, 5 - len(problems.examples)))
    for at in bad[:shown].tolist():  # the rest are only counted
        missing = part.sources[at] if not sources[at].is_valid else part.targets[at]
        where = (f"{part.path.name}:{int(part.lines[at])} (endpoint {missing.as_py()} not in "
                 "the node file)")
        if strict:
            raise InputError(f"{where}: edge endpoint absent from the node file")
        problems.add(where)
    problems.count += len(bad) - shown
    good = np.flatnonzero(~absent)
    if not len(good):
        return 0
    keep = pa.array(good)
    coded = []
    for column, codes in ((part.relations, facts.relations), (part.displays, facts.displays)):
        values = column.take(keep)
        kinds = pc.unique(values)
        coded.append(codes.of_all(kinds.to_pylist())[
            pc.index_in(values, value_set=kinds).to_numpy()])
    facts.add_block(sources.take(keep).to_numpy(), coded[0], coded[1],
                    targets.take(keep).to_numpy())
    return len(good)
