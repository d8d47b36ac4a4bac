"""Comparisons that stop when decided: the e-processes and the race's stopping logic, with
simulated error rates (small here; full size in benchmarks/bench_savings.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from kgcert.stats.discordant import DiscordantTable, log_e_up
from kgcert.stats.racing import FIRST_BETTER, SECOND_BETTER, WITHIN, Race, StopRule


def _race(accuracies: list[float], rule: StopRule, replicates: int, seed: int = 0) -> Race:
    rng = np.random.default_rng(seed)
    race = Race(rule, len(accuracies), replicates)
    while not race.done.all():
        race.step(rng.random((replicates, len(accuracies))) < np.asarray(accuracies))
    return race


def test_the_mixture_has_the_closed_form_values() -> None:
    # E_up(W, L) = 2^(W+L+1) * integral over (1/2, 1) of q^W (1-q)^L
    assert np.exp(log_e_up(0, 0)) == pytest.approx(1.0)
    assert np.exp(log_e_up(1, 0)) == pytest.approx(1.5)
    assert np.exp(log_e_up(0, 1)) == pytest.approx(0.5)
    table = DiscordantTable(30)
    wins, losses = np.array([3, 7]), np.array([5, 1])
    assert np.allclose(table.down(wins, losses), table.up(losses, wins))


@pytest.mark.parametrize("share", [0.5, 0.35])
def test_the_evidence_for_a_is_a_supermartingale_when_a_is_not_better(share: float) -> None:
    """Its exact expectation over every discordant sequence of length t stays <= 1 (= 1 at
    a fair coin): Ville's inequality then bounds the chance it ever reaches 1/x by x."""
    for t in (1, 5, 40):
        wins = np.arange(t + 1)
        weights = stats.binom.pmf(wins, t, share)
        expected = float(np.sum(weights * np.exp(log_e_up(wins, t - wins))))
        assert expected <= 1 + 1e-9
        if share == 0.5:
            assert expected == pytest.approx(1.0)


def test_ranked_stops_a_clear_pair_far_before_n_and_decides_it() -> None:
    race = _race([0.95, 0.3], StopRule(n=250, until="ranked"), 300)
    assert (race.state[:, 0] == FIRST_BETTER).all()
    assert race.drawn.mean() < 40
    assert race.calls.mean() == pytest.approx(2 * race.drawn.mean())


def test_no_claim_between_equal_models_beyond_alpha() -> None:
    """Five equal models: any claim is an error; Holm keeps the family-wise rate <= alpha."""
    race = _race([0.7] * 5, StopRule(n=120, until="ranked", futility_z=None), 1500, seed=3)
    claims = ((race.state == FIRST_BETTER) | (race.state == SECOND_BETTER)).any(axis=1)
    assert claims.mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 1500)


def test_no_wrong_direction_and_ties_told_apart_rarely() -> None:
    accuracies = [0.9, 0.9, 0.8, 0.6]
    race = _race(accuracies, StopRule(n=150, until="ranked"), 1000, seed=5)
    first = np.array(accuracies)[race.first]
    second = np.array(accuracies)[race.second]
    wrong = (((race.state == FIRST_BETTER) & (first <= second))
             | ((race.state == SECOND_BETTER) & (second <= first)))
    assert wrong.any(axis=1).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 1000)


def test_best_races_out_the_worse_models_and_stops_asking_them() -> None:
    race = _race([0.95, 0.6, 0.3], StopRule(n=300, until="best"), 200, seed=1)
    out = race.eliminated()
    assert out[:, 1:].all() and not out[:, 0].any()
    # the worst model stopped first, and the race stopped long before n
    assert (race.stopped_at[:, 2] <= race.stopped_at[:, 1]).mean() > 0.9
    assert race.drawn.mean() < 100


def test_threshold_stops_each_model_once_its_sequence_clears_it() -> None:
    race = _race([0.9, 0.1], StopRule(n=400, threshold=0.5), 100, seed=2)
    assert (race.threshold_state[:, 0] == 1).all() and (race.threshold_state[:, 1] == 2).all()
    assert race.drawn.max() < 60


def test_a_margin_declares_two_nearly_perfect_models_close() -> None:
    race = _race([0.995, 0.995], StopRule(n=400, until="ranked", margin=0.15), 100, seed=4)
    assert (race.state[:, 0] == WITHIN).mean() > 0.9
    assert race.drawn.mean() < 400


def test_failed_calls_are_no_answer_and_the_pair_waits_for_both() -> None:
    race = Race(StopRule(n=10, until="ranked"), 2)
    race.step(np.array([[True, False]]), answered=np.array([[True, False]]))
    assert race.answered.tolist() == [[1, 0]] and race.paired.tolist() == [[0]]
    assert race.calls.tolist() == [1]
    race.step(np.array([[True, False]]))
    assert race.wins.tolist() == [[1]] and race.state[0, 0] not in (SECOND_BETTER,)


@pytest.mark.parametrize("bad", [dict(n=0), dict(n=5, until="fastest"),
                                 dict(n=5, confidence=1.0), dict(n=5, margin=0.0),
                                 dict(n=5, threshold=1.5)])
def test_a_bad_rule_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        StopRule(**bad)  # type: ignore[arg-type]


def test_the_futility_stop_rarely_drops_a_decision_the_full_race_makes() -> None:
    """Same outcomes (same seed), with and without stopping pairs undecidable by n: of the
    decisions the race without it makes, the race with it keeps about 95% here (pairs 0.05
    apart sit at the edge of what n = 200 decides) for far fewer calls."""
    from kgcert.stats.race_sim import simulate_race

    accuracies = [0.9, 0.8, 0.65, 0.6]
    full, [without] = simulate_race(accuracies, StopRule(n=200, until="ranked",
                                                          futility_z=None), 300, seed=9)
    quick, [with_] = simulate_race(accuracies, StopRule(n=200, until="ranked"), 300, seed=9)
    made = (without.state == FIRST_BETTER) | (without.state == SECOND_BETTER)
    kept = made & (with_.state == without.state)
    assert kept.sum() >= 0.9 * made.sum()
    assert quick.mean_calls < 0.8 * full.mean_calls
