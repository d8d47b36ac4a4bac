"""The level-by-level table of relation sequences gives exactly what following each sequence
on its own gives: the unique-answer sequences in sorted order, their walk counts, their ends."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kgcert.errors import InputError
from kgcert.specs.relation_sequences import SequenceLevels


def _graph(seed: int, size: int, edges: int, relations: int):
    rng = np.random.default_rng(seed)
    triples = np.unique(np.stack([rng.integers(0, size, edges), rng.integers(0, relations, edges),
                                  rng.integers(0, size, edges)], axis=1), axis=0)
    src, rel, dst = triples.T
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=size), out=indptr[1:])
    return src, rel, dst, indptr


def _one_by_one(pivot, src, rel, dst, size, hops):
    """Each sequence followed on its own, depth first, by a sparse product per step."""
    steps = {r: sp.csr_matrix((np.ones(int((rel == r).sum()), dtype=np.int64),
                               (dst[rel == r], src[rel == r])), shape=(size, size))
             for r in np.unique(rel).tolist()}
    found, weights, ends = [], [], []
    start = np.zeros(size, dtype=np.int64)
    start[pivot] = 1
    stack = [(start, ())]
    while stack:
        parent, prefix = stack.pop()
        counts = steps[prefix[-1]] @ parent if prefix else parent
        if len(prefix) == hops:
            reached = np.flatnonzero(counts)
            if len(reached) == 1:
                found.append(prefix)
                weights.append(int(counts[reached[0]]))
                ends.append(int(reached[0]))
            continue
        for r in np.unique(rel[(counts > 0)[src]]).tolist():
            stack.append((counts, (*prefix, r)))
    order = sorted(range(len(found)), key=lambda i: found[i])
    return ([found[i] for i in order], [weights[i] for i in order], [ends[i] for i in order])


@pytest.mark.parametrize(("seed", "size", "edges", "relations"), [
    (0, 30, 60, 3), (1, 50, 200, 4), (2, 200, 500, 12), (3, 12, 30, 2), (4, 400, 700, 30)])
def test_levels_equal_sequences_followed_one_by_one(seed, size, edges, relations):
    src, rel, dst, indptr = _graph(seed, size, edges, relations)
    found = 0
    for pivot in range(0, size, max(size // 6, 1)):
        levels = SequenceLevels(pivot, indptr, rel, dst, relations)
        for hops in (1, 2, 3, 4):
            sequences, running, ends = levels.unique(hops)
            expected = _one_by_one(pivot, src, rel, dst, size, hops)
            assert sequences == expected[0], (seed, pivot, hops)
            assert running.tolist() == np.cumsum(expected[1]).tolist()
            assert ends == expected[2]
            found += len(sequences)
    assert found  # not every case empty


def test_too_many_walks_are_refused():
    # One relation on a complete graph of 40 entities: 40 ** hops walks, over 2^62 at 12 hops.
    size = 40
    src, dst = (a.reshape(-1) for a in np.meshgrid(np.arange(size), np.arange(size),
                                                   indexing="ij"))
    indptr = np.arange(0, size * size + 1, size, dtype=np.int64)
    levels = SequenceLevels(0, indptr, np.zeros(size * size, dtype=np.int64), dst, 1)
    assert levels.unique(11)[0] == []  # every entity reached: no unique answer, yet counted
    with pytest.raises(InputError, match="too many walks"):
        levels.unique(12)
