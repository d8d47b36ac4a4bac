"""One single-model stop rule (`kgcert.stats.stopping`): the runner's sequential cut and the
`SequentialMonitor` fed the same answers one at a time stop at the same answer with the same
bounds, on random streams with skipped prompts and unparseable answers among them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgcert.run.runner import Runner
from kgcert.rundir.outcomes import CORRECT, SKIPPED, UNPARSEABLE, WRONG
from kgcert.rundir.run_file_keys import SequentialConfig
from kgcert.rundir.run_spec import RunSpec
from kgcert.rundir.sample_record import SampleRecord
from kgcert.stats import SequentialMonitor

RULES = [(0.1, None), (None, 0.6), (0.15, 0.3), (0.05, None)]


def _records(rng: np.random.Generator, p: float, n: int) -> dict[int, SampleRecord]:
    outcomes = rng.choice([CORRECT, WRONG, UNPARSEABLE, SKIPPED], size=n,
                          p=[p * 0.9, (1 - p) * 0.9, 0.05, 0.05])
    return {i: SampleRecord(index=i, outcome=str(o)) for i, o in enumerate(outcomes)}


def _monitor_stop(records: dict[int, SampleRecord], confidence: float,
                  half_width: float | None, threshold: float | None
                  ) -> tuple[int | None, tuple[float, float]]:
    monitor = SequentialMonitor(1 - confidence, target_half_width=half_width,
                                threshold=threshold)
    state = monitor.state
    for index in sorted(records):
        record = records[index]
        if not record.answered:
            continue
        state = monitor.update(record.correct)
        if state.stop:
            return index, (state.bounds.lower, state.bounds.upper)
    return None, (state.bounds.lower, state.bounds.upper)


@pytest.mark.parametrize(("half_width", "threshold"), RULES)
def test_the_runner_and_the_monitor_stop_at_the_same_answer(tmp_path: Path,
                                                             half_width: float | None,
                                                             threshold: float | None):
    rng = np.random.default_rng(44)
    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.5",), n=600,
                        sequential=SequentialConfig(half_width=half_width, threshold=threshold))
    runner = Runner(config, tmp_path, [], [])
    stopped = 0
    for _ in range(40):
        p = float(rng.uniform(0.05, 0.95))
        records = _records(rng, p, 600)
        cut = runner._cut(records, 600)
        assert cut == _monitor_stop(records, runner.confidence, half_width, threshold)
        stopped += cut[0] is not None
    assert stopped > 0  # the rule fired on some streams: the stop indices were compared


def test_a_stream_with_no_answer_has_no_stop_and_the_whole_interval(tmp_path: Path):
    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.5",), n=5,
                        sequential=SequentialConfig(half_width=0.1))
    records = {i: SampleRecord(index=i, outcome=SKIPPED) for i in range(5)}
    assert Runner(config, tmp_path, [], [])._cut(records, 5) == (None, (0.0, 1.0))
