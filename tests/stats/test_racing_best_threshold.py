"""`--until best --threshold`: a model certified worse than another stops being asked at the
index that decided it, whether or not its threshold test is decided (issue 46, item 8: a
losing bernoulli:0.6 was decided after 19 paired prompts and asked 224 times)."""

from __future__ import annotations

import numpy as np

from kgcert.stats.racing import FIRST_BETTER, Race, StopRule


def test_a_model_certified_worse_stops_at_once_despite_an_open_threshold() -> None:
    rule = StopRule(n=250, until="best", confidence=0.95, threshold=0.5)
    race = Race(rule, 2, replicates=1)
    rng = np.random.default_rng(46)
    decided_at = None
    while not race.done[0]:
        # model 0 always right; model 1 right 60 % of the time: its threshold (0.5) stays open
        race.step(np.array([[True, rng.random() < 0.6]]))
        if decided_at is None and race.state[0, 0] == FIRST_BETTER:
            decided_at = int(race.drawn[0])
            assert not race.active[0, 1], "the loser is still asked after the decision"
    assert decided_at is not None and decided_at < 60
    assert race.answered[0, 1] == decided_at  # asked up to the decision, never after
    assert race.threshold_state[0, 1] == 0  # its threshold was never decided
