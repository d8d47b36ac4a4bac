"""Multi-model pairing through the real runner, simulated at a size CI affords (issue 35).

Three models of one accuracy, each right independently per prompt, answer one run. Every
model must answer the same prompts (so `compare` pairs all n), and the Holm family of paired
McNemar tests may call a pair different in at most its alpha share of runs. The full-size
version (300 runs at n = 200) is section (e) of benchmarks/bench_stats.py.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.report.compare import compare
from kgcert.report.run_frames import load_runs
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_spec import RunSpec

ALPHA = 0.05
RUNS, N, P = 100, 60, 0.7


def _prompt(index: int, run: int) -> Prompt:
    provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=run,
                            index=index, setting="vanilla")
    return Prompt(text=f"prompt {run}/{index}", provenance=provenance,
                  options=("w", "x", "y", "z"), option_ids=("w", "x", "y", "z"),
                  correct_option=1 + index % 4)


@pytest.mark.timeout(600)
def test_models_of_a_run_are_paired_on_every_prompt_and_holm_keeps_alpha(
        tmp_path: Path) -> None:
    names = (f"bernoulli:{P}", f"bernoulli:{P}0", f"bernoulli:{P}00")  # one accuracy
    config = GenerationConfig()
    called = 0
    for run in range(RUNS):
        slots = [ModelSlot(name, get_model(name, config, seed=run * 3 + number), config)
                 for number, name in enumerate(names)]  # independent: a seed each
        run_dir = tmp_path / f"run{run}"
        job = Job("toy", "toy", "vanilla", partial(_prompt, run=run))
        Runner(RunSpec.of(kg="toy", specs=("toy",), models=names, n=N, batch_size=N),
               run_dir, [job], slots).run()
        [comparison] = compare(load_runs([run_dir]).samples, alpha=ALPHA)
        assert comparison.alignment.n == N  # every prompt answered by every model, paired
        assert comparison.hierarchy is not None
        called += any(c.reject for c in comparison.hierarchy.comparisons)
    # at a family-wise error of at most alpha, more than 10 of 100 has probability about 1%
    assert called <= 10, f"{called} of {RUNS} runs called equally accurate models different"
