"""Exact IID sampling of a relation-centric spec: uniform over the injective matches of its
reference DAG (every assignment of distinct entities to the pattern's variables that has all
of the pattern's edges and none of its `absent` edges).

How it stays exact. Take a spanning tree of the pattern (all of it when the pattern is a
tree). Tree-shaped assignments that ignore injectivity ("tree homomorphisms") can be counted
per anchor by dynamic programming, W(v, u) = product over v's children c of the sum of W(c, u')
over u's neighbours u' by the edge to c, and drawn uniformly by walking down the tree choosing
each neighbour in proportion to its count. Every match is one such assignment, so drawing a
uniform tree homomorphism and rejecting it unless it is a match gives a uniform match.
When there are few tree homomorphisms (at most `ENUMERATE_LIMIT`) they are enumerated instead,
the matches kept in a table, and a sample is a uniform row: exact too, and immune to low
acceptance. Which of the two is used depends only on the graph and the spec.

Sample i uses only the generator `sample_rng(seed, "<spec hash>/dag", i)`, so it is the same
whatever was drawn before it, in any batch, after any resume.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from kgcert.errors import InputError
from kgcert.specs.compile import CompiledRelationSpec
from kgcert.specs.edge_tables import PairTable, TableCache
from kgcert.specs.model import spec_hash
from kgcert.specs.pattern import PatternEdge
from kgcert.util.rng import sample_rng

ENUMERATE_LIMIT = 2_000_000
EXACT_LIMIT = 2**62
MAX_ATTEMPTS = 1_000_000


@dataclass(frozen=True)
class DagSample:
    """One drawn DAG: the entity id bound to each pattern variable."""

    spec: str
    spec_hash: str
    seed: int
    index: int
    nodes: dict[str, str]
    rejected: int  # draws refused before this one (rejection mode), for the record


@dataclass
class _TreeEdge:
    parent: str
    child: str
    indptr: np.ndarray  # CSR over parent-side entity positions
    neighbours: np.ndarray  # child-side positions
    cumulative: np.ndarray  # running sum of the children's counts, length len(neighbours)+1


@dataclass(frozen=True)
class SpecCount:
    tree_homomorphisms: int
    matches: int | None  # exact when enumerated
    estimated_matches: float
    acceptance: float
    method: str


class RelationSampler:
    def __init__(self, compiled: CompiledRelationSpec, tables: TableCache,
                 enumerate_limit: int = ENUMERATE_LIMIT) -> None:
        self.compiled = compiled
        self.spec_hash = spec_hash(compiled.spec)
        self._stream = f"{self.spec_hash}/dag"
        edge_tables = {edge: tables.pairs(compiled.labels[edge.source], edge.rel_type,
                                          compiled.labels[edge.target])
                       for edge in compiled.edges}
        absent_tables = {edge: tables.pairs(compiled.labels[edge.source], edge.rel_type,
                                            compiled.labels[edge.target])
                         for edge in compiled.absent}
        self.ids = np.unique(np.concatenate(
            [t.ids for t in [*edge_tables.values(), *absent_tables.values()]]))
        size = len(self.ids)
        self._pairs = {edge: self._positions(table) for edge, table in edge_tables.items()}
        self._root = compiled.answer
        # Any spanning tree gives an exact sampler; the one with the fewest tree-shaped
        # candidates rejects least (matches are the same for all), so try each.
        best: tuple[int, list[_TreeEdge], list[PatternEdge], np.ndarray] | None = None
        for kept in _spanning_edge_sets(compiled.edges, len(compiled.labels)):
            tree, closing = self._spanning_tree(kept)
            self._tree_edges = [self._csr(parent, child, edge, size)
                                for parent, child, edge in tree]
            cumulative = self._counts(size)
            if best is None or int(cumulative[-1]) < best[0]:
                best = (int(cumulative[-1]), self._tree_edges, closing, cumulative)
        assert best is not None
        self.tree_homomorphisms, self._tree_edges, self._closing, self._root_cumulative = best
        if self.tree_homomorphisms == 0:
            raise InputError(f"spec {compiled.spec.name} has no matches in this KG")
        self._present = {edge: _keys(*self._pairs[edge], size) for edge in self._closing}
        self._absent = {edge: _keys(*self._positions(table), size)
                        for edge, table in absent_tables.items()}
        self._size = size
        self.table: np.ndarray | None = None
        if self.tree_homomorphisms <= enumerate_limit:
            self.table = self._enumerate()
            if len(self.table) == 0:
                raise InputError(f"spec {compiled.spec.name} has no matches in this KG "
                                 "(every candidate breaks injectivity or a constraint)")

    # -- preparation ------------------------------------------------------------------------

    def _positions(self, table: PairTable) -> tuple[np.ndarray, np.ndarray]:
        remap = np.searchsorted(self.ids, table.ids)
        return remap[table.sources], remap[table.targets]

    def _spanning_tree(self, edges: list[PatternEdge]
                       ) -> tuple[list[tuple[str, str, PatternEdge]], list[PatternEdge]]:
        """The tree over `edges` rooted at the answer, parents first; the pattern's other
        edges close cycles and are checked on each candidate."""
        seen = {self._root}
        queue = deque([self._root])
        tree: list[tuple[str, str, PatternEdge]] = []
        used: set[PatternEdge] = set()
        while queue:
            var = queue.popleft()
            for edge in edges:
                if edge in used or var not in (edge.source, edge.target):
                    continue
                other = edge.target if edge.source == var else edge.source
                if other in seen:
                    continue
                seen.add(other)
                used.add(edge)
                tree.append((var, other, edge))
                queue.append(other)
        return tree, [edge for edge in self.compiled.edges if edge not in used]

    def _csr(self, parent: str, child: str, edge: PatternEdge, size: int) -> _TreeEdge:
        sources, targets = self._pairs[edge]
        forward = edge.source == parent
        parent_side, child_side = (sources, targets) if forward else (targets, sources)
        order = np.argsort(parent_side, kind="stable")
        indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(parent_side, minlength=size), out=indptr[1:])
        return _TreeEdge(parent, child, indptr, child_side[order].astype(np.int64),
                         np.zeros(1, dtype=np.int64))

    def _counts(self, size: int) -> np.ndarray:
        """Fill each tree edge's running sums bottom-up; return the root's running sum."""
        weights: dict[str, np.ndarray] = {}
        approx: dict[str, np.ndarray] = {}
        for tree_edge in reversed(self._tree_edges):  # children before parents
            child = tree_edge.child
            below = weights.get(child, np.ones(size, dtype=np.int64))
            below_f = approx.get(child, np.ones(size, dtype=np.float64))
            values = below[tree_edge.neighbours]
            cumulative = np.zeros(len(values) + 1, dtype=np.int64)
            np.cumsum(values, out=cumulative[1:])
            tree_edge.cumulative = cumulative
            per_parent = cumulative[tree_edge.indptr[1:]] - cumulative[tree_edge.indptr[:-1]]
            cum_f = np.concatenate([[0.0], np.cumsum(below_f[tree_edge.neighbours])])
            if cum_f[-1] >= EXACT_LIMIT:
                raise InputError(f"spec {self.compiled.spec.name}: too many candidate matches "
                                 "to count exactly (over 2^62); add constraints to the pattern")
            per_parent_f = cum_f[tree_edge.indptr[1:]] - cum_f[tree_edge.indptr[:-1]]
            parent = tree_edge.parent
            weights[parent] = weights.get(parent, np.ones(size, dtype=np.int64)) * per_parent
            approx[parent] = approx.get(parent, np.ones(size, dtype=np.float64)) * per_parent_f
            if approx[parent].sum() >= EXACT_LIMIT:
                raise InputError(f"spec {self.compiled.spec.name}: too many candidate matches "
                                 "to count exactly (over 2^62); add constraints to the pattern")
        root = weights[self._root]
        cumulative = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(root, out=cumulative[1:])
        return cumulative

    def _enumerate(self) -> np.ndarray:
        """All matches as rows of entity positions, columns in `self.columns` order."""
        root_weights = np.diff(self._root_cumulative)
        columns = {self._root: np.flatnonzero(root_weights)}
        for tree_edge in self._tree_edges:
            parents = columns[tree_edge.parent]
            starts = tree_edge.indptr[parents]
            counts = tree_edge.indptr[parents + 1] - starts
            repeat = np.repeat(np.arange(len(parents)), counts)
            offsets = np.arange(len(repeat)) - np.repeat(np.cumsum(counts) - counts, counts)
            columns = {var: col[repeat] for var, col in columns.items()}
            columns[tree_edge.child] = tree_edge.neighbours[starts[repeat] + offsets]
        keep = self._accepted(columns)
        order = self.columns
        table = np.stack([columns[var][keep] for var in order], axis=1)
        # Rows sorted by entity ids (positions follow the sorted ids), so the table does not
        # depend on the order in which the server returned the pairs.
        return table[np.lexsort(table.T[::-1])] if len(table) else table

    def answer_candidates(self) -> np.ndarray:
        """Tree-shaped candidates per entity position as the answer (zero off its label)."""
        return np.diff(self._root_cumulative)

    @property
    def columns(self) -> list[str]:
        return list(self.compiled.order)

    # -- sampling ---------------------------------------------------------------------------

    def _tree_draws(self, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
        """`count` independent uniform tree homomorphisms, one column of positions per variable."""
        picks = rng.integers(0, self.tree_homomorphisms, size=count)
        columns = {self._root: np.searchsorted(self._root_cumulative, picks, "right") - 1}
        for tree_edge in self._tree_edges:
            u = columns[tree_edge.parent]
            start, end = tree_edge.indptr[u], tree_edge.indptr[u + 1]
            base = tree_edge.cumulative[start]
            pick = base + rng.integers(0, tree_edge.cumulative[end] - base)
            position = np.searchsorted(tree_edge.cumulative, pick, "right") - 1
            columns[tree_edge.child] = tree_edge.neighbours[position]
        return columns

    def _accepted(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Which rows are matches: injective, with the closing edges, without absent ones."""
        keep = np.ones(len(columns[self._root]), dtype=bool)
        variables = list(columns)
        for i, a in enumerate(variables):
            for b in variables[i + 1:]:
                keep &= columns[a] != columns[b]
        for edge, keys in self._present.items():
            keep &= _contains(keys, columns[edge.source] * self._size + columns[edge.target])
        for edge, keys in self._absent.items():
            keep &= ~_contains(keys, columns[edge.source] * self._size + columns[edge.target])
        return keep

    def draw_positions(self, seed: int, index: int) -> tuple[dict[str, int], int]:
        rng = sample_rng(seed, self._stream, index)
        if self.table is not None:
            row = self.table[int(rng.integers(len(self.table)))]
            return dict(zip(self.columns, (int(x) for x in row), strict=True)), 0
        # Candidates come in batches of a fixed, growing schedule and the first match in draw
        # order is kept: the same law as drawing one candidate at a time.
        drawn, batch = 0, 8
        while drawn < MAX_ATTEMPTS:
            columns = self._tree_draws(rng, batch)
            hits = np.flatnonzero(self._accepted(columns))
            if len(hits):
                row = int(hits[0])
                return {var: int(col[row]) for var, col in columns.items()}, drawn + row
            drawn += batch
            batch = min(batch * 4, 4096)
        raise InputError(f"spec {self.compiled.spec.name}: no match in {MAX_ATTEMPTS:,} draws; "
                         "its matches are too rare among tree-shaped candidates")

    def sample(self, seed: int, index: int) -> DagSample:
        positions, rejected = self.draw_positions(seed, index)
        nodes = {var: str(self.ids[positions[var]]) for var in self.columns}
        return DagSample(self.compiled.spec.name, self.spec_hash, seed, index, nodes, rejected)

    def count(self, probe_draws: int = 2000, seed: int = 0) -> SpecCount:
        if self.table is not None:
            return SpecCount(self.tree_homomorphisms, len(self.table), float(len(self.table)),
                             len(self.table) / self.tree_homomorphisms, "enumerated")
        rng = sample_rng(seed, f"{self.spec_hash}/probe", 0)
        rate = float(self._accepted(self._tree_draws(rng, probe_draws)).mean())
        return SpecCount(self.tree_homomorphisms, None, rate * self.tree_homomorphisms, rate,
                         "rejection (matches estimated from probe draws)")


def _spanning_edge_sets(edges: tuple[PatternEdge, ...], nodes: int) -> list[list[PatternEdge]]:
    """Every set of edges forming a spanning tree of the (small) pattern."""
    found = []
    for kept in combinations(edges, nodes - 1):
        joined: dict[str, str] = {}
        acyclic = True
        for edge in kept:
            a, b = _root(joined, edge.source), _root(joined, edge.target)
            if a == b:
                acyclic = False
                break
            joined[a] = b
        if acyclic:
            found.append(list(kept))
    return found


def _root(joined: dict[str, str], var: str) -> str:
    while joined.get(var, var) != var:
        var = joined[var]
    return var


def _keys(sources: np.ndarray, targets: np.ndarray, size: int) -> np.ndarray:
    return np.unique(sources.astype(np.int64) * size + targets.astype(np.int64))


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    positions = np.minimum(np.searchsorted(sorted_keys, keys), max(len(sorted_keys) - 1, 0))
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), dtype=bool)
    return np.asarray(sorted_keys[positions] == keys)
