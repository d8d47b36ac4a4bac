"""Simulated misses of certificates whose n changed after answers were seen.

Each scenario asks `plan_look` (the code the runner uses) which bound every look may state,
then draws Bernoulli(p) answer streams and counts how often the published certificate misses
p. Used by the tests (small) and benchmarks/bench_stats.py (full size).

* read-then-extend: publish at n1 if the interval excludes p0, else extend to n2 (with the
  extension declared before the first answer, or by a new design after reading);
* interrupt-then-shrink: a run designed for n_big is stopped at a random point and restarted
  by a new design with the n, up to that point, at which a fixed-n interval would look best
  to an adversary (the first at which Clopper-Pearson at delta excludes p, if any).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kgcert.run.design import DesignEntry
from kgcert.run.looks import Look, plan_look
from kgcert.rundir.outcomes import CORRECT
from kgcert.rundir.sample_record import SampleRecord
from kgcert.stats import cp_limits, mixture_cs_limits, running_intersection


@dataclass(frozen=True)
class Simulated:
    miss: float  # share of published certificates that miss p
    stated: float  # the joint level the published certificates state (the lowest of them)
    reps: int


def _entry(name: str, n: int, confidence: float, extendable: bool) -> DesignEntry:
    return DesignEntry(name, confidence, n, False, extendable, "sim", "")


def _records(designs: list[tuple[str, int]]) -> dict[int, SampleRecord]:
    """Sample indices 0.. drawn under each design in turn: (design, up to this index); a
    look reads only the indices and designs, so every outcome is the same."""
    records, start = {}, 0
    for name, end in designs:
        records.update({i: SampleRecord(index=i, outcome=CORRECT, design=name)
                        for i in range(start, end)})
        start = end
    return records


def bounds(look: Look, hits: NDArray[np.bool_], n: int) -> tuple[NDArray[np.float64], ...]:
    """Each stream's interval after its first n answers, as the certificate computes it."""
    if not look.anytime:
        return cp_limits(hits[:, :n].sum(axis=1), n, look.confidence)
    successes = np.cumsum(hits[:, :n], axis=1)
    trials = np.broadcast_to(np.arange(1, n + 1), successes.shape)
    lower, upper = running_intersection(*mixture_cs_limits(successes, trials,
                                                           delta=1 - look.confidence))
    return lower[:, -1], upper[:, -1]


def read_then_extend(rng: np.random.Generator, *, p: float, p0: float, n1: int, n2: int,
                     delta: float, declared: bool, reps: int) -> Simulated:
    confidence = 1 - delta
    first = _entry("d1", n1, confidence, declared)
    look1 = plan_look(_records([("d1", n1)]), total=n1, confidence=confidence, design="d1",
                      sequential=False, extendable=declared, designs=[first])
    if declared:  # the same design, n grown as declared
        look2 = plan_look(_records([("d1", n2)]), total=n2, confidence=confidence,
                          design="d1", sequential=False, extendable=True, designs=[first])
    else:  # read, then a new design with a larger n
        second = _entry("d2", n2, confidence, False)
        look2 = plan_look(_records([("d1", n1), ("d2", n2)]), total=n2, confidence=confidence,
                          design="d2", sequential=False, extendable=False,
                          designs=[first, second])
    hits = rng.random((reps, n2)) < p
    lo1, hi1 = bounds(look1, hits, n1)
    published = (lo1 > p0) | (hi1 < p0)
    miss = published & ((lo1 > p) | (hi1 < p))
    extended = ~published
    if extended.any():
        lo2, hi2 = bounds(look2, hits[extended], n2)
        miss[extended] = (lo2 > p) | (hi2 < p)
    return Simulated(float(miss.mean()), min(look1.joint_confidence, look2.joint_confidence),
                     reps)


def interrupt_then_shrink(rng: np.random.Generator, *, p: float, n_big: int, n_min: int,
                          delta: float, reps: int) -> Simulated:
    confidence = 1 - delta
    first, second = (_entry("d1", n_big, confidence, False),
                     _entry("d2", n_min, confidence, False))
    hits = rng.random((reps, n_big)) < p
    stopped = rng.integers(n_min, n_big, size=reps)  # where the first run was interrupted
    # The adversary's n: the first t >= n_min at which a fixed-n interval excludes p.
    t = np.arange(1, n_big + 1)
    lo, hi = cp_limits(np.cumsum(hits, axis=1), t, confidence)
    wrong = ((lo > p) | (hi < p)) & (t >= n_min) & (t <= stopped[:, None])
    chosen = np.where(wrong.any(axis=1), np.argmax(wrong, axis=1) + 1, stopped)
    records = _records([("d1", int(stopped.max()))])
    looks = {int(n): plan_look(records, total=int(n), confidence=confidence, design="d2",
                               sequential=False, extendable=False, designs=[first, second])
             for n in np.unique(chosen)}
    kinds = {(look.anytime, look.confidence) for look in looks.values()}
    assert len(kinds) == 1, kinds  # one kind of bound whatever n was chosen
    look = next(iter(looks.values()))
    if look.anytime:  # the whole path once, read at each stream's chosen n
        successes = np.cumsum(hits, axis=1)
        lower, upper = running_intersection(*mixture_cs_limits(
            successes, np.broadcast_to(t, successes.shape), delta=1 - look.confidence))
    else:
        lower, upper = cp_limits(np.cumsum(hits, axis=1), t, look.confidence)
    rows = np.arange(reps)
    lo_n, hi_n = lower[rows, chosen - 1], upper[rows, chosen - 1]
    miss = (lo_n > p) | (hi_n < p)
    return Simulated(float(miss.mean()), min(x.joint_confidence for x in looks.values()), reps)
