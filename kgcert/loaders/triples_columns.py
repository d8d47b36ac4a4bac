"""A triples file read block by block into integer codes and Arrow columns (triples.py).

Each block of rows (a pyarrow Table of the mapped columns) is coded where it stands: its
distinct entity ids in the order a row-by-row reader meets them (head before tail, row by
row), each row's head and tail as positions among those, relations and types as small
codes. Only when every block is read are the blocks' ids joined into one numbering, so
no Python object is ever made per triple or per entity; the result is a KG of
`ColumnNodes` and `ColumnEdges` (columnar.py) that makes its rows one part at a time.

It keeps what the row reader kept: an entity's name is the one on the row where it first
appears (empty: its id), its type the first non-empty one, the first of exact duplicate
triples with its sentence; nodes, tables and relations come in order of first appearance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgcert.loaders.columnar import first_appearances, folded, stripped
from kgcert.loaders.factcodes import Codes

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa


@dataclass
class Block:
    """One block's entities and triples, coded within the block."""

    ids: pa.Array  # distinct entity ids, in order of first appearance
    names: pa.Array | None  # the name on each id's first appearance ("" where none)
    heads: np.ndarray  # positions in `ids`
    tails: np.ndarray
    relations: np.ndarray  # codes in TripleColumns.relations
    typed_node: np.ndarray  # the entity (position in `ids`) of each appearance giving a type
    typed_as: np.ndarray  # ... and the type code, in order of appearance
    sentences: pa.Array | None  # each row's sentence, folded


@dataclass
class Coded:
    """Every block joined: entities numbered over the whole file set, duplicates dropped."""

    ids: pa.Array  # code -> id
    names: pa.Array  # code -> raw name of the first appearance ("" where none)
    kind: np.ndarray  # code -> type code, -1 where no row gives one
    conflicts: int  # appearances that give an entity a type other than its first
    heads: np.ndarray  # distinct triples in order of first appearance
    relations: np.ndarray
    tails: np.ndarray
    sentences: pa.Array | None  # folded sentence of each kept triple
    duplicates: int


@dataclass
class TripleColumns:
    """The blocks read so far, and the codes of relations and types across them."""

    fold: Callable[[str], str]
    relations: Codes = field(default_factory=Codes)
    types: Codes = field(default_factory=Codes)
    blocks: list[Block] = field(default_factory=list)

    def add(self, table: Any, roles: dict[str, str]) -> None:
        """A block: a pyarrow Table whose columns include those mapped in `roles`."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        count = table.num_rows
        if not count:
            return

        def column(role: str) -> pa.Array:
            return stripped(table[roles[role]].combine_chunks())

        both = pa.concat_arrays([column("head"), column("tail")])
        # Appearance 2i is row i's head, 2i + 1 its tail: the order a row reader meets them.
        appearance = np.empty(2 * count, dtype=np.int64)
        appearance[0::2], appearance[1::2] = np.arange(count), np.arange(count) + count
        ids_seen = both.take(pa.array(appearance))
        ids, local, first = first_appearances(ids_seen)
        names = None
        if "head_name" in roles or "tail_name" in roles:
            named = pa.concat_arrays([_or_empty(table, roles, "head_name", count),
                                      _or_empty(table, roles, "tail_name", count)])
            names = named.take(pa.array(appearance[first]))
        typed_node, typed_as = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        if "head_type" in roles or "tail_type" in roles:
            kinds = pa.concat_arrays([_or_empty(table, roles, "head_type", count),
                                      _or_empty(table, roles, "tail_type", count)]
                                     ).take(pa.array(appearance))
            typed_at = np.flatnonzero(pc.not_equal(kinds, "").to_numpy(zero_copy_only=False))
            given = kinds.take(pa.array(typed_at))
            distinct = pc.unique(given)
            typed_as = self.types.of_all(distinct.to_pylist())[
                pc.index_in(given, value_set=distinct).to_numpy()]
            typed_node = local[typed_at]
        relation = column("relation")
        distinct_relations = pc.unique(relation)
        relations = self.relations.of_all(distinct_relations.to_pylist())[
            pc.index_in(relation, value_set=distinct_relations).to_numpy()]
        sentences = None
        if "sentence" in roles:
            sentences = folded(column("sentence"), self.fold)
        self.blocks.append(Block(ids, names, local[0::2].astype(np.int32),
                                 local[1::2].astype(np.int32), relations.astype(np.int32),
                                 typed_node, typed_as, sentences))

    def coded(self) -> Coded:
        """The blocks joined into one numbering (the blocks are let go)."""
        import numpy as np
        import pyarrow as pa

        blocks, self.blocks = self.blocks, []
        every = pa.concat_arrays([b.ids for b in blocks]) if blocks else pa.array([], pa.string())
        ids, code_of, first = first_appearances(every)
        starts = np.cumsum([0] + [len(b.ids) for b in blocks])
        names = pa.array([""] * len(ids), pa.string())
        if any(b.names is not None for b in blocks):
            every_name = pa.concat_arrays([
                b.names if b.names is not None else pa.array([""] * len(b.ids), pa.string())
                for b in blocks])
            names = every_name.take(pa.array(first))
        heads, tails, relations, typed_node, typed_as = [], [], [], [], []
        for block, start in zip(blocks, starts.tolist(), strict=False):
            codes = code_of[start:start + len(block.ids)]
            heads.append(codes[block.heads])
            tails.append(codes[block.tails])
            relations.append(block.relations)
            typed_node.append(codes[block.typed_node])
            typed_as.append(block.typed_as)
        kind, conflicts = _first_types(np.concatenate(typed_node or [np.zeros(0, np.int64)]),
                                       np.concatenate(typed_as or [np.zeros(0, np.int64)]),
                                       len(ids))
        h, r, t = (np.concatenate(parts) if parts else np.zeros(0, np.int64)
                   for parts in (heads, relations, tails))
        kept = first_of_each(h, r, t)
        sentences = None
        if any(b.sentences is not None for b in blocks):
            sentences = pa.chunked_array([b.sentences for b in blocks], pa.string()
                                         ).take(pa.array(kept)).combine_chunks()
        return Coded(ids, names, kind, conflicts, h[kept], r[kept], t[kept], sentences,
                     len(h) - len(kept))


def _or_empty(table: Any, roles: dict[str, str], role: str, count: int) -> pa.Array:
    import pyarrow as pa

    if role not in roles:
        return pa.array([""] * count, pa.string())
    return stripped(table[roles[role]].combine_chunks())


def _first_types(nodes: np.ndarray, kinds: np.ndarray, count: int) -> tuple[np.ndarray, int]:
    """Each entity's first type (-1: none) from its typed appearances in order, and how
    many appearances give another type."""
    import numpy as np

    kind = np.full(count, -1, dtype=np.int64)
    if not len(nodes):
        return kind, 0
    first = np.full(count, len(nodes), dtype=np.int64)
    np.minimum.at(first, nodes, np.arange(len(nodes)))
    has = first < len(nodes)
    kind[has] = kinds[first[has]]
    return kind, int(np.count_nonzero(kinds != kind[nodes]))


def first_of_each(heads: np.ndarray, relations: np.ndarray, tails: np.ndarray) -> np.ndarray:
    """Positions of the first appearance of each distinct (head, relation, tail), in order."""
    import numpy as np

    if not len(heads):
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((tails, relations, heads))  # stable: equal triples keep file order
    h, r, t = heads[order], relations[order], tails[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (h[1:] != h[:-1]) | (r[1:] != r[:-1]) | (t[1:] != t[:-1])
    return np.sort(order[starts])
