"""Simulated races: what a stop rule costs and decides for guessed accuracies.

Outcomes are drawn per prompt; with ``shared`` > 0 a share of each model's outcomes comes
from one uniform draw per prompt that every model compares with its accuracy (easy prompts
are easy for all, as with real models), the rest from its own draw. ``shared = 0`` makes the
models independent given the prompt stream, the case with the most discordant prompts and
so the least information per paired prompt. The races are the stopping code of
:mod:`kgcert.stats.racing` itself, fed one index at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kgcert.stats.racing import Race, StopRule

__all__ = ["RaceSummary", "correlated_outcomes", "simulate_race"]

# (replicates, models) accuracies of the prompt at one index, for spec mixtures
Draw = Callable[[np.random.Generator, int], NDArray[np.float64]]


def correlated_outcomes(rng: np.random.Generator, accuracies: NDArray[np.float64],
                        shared: float) -> NDArray[np.bool_]:
    """One index of outcomes for (replicates x models) accuracies."""
    replicates = accuracies.shape[0]
    own = rng.random(accuracies.shape)
    if shared > 0:
        common = rng.random((replicates, 1))
        own = np.where(rng.random(accuracies.shape) < shared, common, own)
    return np.asarray(own < accuracies, dtype=bool)


@dataclass(frozen=True)
class RaceSummary:
    replicates: int
    models: int
    n: int
    mean_calls: float  # model calls per race (every model together)
    mean_drawn: float  # indices drawn per race
    calls_per_model: tuple[float, ...]
    decided_pairs: float  # mean pairs with a claim "X is better than Y"
    within_pairs: float
    wrong_claims: float  # share of races with any wrong claim (FWER)

    @property
    def fixed_calls(self) -> int:
        return self.n * self.models

    @property
    def saving(self) -> float:
        return self.fixed_calls / self.mean_calls if self.mean_calls else float("inf")


def simulate_race(accuracies: Sequence[float], rule: StopRule, replicates: int = 1000,
                  seed: int = 0, shared: float = 0.0, draw: Draw | None = None,
                  chunk: int = 2000) -> tuple[RaceSummary, list[Race]]:
    """Run `replicates` races (in chunks, to bound memory) and summarise them."""
    rng = np.random.default_rng(seed)
    truth = np.asarray(accuracies, dtype=np.float64)
    races = []
    for start in range(0, replicates, chunk):
        size = min(chunk, replicates - start)
        race = Race(rule, len(truth), size)
        while not race.done.all():
            now = (draw(rng, size) if draw is not None
                   else np.broadcast_to(truth, (size, len(truth))))
            race.step(correlated_outcomes(rng, now, shared))
        races.append(race)
    return summarise(races, truth, rule), races


def wrong_claims(race: Race, truth: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Per race: any claim that a model is better when it is not, or any margin claim
    between models further apart than the margin."""
    first, second = truth[race.first], truth[race.second]
    wrong = (((race.state == 1) & (first <= second)) | ((race.state == 2) & (second <= first)))
    if race.rule.margin is not None:
        wrong |= (race.state == 3) & (np.abs(first - second) >= race.rule.margin)
    return np.asarray(wrong.any(axis=1), dtype=bool)


def summarise(races: Sequence[Race], truth: NDArray[np.float64], rule: StopRule
              ) -> RaceSummary:
    calls = np.concatenate([r.calls for r in races])
    drawn = np.concatenate([r.drawn for r in races])
    answered = np.concatenate([r.answered for r in races])
    states = np.concatenate([r.state for r in races])
    wrong = np.concatenate([wrong_claims(r, truth) for r in races])
    return RaceSummary(
        replicates=len(calls), models=len(truth), n=rule.n, mean_calls=float(calls.mean()),
        mean_drawn=float(drawn.mean()),
        calls_per_model=tuple(float(x) for x in answered.mean(axis=0)),
        decided_pairs=float(((states == 1) | (states == 2)).sum(axis=1).mean()),
        within_pairs=float((states == 3).sum(axis=1).mean()),
        wrong_claims=float(wrong.mean()))
