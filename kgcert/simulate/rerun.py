"""Simulated misses of publish-or-extend across folders (issue 45 item 2).

A run of n1 answers into one folder is read; if its interval excludes p0 it is published,
else the same seed is run again with n2 into a new folder, whose first n1 answers are the
same prompts. Each run goes through the Runner with the data dir's record of looks
(kgcert.run.look_record): the second run is refused unless --new-design, and with it states
the anytime-valid sequence and the joint level of both looks. Only the prompts are toys and
the model a `bernoulli:` test model of known accuracy. Used by the tests (small) and
benchmarks/bench_stats.py (full size).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from kgcert.certify.record import Certificate
from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.look_record import LookRecord
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.run.start import record_start, settle
from kgcert.rundir.run_dir import read_certificate
from kgcert.rundir.run_spec import RunSpec

OPTIONS = ("w", "x", "y", "z")
MODEL = "bernoulli:0.5"


@dataclass(frozen=True)
class RerunSim:
    miss: float  # share of runs whose published certificate misses p
    stated: float  # the lowest joint level a published certificate states
    extended: float  # share of runs that went on into the second folder
    runs: int


def toy_prompt(index: int, seed: int) -> Prompt:
    """Prompt `index` of the toy spec drawn with `seed`: four options, the answer cycling."""
    provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=seed,
                            index=index, setting="vanilla")
    return Prompt(text=f"prompt {seed}/{index}", provenance=provenance, options=OPTIONS,
                  option_ids=OPTIONS, correct_option=1 + index % 4)


def run_into(run_dir: Path, data_dir: Path | None, seed: int, n: int, *, p: float = 0.5,
             new_design: bool = False) -> Certificate:
    """One run of the toy spec with seed `seed` into `run_dir`; its certificate. The data
    dir's record of looks is kept when `data_dir` is given (as `kgcert run` keeps it)."""
    spec = RunSpec.of(kg="toy", specs=("toy",), models=(MODEL,), n=n, batch_size=n,
                      seed=seed)
    spec, saved = settle(spec, run_dir, seed_given=True, new_design=new_design)
    generation = GenerationConfig()
    # the model's accuracy is p whatever its name; its stream is the run's seed and name
    slots = [ModelSlot(MODEL, get_model(f"bernoulli:{p}", generation, seed=seed),
                       generation)]
    job = Job("toy", "toy", "vanilla", lambda index: toy_prompt(index, seed),
              {"kg": "toy", "budget": "12000 characters"})
    runner = Runner(spec, run_dir, [job], slots,
                    looks=LookRecord(data_dir) if data_dir is not None else None,
                    new_design=new_design)
    runner.refuse_unseen_extensions()
    run_dir.mkdir(parents=True, exist_ok=True)
    record_start(run_dir, spec, saved, runner.confidence)
    [path] = runner.run()
    return read_certificate(path)


def simulate_rerun(runs: int, *, p: float = 0.5, p0: float = 0.5, n1: int = 100,
                   n2: int = 400, seed: int = 0) -> RerunSim:
    missed = extended = 0
    stated = 1.0
    with tempfile.TemporaryDirectory() as work:
        for run in range(runs):
            data, folder = Path(work) / f"data{run}", Path(work) / f"runs{run}"
            first = run_into(folder / "first", data, seed + run, n1, p=p)
            published = first
            if first.lower <= p0 <= first.upper:  # read, not decided: rerun, larger
                extended += 1
                published = run_into(folder / "second", data, seed + run, n2, p=p,
                                     new_design=True)
            stated = min(stated, published.joint_confidence)
            missed += not published.lower <= p <= published.upper
    return RerunSim(missed / runs, stated, extended / runs, runs)
