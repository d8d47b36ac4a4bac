"""How long a fact's template sentence is, from the snapshot's arrays, without writing it.

A hub prompt offers hundreds of filler edges once the budget is nearly full; most of their
sentences would not fit, and writing each only to drop it was most of a prompt's time. A
template whose only fields are plain `{source}` and `{target}` gives a sentence of length
`base + n_source * len(source name) + n_target * len(target name)` (`base`: the template
filled with empty names), and the generic sentence likewise with the relation's name. Any
other template gives -1 (unknown: written to be measured, as before).
"""

from __future__ import annotations

import string
import weakref
from functools import cached_property

import numpy as np

from kgcert.graphview.relations import RelationLookup
from kgcert.graphview.rows import FactRows, RowIndex
from kgcert.graphview.sentences import GENERIC_TEMPLATE

Shape = tuple[int, int, int]  # base length, {source} fields, {target} fields
UNKNOWN: Shape = (-1, 0, 0)
NOT_YET = -2  # a dense shape table's base length before its kind of edge was met
DENSE_KINDS = 1 << 20  # kinds of edge (type x labels x labels x displays) for a dense table


def template_shape(template: str) -> Shape | None:
    """The shape of `template` filled with source and target; None when it does not fill
    (`PromptGraph` then writes the generic sentence); UNKNOWN for fields that are not plain."""
    try:
        base = len(template.format(source="", target=""))
    except (KeyError, IndexError, ValueError):
        return None
    counts = {"source": 0, "target": 0}
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return UNKNOWN
    for _, field, spec, conversion in fields:
        if field is None:
            continue
        if field not in counts or spec or conversion is not None:
            return UNKNOWN
        counts[field] += 1
    return (base, counts["source"], counts["target"])


class SentenceLengths:
    """Per row of a FactRows: the length of the sentence `PromptGraph.sentences` writes for
    it, or -1 when that is not known without writing it. Kept per FactRows."""

    def __init__(self, graph: RelationLookup, index: RowIndex, line_overhead: int) -> None:
        self.graph, self.index = graph, index
        self.line_overhead = line_overhead  # a context line's characters beside its sentence
        snapshot = index.snapshot
        self.name_length = np.array(
            [len(name if name is not None else entity)
             for name, entity in zip(snapshot.names, snapshot.id_list, strict=True)],
            dtype=np.int64)
        self._shapes: dict[int, Shape] = {}
        # A hub prompt measures the rows of some 300 entities: looking their kinds of edge up
        # in a table costs a gather where np.unique cost a sort per entity.
        kinds = (len(snapshot.types) * len(index.labels) ** 2 * (len(snapshot.displays) + 1))
        self._table: np.ndarray | None = None
        if kinds <= DENSE_KINDS:
            self._table = np.zeros((kinds, 3), dtype=np.int64)
            self._table[:, 0] = NOT_YET
        self._kept: weakref.WeakKeyDictionary[FactRows, np.ndarray] = (
            weakref.WeakKeyDictionary())
        self._costs: weakref.WeakKeyDictionary[FactRows, np.ndarray] = (
            weakref.WeakKeyDictionary())

    def of(self, rows: FactRows) -> np.ndarray:
        found = self._kept.get(rows)
        if found is None:
            found = self._kept[rows] = self._lengths(rows)
        return found

    def line_costs(self, rows: FactRows) -> np.ndarray:
        """Per row: what its context line costs in characters (the sentence and the layout's
        `line_overhead`), -1 when not known; kept."""
        if rows.edges is not None and self.per_edge:
            return self.edge_costs(rows.edges)
        found = self._costs.get(rows)
        if found is None:
            lengths = self.of(rows)
            found = self._costs[rows] = np.where(lengths < 0, -1, lengths + self.line_overhead)
        return found

    def edge_costs(self, edges: np.ndarray) -> np.ndarray:
        """`line_costs` of snapshot edges by position (with a dense table of kinds only)."""
        return self._edge_costs[edges]

    def prepare(self) -> None:
        """Every snapshot edge's line cost, when `edge_costs` may be asked: worked out when the
        graph is prepared rather than by the first prompt."""
        if self.per_edge:
            self._edge_costs  # noqa: B018 (a cached property)

    @property
    def per_edge(self) -> bool:
        """Whether `edge_costs` may be asked."""
        return self._table is not None

    @cached_property
    def _edge_costs(self) -> np.ndarray:
        """Every snapshot edge's line cost, worked out once: a hub prompt measures the rows of
        some 300 entities, each a gather from this rather than a pass of its own."""
        snapshot = self.index.snapshot
        lengths = self._lengths(FactRows(self.index, snapshot.source, snapshot.type,
                                         snapshot.target, snapshot.display))
        return np.where(lengths < 0, -1, lengths + self.line_overhead)

    def _lengths(self, rows: FactRows) -> np.ndarray:
        index = self.index
        labels, displays = len(index.labels), len(index.snapshot.displays) + 1
        combo = ((rows.type.astype(np.int64) * labels + index.label_code[rows.source])
                 * labels + index.label_code[rows.target]) * displays + rows.display + 1
        table = self._table
        if table is not None:
            shapes = table[combo]
            unseen = shapes[:, 0] == NOT_YET
            if unseen.any():
                for c in np.unique(combo[unseen]).tolist():
                    table[c] = self._shape(c)
                shapes = table[combo]
        else:
            combos, inverse = np.unique(combo, return_inverse=True)
            shapes = np.array([self._shape(int(c)) for c in combos.tolist()],
                              dtype=np.int64).reshape(-1, 3)[inverse.reshape(-1)]
        lengths = (shapes[:, 0] + shapes[:, 1] * self.name_length[rows.source]
                   + shapes[:, 2] * self.name_length[rows.target])
        return np.where(shapes[:, 0] < 0, -1, lengths)

    def _shape(self, combo: int) -> Shape:
        found = self._shapes.get(combo)
        if found is None:
            found = self._shapes[combo] = self._shape_of(combo)
        return found

    def _shape_of(self, combo: int) -> Shape:
        index = self.index
        labels, displays = len(index.labels), len(index.snapshot.displays) + 1
        combo, display = divmod(combo, displays)
        combo, target = divmod(combo, labels)
        type_code, source = divmod(combo, labels)
        rel_type = index.snapshot.types[type_code]
        rel = self.graph.relation_between(
            rel_type, index.labels[source], index.labels[target],
            None if display == 0 else index.snapshot.displays[display - 1])
        if rel is not None and rel.template:
            shape = template_shape(rel.template)
            if shape is not None:
                return shape
        relation = rel.name if rel is not None else rel_type
        return (len(GENERIC_TEMPLATE.format(source="", target="", relation=relation)), 1, 1)
