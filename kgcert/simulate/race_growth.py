"""Simulated errors of a race that grows: a finished `--until` run, then a model added with
`--new-design` (issue 45 item 3).

Each simulated run goes through the code a real one uses: `settle` and `record_start` (the
design and its refusal), the `Runner` with its race (sample files, comparisons/, the earlier
file kept) and the certificates; only the prompts are toys and the models `bernoulli:` test
models of known accuracy, so every claim can be scored. A claim "A is more accurate than B"
is wrong when A's accuracy is not above B's. Used by the tests (small) and
benchmarks/bench_stats.py (full size).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.run.start import record_start, settle
from kgcert.rundir.run_dir import run_dir_of
from kgcert.rundir.run_spec import RunSpec
from kgcert.simulate.rerun import toy_prompt


@dataclass(frozen=True)
class GrowthSim:
    joint_error: float  # runs with any wrong claim, earlier or later design
    earlier_error: float  # runs with a wrong claim in the first design's file
    stated: float  # the joint level the later file states (the lowest over the runs)
    earlier_kept: float  # runs whose first design's claims are all still on disk, unchanged
    runs: int


def _run(run_dir: Path, run: int, models: Sequence[str], n: int,
         until: Literal["ranked", "best"], new_design: bool) -> None:
    spec = RunSpec.of(kg="toy", specs=("toy",), models=tuple(models), n=n, batch_size=25,
                      seed=run, until=until)
    spec, saved = settle(spec, run_dir, seed_given=True, new_design=new_design)
    run_dir.mkdir(parents=True, exist_ok=True)
    record_start(run_dir, spec, saved, spec.design.confidence)
    generation = GenerationConfig()
    slots = [ModelSlot(name, get_model(name, generation, seed=run), generation)
             for name in models]
    job = Job("toy", "toy", "vanilla", lambda index: toy_prompt(index, run))
    Runner(spec, run_dir, [job], slots).run()


def wrong_claims(body: dict[str, Any], accuracy: dict[str, float]) -> int:
    """The claims of a comparisons file that the models' true accuracies contradict."""
    wrong = 0
    for pair in body["pairs"]:
        first, second = accuracy[pair["first"]], accuracy[pair["second"]]
        wrong += ((pair["decision"] == "first better" and first <= second)
                  or (pair["decision"] == "second better" and second <= first))
    return wrong


def simulate_growth(runs: int, *, first: dict[str, float], added: dict[str, float], n: int,
                    until: Literal["ranked", "best"] = "ranked", seed: int = 0) -> GrowthSim:
    """`runs` runs: the models of `first` race to the end, then those of `added` join with
    --new-design; how often any claim of either design is wrong."""
    accuracy = {**first, **added}
    joint = earlier_wrong = kept = 0
    stated = 1.0
    with tempfile.TemporaryDirectory() as work:
        for run in range(runs):
            run_dir = Path(work) / f"run{run}"
            _run(run_dir, seed + run, list(first), n, until, new_design=False)
            before = run_dir_of(run_dir).read_comparison("toy", "vanilla")
            _run(run_dir, seed + run, [*first, *added], n, until, new_design=True)
            after = run_dir_of(run_dir).read_comparison("toy", "vanilla")
            [earlier] = run_dir_of(run_dir).earlier_comparisons()
            kept += earlier["pairs"] == before["pairs"]
            stated = min(stated, float(after["joint_confidence"]))
            old_wrong = wrong_claims(earlier, accuracy)
            earlier_wrong += old_wrong > 0
            joint += (old_wrong + wrong_claims(after, accuracy)) > 0
    return GrowthSim(joint / runs, earlier_wrong / runs, stated, kept / runs, runs)
