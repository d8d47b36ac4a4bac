"""Comparisons that stop when decided: which model still has to answer the next prompt.

Models answer the same prompts one index at a time. After each index the race updates, for
every pair, the e-process of :mod:`kgcert.stats.discordant` (its anytime-valid p-value for
"equal accuracy") and applies Holm across the pairs; a rejected pair is the claim "A is more
accurate than B", in the direction of its discordant prompts (the one more often right alone).
The p-values are anytime-valid and their running minima only fall, so a claim made once
stands at every later look, and Holm holds at any stopping time (each p-value is valid there,
which is all Holm's proof uses): a claim between two equally accurate models is made with
probability at most alpha over the whole run. A claim in the wrong direction needs the
discordant prompts to favour the worse model while the evidence crosses Holm's line; as for
the fixed-n McNemar hierarchy of :mod:`kgcert.stats.paired`, that rate is measured by
simulation (tests/stats/test_stats_racing.py, benchmarks/bench_savings.py), not bounded in closed
form.

A pair is resolved when it is

* decided: one model certified better than the other (the claim above);
* within the margin (``margin`` given): the anytime-valid sequences of p10 and p01 show
  |accuracy(A) - accuracy(B)| < margin. These claims get half of alpha (the Holm family the
  other half), Bonferroni over the pairs;
* undecidable by n: even an optimistic projection of the remaining prompts (the discordance
  rate and the leader's share of it at their upper ``futility_z`` Wilson bounds) leaves the
  pair short of what Holm asks. This is no claim, only a reason to stop asking: a pair a
  fixed-n design would have decided may be missed (the benchmark measures how often).

What keeps a model answering depends on ``until``: ``ranked``, any unresolved pair it is in;
``best`` (racing), not being certified worse than another model while some pair of the
models left is unresolved; and, with ``threshold``, its own confidence sequence not yet above
or below the threshold. Everything is vectorised over independent replicates, so the
pipeline (one replicate) and the simulations of ``kgcert plan`` and the benchmark run the
same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from kgcert.stats.discordant import DiscordantTable, mixture_limits

_LOG2 = float(np.log(2.0))

__all__ = ["PAIR_STATES", "Race", "StopRule"]

UNDECIDED, FIRST_BETTER, SECOND_BETTER, WITHIN, UNDECIDABLE = range(5)
PAIR_STATES = ("undecided", "first better", "second better", "within margin",
               "undecidable by n")
THRESHOLD_STATES = ("undecided", "above", "below")
UNTIL = ("ranked", "best")


@dataclass(frozen=True)
class StopRule:
    """When a model stops being asked. ``confidence``: every claim about pairs holds together
    at least this; ``threshold_confidence``: each model's threshold sequence (default the
    same); ``n``: the most indices any model answers."""

    n: int
    until: Literal["ranked", "best"] | None = None
    confidence: float = 0.95
    margin: float | None = None
    threshold: float | None = None
    threshold_confidence: float | None = None
    futility_z: float | None = 2.0

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.until not in (None, *UNTIL):
            raise ValueError(f"until must be ranked or best, got {self.until!r}")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence}")
        if self.margin is not None and not 0 < self.margin < 1:
            raise ValueError(f"margin must be in (0, 1), got {self.margin}")
        if self.threshold is not None and not 0 < self.threshold < 1:
            raise ValueError(f"threshold must be in (0, 1), got {self.threshold}")

    @property
    def alpha_directions(self) -> float:
        alpha = 1 - self.confidence
        return alpha / 2 if self.margin is not None else alpha

    @property
    def alpha_margin(self) -> float:
        return (1 - self.confidence) / 2


def _wilson_upper(hits: NDArray[np.float64], total: NDArray[np.float64], z: float
                  ) -> NDArray[np.float64]:
    total = np.maximum(total, 1.0)
    share = hits / total
    centre = share + z * z / (2 * total)
    spread = z * np.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return np.asarray(np.minimum(1.0, (centre + spread) / (1 + z * z / total)),
                      dtype=np.float64)


class Race:
    """The state of `replicates` independent races of `models` models under `rule`."""

    def __init__(self, rule: StopRule, models: int, replicates: int = 1) -> None:
        if models < 1:
            raise ValueError("a race needs at least one model")
        self.rule, self.k, self.replicates = rule, models, replicates
        self.pairs = list(combinations(range(models), 2))
        m = len(self.pairs)
        self.first = np.array([a for a, _ in self.pairs], dtype=np.int64)
        self.second = np.array([b for _, b in self.pairs], dtype=np.int64)
        # incidence of models in pairs, for "has an unresolved pair" as one product
        self._in_first = np.zeros((m, models))
        self._in_second = np.zeros((m, models))
        self._in_first[np.arange(m), self.first] = 1
        self._in_second[np.arange(m), self.second] = 1
        shape = (replicates, m)
        self.wins = np.zeros(shape, dtype=np.int64)  # first right, second wrong
        self.losses = np.zeros(shape, dtype=np.int64)  # first wrong, second right
        self.paired = np.zeros(shape, dtype=np.int64)  # indices both answered
        self.state = np.zeros(shape, dtype=np.int8)
        self._rejected = np.zeros(shape, dtype=bool)  # Holm's rejections
        self.best = np.zeros(shape)  # running max of log((E_up + E_down) / 2)
        self.correct = np.zeros((replicates, models), dtype=np.int64)
        self.answered = np.zeros((replicates, models), dtype=np.int64)
        self.calls = np.zeros(replicates, dtype=np.int64)
        self.threshold_state = np.zeros((replicates, models), dtype=np.int8)
        self.drawn = np.zeros(replicates, dtype=np.int64)  # indices taken so far
        self.stopped_at = np.full((replicates, models), -1, dtype=np.int64)
        self._table = DiscordantTable(rule.n) if m else None
        self.active = np.ones((replicates, models), dtype=bool)
        self.done = np.zeros(replicates, dtype=bool)
        self._refresh_active()

    # -- one index -------------------------------------------------------------------
    def step(self, correct: NDArray[np.bool_], answered: NDArray[np.bool_] | None = None
             ) -> None:
        """Index ``drawn`` of every running replicate: ``correct`` (replicates x models) says
        who was right; ``answered`` who has an answer at all (a failed call has none; default
        every model). Entries of stopped models and finished replicates are ignored."""
        correct = np.asarray(correct, dtype=bool).reshape(self.replicates, self.k)
        took = (self.active & ~self.done[:, None]) if answered is None else (
            np.asarray(answered, dtype=bool).reshape(self.replicates, self.k)
            & self.active & ~self.done[:, None])
        self.drawn += ~self.done
        self.calls += took.sum(axis=1)
        self.answered += took
        self.correct += took & correct
        if self.pairs:
            both = took[:, self.first] & took[:, self.second]
            first_right = correct[:, self.first]
            second_right = correct[:, self.second]
            self.paired += both
            self.wins += both & first_right & ~second_right
            self.losses += both & ~first_right & second_right
            self._update_pairs()
        if self.rule.threshold is not None:
            self._update_thresholds()
        self._refresh_active()

    def _update_pairs(self) -> None:
        assert self._table is not None
        up = self._table.up(self.wins, self.losses)
        down = self._table.down(self.wins, self.losses)
        self.best = np.maximum(self.best, np.logaddexp(up, down) - _LOG2)
        rejected = self._holm()
        open_ = (self.state == UNDECIDED) | (self.state == UNDECIDABLE)
        first = self.wins > self.losses
        self.state[open_ & rejected & first] = FIRST_BETTER
        self.state[open_ & rejected & ~first] = SECOND_BETTER
        if self.rule.margin is not None:
            self.state[((self.state == UNDECIDED) | (self.state == UNDECIDABLE))
                       & self._within()] = WITHIN
        if self.rule.futility_z is not None:
            self.state[(self.state == UNDECIDED) & self._hopeless()] = UNDECIDABLE

    def _holm(self) -> NDArray[np.bool_]:
        """Holm over the pairs, on the log scale. p-values only fall, so Holm's rejections
        only grow: with r pairs rejected, every other pair whose p-value is at most
        alpha / (m - r) is rejected too (in sorted order each faces at least that
        threshold), and again until none is added; no sort is needed."""
        m = len(self.pairs)
        log_p = -self.best
        rejected = self._rejected
        log_alpha = np.log(self.rule.alpha_directions)
        while True:
            count = rejected.sum(axis=1, keepdims=True)
            limit = log_alpha - np.log(np.maximum(m - count, 1))
            added = ~rejected & (log_p <= limit)
            if not added.any():
                break
            rejected |= added
        return rejected

    def _within(self) -> NDArray[np.bool_]:
        """|p10 - p01| < margin on the sequences of p10 and p01 (each at alpha/2 over 2m)."""
        delta = self.rule.alpha_margin / (2 * len(self.pairs))
        won_lo, won_hi = mixture_limits(self.rule.n, delta, self.wins, self.paired)
        lost_lo, lost_hi = mixture_limits(self.rule.n, delta, self.losses, self.paired)
        margin = float(self.rule.margin or 0.0)
        return np.asarray((won_hi - lost_lo < margin) & (lost_hi - won_lo < margin),
                          dtype=bool)

    def _hopeless(self) -> NDArray[np.bool_]:
        """Even at optimistic rates over the prompts left, the leader's evidence stays below
        what Holm asks of the next pair it decides (alpha / the pairs not yet rejected)."""
        assert self._table is not None
        z = float(self.rule.futility_z or 0.0)
        left = (self.rule.n - self.drawn)[:, None].astype(np.float64)
        lead = np.maximum(self.wins, self.losses).astype(np.float64)
        trail = np.minimum(self.wins, self.losses).astype(np.float64)
        discordant = lead + trail
        rate = _wilson_upper(discordant, self.paired.astype(np.float64), z)
        share = np.where(discordant > 0, _wilson_upper(lead, discordant, z), 1.0)
        more = left * rate
        lead_end = np.minimum(np.ceil(lead + more * share), self.rule.n).astype(np.int64)
        trail_end = np.floor(trail + more * (1 - share)).astype(np.int64)
        trail_end = np.clip(trail_end, 0, self.rule.n - lead_end)
        # Holm asks the next pair for alpha / (pairs not yet rejected), and E = (E_up +
        # E_down) / 2 is about half the leader's evidence
        unrejected = np.maximum(len(self.pairs) - self._rejected.sum(axis=1, keepdims=True), 1)
        needed = np.log(2 * unrejected / self.rule.alpha_directions)
        return np.asarray(self._table.up(lead_end, trail_end) < needed, dtype=bool)

    def _update_thresholds(self) -> None:
        rule = self.rule
        delta = 1 - (rule.threshold_confidence or rule.confidence)
        lo, hi = mixture_limits(rule.n, delta, self.correct, self.answered)
        open_ = self.threshold_state == 0
        threshold = float(rule.threshold or 0.0)
        self.threshold_state[open_ & (self.answered > 0) & (lo > threshold)] = 1
        self.threshold_state[open_ & (self.answered > 0) & (hi < threshold)] = 2

    # -- who answers next -------------------------------------------------------------
    def eliminated(self) -> NDArray[np.bool_]:
        """Models certified worse than some other model (replicates x models)."""
        lost_first = (self.state == SECOND_BETTER).astype(np.float64) @ self._in_first
        lost_second = (self.state == FIRST_BETTER).astype(np.float64) @ self._in_second
        return np.asarray((lost_first + lost_second) > 0, dtype=bool)

    def _refresh_active(self) -> None:
        rule = self.rule
        wanted = np.zeros((self.replicates, self.k), dtype=bool)
        out = (self.eliminated() if rule.until == "best" and self.pairs
               else np.zeros((self.replicates, self.k), dtype=bool))
        if rule.until is not None and self.pairs:
            needed = self.state == UNDECIDED
            if rule.until == "best":
                needed &= ~out[:, self.first] & ~out[:, self.second]
            counts = needed.astype(np.float64) @ (self._in_first + self._in_second)
            wanted |= counts > 0
        if rule.threshold is not None:
            # --until best: a model certified worse stops, its threshold test undecided or not
            wanted |= (self.threshold_state == 0) & ~out
        if rule.until is None and rule.threshold is None:
            wanted[:] = True  # no stop rule: every model answers up to n
        stopping = self.active & ~wanted & ~self.done[:, None]
        self.stopped_at[stopping] = self.drawn[:, None].repeat(self.k, axis=1)[stopping]
        self.active &= wanted
        self.done |= ~self.active.any(axis=1) | (self.drawn >= rule.n)

    # -- what was decided -------------------------------------------------------------
    def pair_states(self, replicate: int = 0) -> list[tuple[int, int, str]]:
        return [(a, b, PAIR_STATES[int(s)])
                for (a, b), s in zip(self.pairs, self.state[replicate], strict=True)]

    def p_values(self, replicate: int = 0) -> list[float]:
        """Each pair's anytime-valid p-value (before Holm): 1 / the largest E so far."""
        return [float(min(1.0, np.exp(-value))) for value in self.best[replicate]]
