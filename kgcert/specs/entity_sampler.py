"""Exact IID sampling of an entity-centric spec (LLMCert-C Algorithms 2 and 4).

The stated distribution: the pivot uniform over the spec's pivots; the hop count L from the
spec's length weights (uniform over 1..rho-1 by default); then a *valid* path of L hops from
the pivot: simple (no entity twice), following edge directions over the allowed relations,
and unique: following its relation sequence from the pivot over the whole graph reaches
exactly one entity, the answer. Which valid path, by the spec's `paths`:
- `uniform` (default; Algorithm 2 draws from the set of bounded DAGs): uniform over the
  valid paths of L hops;
- `random_walk` (the step rule of Algorithm 4): each step uniform over the current entity's
  out-edges, conditioned on validity, so P(path) is proportional to the product of
  1 / out-degree along it. Around hubs almost no random walk is valid (measured on the
  countries KG: none in 20,000 two-hop walks from Papua New Guinea), so this one can be slow.

How it stays exact. The pivot's neighbourhood up to rho-1 hops is fetched from the server
(every out-edge of every entity within rho-2 hops, so nothing a path or the uniqueness walk
can use is missing), level by level: a length with no unique-answer sequence refuses the
pivot before the next, larger level is read. `uniform`: every relation sequence of L hops is
followed from the pivot with walk counts per entity (all sequences together,
kgcert/specs/relation_sequences.py); the sequences whose counts end on exactly one entity
are the unique-answer ones, and their walk counts are exact. A sequence is drawn in
proportion to its walks, then each hop in proportion to the walks that continue from it,
which makes the walk uniform over walks with a unique answer; walks that visit an entity
twice are rejected (a redraw from the sequence up). `random_walk`: random walks are drawn
in batches and the invalid ones rejected. Either way, exactly the stated distribution. The
reference implementation checked uniqueness on a BFS tree of the neighbourhood, missing
non-tree edges; here it runs on every fetched edge.

Sample i uses only `sample_rng(seed, "<spec hash>/path", i)`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from kgcert.errors import InputError
from kgcert.specs.model import EntitySpec, spec_hash
from kgcert.specs.relation_sequences import SequenceLevels, sum_by_key
from kgcert.specs.schema import KGSchema
from kgcert.store.cypher import named
from kgcert.store.graph import GraphStore
from kgcert.util.rng import sample_rng

MAX_ATTEMPTS = 200_000
SEARCH_LIMIT = 200_000
FETCH_CHUNK = 5_000  # entities per neighbourhood query: bounds each query's rows on the server


@dataclass(frozen=True)
class PathSample:
    spec: str
    spec_hash: str
    seed: int
    index: int
    pivot: str
    nodes: tuple[str, ...]  # pivot first, answer last
    relations: tuple[str, ...]  # relationship types, one per hop
    rejected: int

    @property
    def hops(self) -> int:
        return len(self.relations)


class _Neighbourhood:
    """Out-edges around one pivot as integer arrays, and the relation sequences from it."""

    def __init__(self, pivot: str, rows: list[tuple[str, str, str]]) -> None:
        ids = sorted({pivot} | {s for s, _, _ in rows} | {t for _, _, t in rows})
        self.ids = ids
        position = {node: i for i, node in enumerate(ids)}
        self.rel_names = sorted({r for _, r, _ in rows})
        rel_code = {r: i for i, r in enumerate(self.rel_names)}
        triples = sorted({(position[s], rel_code[r], position[t]) for s, r, t in rows})
        size = len(ids)
        src = np.array([s for s, _, _ in triples], dtype=np.int64)
        self.rel = np.array([r for _, r, _ in triples], dtype=np.int64)
        self.dst = np.array([t for _, _, t in triples], dtype=np.int64)
        self.indptr = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=size), out=self.indptr[1:])
        self.pivot = position[pivot]
        self._unique: dict[tuple[int, ...], bool] = {}
        self._src = src
        self._levels: SequenceLevels | None = None
        self._suffix_counts: dict[tuple[int, ...], list[tuple[np.ndarray, np.ndarray]]] = {}

    # -- uniform over valid paths: by relation sequence -----------------------------------------

    def sequences(self, hops: int) -> tuple[list[tuple[int, ...]], np.ndarray, list[int]]:
        """The relation sequences of `hops` hops that reach exactly one entity from the pivot
        (sorted), the running sums of the walks following each, and that entity."""
        if self._levels is None:
            self._levels = SequenceLevels(self.pivot, self.indptr, self.rel, self.dst,
                                          len(self.rel_names))
        return self._levels.unique(hops)

    @cached_property
    def _incoming(self) -> tuple[np.ndarray, np.ndarray]:
        """Edges sorted by (target, relation) as keys target * relations + relation, and
        their sources: to walk a sequence backwards from its end."""
        keys = self.dst * max(len(self.rel_names), 1) + self.rel
        order = np.argsort(keys, kind="stable")
        return keys[order], self._src[order]

    def _suffix(self, sequence: tuple[int, ...],
                end: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per step i: the entities (sorted) with walks following sequence[i:] to `end`, and
        those walk counts. Walked back over in-edges, so the cost follows those few entities
        rather than the neighbourhood's size (cached, up to 512 sequences)."""
        cached = self._suffix_counts.get(sequence)
        if cached is None:
            keys, sources = self._incoming
            relations = max(len(self.rel_names), 1)
            nodes, walks = np.array([end], dtype=np.int64), np.ones(1, dtype=np.int64)
            cached = [(nodes, walks)]
            for rel in reversed(sequence):
                wanted = nodes * relations + rel
                low = np.searchsorted(keys, wanted, "left")
                sizes = np.searchsorted(keys, wanted, "right") - low
                edge = np.repeat(low - (np.cumsum(sizes) - sizes), sizes) + np.arange(sizes.sum())
                nodes, walks = sum_by_key(sources[edge], np.repeat(walks, sizes))
                cached.insert(0, (nodes, walks))
            if len(self._suffix_counts) > 512:
                self._suffix_counts.clear()
            self._suffix_counts[sequence] = cached
        return cached

    def draw_uniform(self, hops: int,
                     rng: np.random.Generator) -> tuple[list[int], list[int]] | None:
        """A walk uniform over all walks whose relation sequence has a unique answer: the
        sequence in proportion to its walks, then each hop in proportion to the walks that
        continue from it. None when the walk visits an entity twice (then redraw)."""
        sequences, running, ends = self.sequences(hops)
        pick = int(rng.integers(int(running[-1])))
        chosen = int(np.searchsorted(running, pick, "right"))
        sequence = sequences[chosen]
        counts = self._suffix(sequence, ends[chosen])
        nodes = [self.pivot]
        for step, rel in enumerate(sequence):
            u = nodes[-1]
            edges = np.arange(self.indptr[u], self.indptr[u + 1])
            edges = edges[self.rel[edges] == rel]
            weight = _lookup(*counts[step + 1], self.dst[edges])
            cumulative = np.cumsum(weight)
            position = int(np.searchsorted(cumulative, int(rng.integers(int(cumulative[-1]))),
                                           "right"))
            target = int(self.dst[edges[position]])
            if target in nodes:
                return None
            nodes.append(target)
        return nodes, list(sequence)

    # -- random walk: rejection ---------------------------------------------------------------

    def draw_walks(self, hops: int, rng: np.random.Generator,
                   count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`count` independent random walks at once, each step uniform over the out-edges.
        Returns node rows, relation rows, and which rows are simple walks that never hit a
        dead end."""
        nodes = np.full((count, hops + 1), self.pivot, dtype=np.int64)
        rels = np.zeros((count, hops), dtype=np.int64)
        alive = np.ones(count, dtype=bool)
        for step in range(hops):
            u = nodes[:, step]
            start, end = self.indptr[u], self.indptr[u + 1]
            degree = end - start
            alive &= degree > 0
            edge = start + rng.integers(0, np.maximum(degree, 1))
            edge = np.where(alive, edge, 0) if len(self.dst) else np.zeros(count, dtype=np.int64)
            target = self.dst[edge] if len(self.dst) else np.zeros(count, dtype=np.int64)
            alive &= ~(nodes[:, :step + 1] == target[:, None]).any(axis=1)
            nodes[:, step + 1] = target
            rels[:, step] = self.rel[edge] if len(self.rel) else 0
        return nodes, rels, alive

    @cached_property
    def by_rel(self) -> dict[tuple[int, int], list[int]]:
        """Targets by (source, relation); only random walks need it, so built on first use."""
        found: dict[tuple[int, int], list[int]] = defaultdict(list)
        for s, r, t in zip(self._src.tolist(), self.rel.tolist(), self.dst.tolist(),
                           strict=True):
            found[(s, r)].append(t)
        return found

    def unique_answer(self, rels: tuple[int, ...]) -> bool:
        """Whether the relation sequence, followed from the pivot, reaches exactly one entity.
        Depends on the sequence only, so it is computed once per sequence."""
        known = self._unique.get(rels)
        if known is None:
            reached = {self.pivot}
            for rel in rels:
                reached = {t for u in reached for t in self.by_rel.get((u, rel), ())}
            known = self._unique[rels] = len(reached) == 1
        return known

    def is_valid(self, nodes: list[int], rels: list[int]) -> bool:
        return len(set(nodes)) == len(nodes) and self.unique_answer(tuple(rels))

    def wrong_turn(self, nodes: list[int], rels: list[int]) -> bool:
        """Whether the path has a Definition 2.3 distractor candidate (Algorithm 6): at a hop
        before the last, the hop's relation also leads somewhere off the path."""
        on_path = set(nodes)
        for u, rel in zip(nodes[:-2], rels[:-1], strict=True):
            edges = np.arange(self.indptr[u], self.indptr[u + 1])
            if any(int(v) not in on_path for v in self.dst[edges[self.rel[edges] == rel]]):
                return True
        return False

    def walk_probability(self, nodes: list[int]) -> float:
        """The random walk's probability of this path (for tests of the stated distribution)."""
        degrees = [int(self.indptr[u + 1] - self.indptr[u]) for u in nodes[:-1]]
        return float(np.prod([1.0 / d for d in degrees]))

    def paths(self, hops: int, limit: int | None = None) -> Iterator[tuple[list[int], list[int]]]:
        """Valid paths of `hops` hops, depth first (for counting and for tests); stops after
        `limit` complete candidates when given."""
        examined = [0]

        def extend(nodes: list[int], rels: list[int]) -> Iterator[tuple[list[int], list[int]]]:
            if limit is not None and examined[0] >= limit:
                return
            if len(rels) == hops:
                examined[0] += 1
                if self.is_valid(nodes, rels):
                    yield list(nodes), list(rels)
                return
            u = nodes[-1]
            for edge in range(self.indptr[u], self.indptr[u + 1]):
                v = int(self.dst[edge])
                if v in nodes:
                    continue
                nodes.append(v)
                rels.append(int(self.rel[edge]))
                yield from extend(nodes, rels)
                nodes.pop()
                rels.pop()
        yield from extend([self.pivot], [])


def _lookup(nodes: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """values[i] where nodes[i] == wanted (nodes sorted), 0 where wanted is not in nodes."""
    position = np.minimum(np.searchsorted(nodes, wanted), len(nodes) - 1)
    return np.where(nodes[position] == wanted, values[position], 0)


class EntitySampler:
    def __init__(self, spec: EntitySpec, store: GraphStore, schema: KGSchema | None = None) -> None:
        self.spec = spec
        self.spec_hash = spec_hash(spec)
        self._stream = f"{self.spec_hash}/path"
        schema = schema or KGSchema.read(store)
        where = f"spec {spec.name}: relations"
        include = [schema.rel_type(r, where) for r in spec.relations.include]
        # A relation the KG lacks excludes nothing: the paper's exclusions (P31, ...) are often
        # dropped at load time already, and the spec must still fit that KG.
        exclude = [schema.rel_type(r, where) for r in spec.relations.exclude
                   if schema.has_rel_type(r)]
        known = {row["id"] for row in store.query(named("specs", "entities"),
                                                  ids=list(spec.pivots))}
        missing = [pivot for pivot in spec.pivots if pivot not in known]
        if missing:
            shown = ", ".join(repr(p) for p in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            verb = "is" if len(missing) == 1 else "are"
            raise InputError(f"spec {spec.name}: pivot{'s' if len(missing) > 1 else ''} "
                             f"{shown}{more} {verb} not in the KG")
        weights = spec.length_weights()
        self.lengths = [hops for hops, weight in weights.items() if weight > 0]
        total = sum(weights[hops] for hops in self.lengths)
        self.length_cumulative = np.cumsum([weights[hops] / total for hops in self.lengths])
        max_hops = max(self.lengths)
        self.pivots = list(spec.pivots)
        self.areas = {pivot: self._area(store, pivot, max_hops, include, exclude)
                      for pivot in self.pivots}
        for pivot in self.pivots:
            self._check_reachable(pivot)

    def _area(self, store: GraphStore, pivot: str, max_hops: int, include: list[str],
              exclude: list[str]) -> _Neighbourhood:
        rows: list[tuple[str, str, str]] = []
        for level, rows in enumerate(self._fetch(store, pivot, max_hops, include, exclude), 1):
            # After level L every entity within L-1 hops has its out-edges in, so L-hop
            # sequences are already final: a pivot without unique-answer ones is refused
            # before the far larger next levels are read (top hubs fail at L = 1).
            if rows and level < max_hops and level in self.lengths and \
                    not _Neighbourhood(pivot, rows).sequences(level)[0]:
                raise InputError(self._no_path(pivot, level))
        return _Neighbourhood(pivot, rows)

    @staticmethod
    def _fetch(store: GraphStore, pivot: str, max_hops: int, include: list[str],
               exclude: list[str]) -> Iterator[list[tuple[str, str, str]]]:
        """The rows so far after each breadth-first level: out-edges of every entity within
        max_hops - 1 hops in the end."""
        rows: list[tuple[str, str, str]] = []
        expanded: set[str] = set()
        frontier = {pivot}
        for _ in range(max_hops):
            batch = sorted(frontier - expanded)
            if not batch:
                break
            expanded.update(batch)
            frontier = set()
            for start in range(0, len(batch), FETCH_CHUNK):
                for source, rels, targets in store.rows(named("specs", "out_edges"),
                                                        ids=batch[start:start + FETCH_CHUNK],
                                                        include=include, exclude=exclude):
                    source = str(source)
                    targets = [str(target) for target in targets]
                    rows.extend(zip([source] * len(targets), map(str, rels), targets,
                                    strict=True))
                    frontier.update(targets)
            yield rows

    def _check_reachable(self, pivot: str) -> None:
        """Every allowed hop count must have a valid path, or the stated distribution is void."""
        area = self.areas[pivot]
        if area.indptr[area.pivot] == area.indptr[area.pivot + 1]:
            raise InputError(f"spec {self.spec.name}: pivot {pivot!r} has no out-edges over the "
                             "allowed relations in the KG, so no path starts there")
        rng = sample_rng(0, f"{self.spec_hash}/check", 0)
        for hops in self.lengths:
            if not area.sequences(hops)[0]:
                raise InputError(self._no_path(pivot, hops))
            if any(area.draw_uniform(hops, rng) is not None for _ in range(200)):
                continue
            if next(area.paths(hops, limit=SEARCH_LIMIT), None) is None:
                raise InputError(f"spec {self.spec.name}: pivot {pivot!r} has no {hops}-hop path "
                                 f"with a unique answer (or none among {SEARCH_LIMIT:,} "
                                 "candidates); drop that length from `lengths` or pick another "
                                 "pivot")

    def _no_path(self, pivot: str, hops: int) -> str:
        return (f"spec {self.spec.name}: pivot {pivot!r} has no {hops}-hop path with a unique "
                "answer; drop that length from `lengths` or pick another pivot")

    def draw(self, seed: int, index: int) -> tuple[str, list[int], list[int], int]:
        rng = sample_rng(seed, self._stream, index)
        pivot = self.pivots[int(rng.integers(len(self.pivots)))]
        hops = self.lengths[int(np.searchsorted(self.length_cumulative, rng.random(), "right"))]
        area = self.areas[pivot]
        if self.spec.paths == "uniform":
            for rejected in range(MAX_ATTEMPTS):
                walk = area.draw_uniform(hops, rng)
                if walk is not None:
                    return pivot, walk[0], walk[1], rejected
            raise InputError(f"spec {self.spec.name}: no simple {hops}-hop path from {pivot!r} "
                             f"in {MAX_ATTEMPTS:,} draws")
        # Random walks come in batches of a fixed, growing schedule and the first valid one in
        # draw order is kept: the same law as drawing them one at a time.
        drawn = 0
        batch = 16
        while drawn < MAX_ATTEMPTS:
            nodes, rels, alive = area.draw_walks(hops, rng, batch)
            rows = np.flatnonzero(alive)
            if len(rows):
                # Uniqueness depends on the relation sequence only: test each distinct one once.
                base = max(len(area.rel_names), 1)
                codes = rels[rows] @ (base ** np.arange(hops - 1, -1, -1, dtype=np.int64))
                _, first, which = np.unique(codes, return_index=True, return_inverse=True)
                unique = np.array([area.unique_answer(tuple(rels[rows[i]].tolist()))
                                   for i in first], dtype=bool)
                hits = rows[unique[which]]
                if len(hits):
                    row = int(hits[0])  # the first valid walk in draw order
                    return pivot, nodes[row].tolist(), rels[row].tolist(), drawn + row
            drawn += batch
            batch = min(batch * 4, 16384)
        raise InputError(f"spec {self.spec.name}: no valid {hops}-hop path from {pivot!r} in "
                         f"{MAX_ATTEMPTS:,} draws; unique-answer paths are too rare there")

    def sample(self, seed: int, index: int) -> PathSample:
        pivot, nodes, rels, rejected = self.draw(seed, index)
        area = self.areas[pivot]
        return PathSample(self.spec.name, self.spec_hash, seed, index, pivot,
                          tuple(area.ids[n] for n in nodes),
                          tuple(area.rel_names[r] for r in rels), rejected)

    def wrong_turn_share(self, seed: int, draws: int) -> float:
        """The share of the first `draws` samples of `seed` whose path has a distractor
        candidate (`_Neighbourhood.wrong_turn`): a spec whose paths have none or few gives
        distractor-setting prompts without a distractor."""
        found = 0
        for index in range(draws):
            pivot, nodes, rels, _ = self.draw(seed, index)
            found += self.areas[pivot].wrong_turn(nodes, rels)
        return found / draws if draws else 0.0

    def valid_paths(self, pivot: str, hops: int,
                    limit: int | None = None) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
        """Every valid path (up to `limit` candidates examined): for counting and tests."""
        area = self.areas[pivot]
        return [(tuple(area.ids[n] for n in nodes), tuple(area.rel_names[r] for r in rels))
                for nodes, rels in area.paths(hops, limit)]
