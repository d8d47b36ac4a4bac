"""The runner's certificates have the coverage they claim (bernoulli models of known p).

Prompts here are simple fixed records: what is tested is the pipeline from prompts through
the model, the answer checker, the sample files and the certificate, not prompt content.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_file_keys import SequentialConfig
from kgcert.rundir.run_spec import RunSpec
from kgcert.rundir.sample_log import SampleLog
from kgcert.stats import mixture_cs_limits

P_GRID = (0.05, 0.2, 0.5, 0.8, 0.95, 0.99)
CERTIFICATES = 400
SEQUENTIAL_RUNS = 200
SEQUENTIAL_MAX = 300


def _toy_prompts(tag: str):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0,
                                index=index, setting="vanilla")
        options = ("alpha", "beta", "gamma", "delta")
        return Prompt(text=f"{tag} question {index}", provenance=provenance, options=options,
                      option_ids=("a", "b", "c", "d"), correct_option=1 + index % 4)
    return build


def _slots(p: float, count: int) -> list[ModelSlot]:
    config = GenerationConfig()
    return [ModelSlot(f"bernoulli:{p}#{seed}", get_model(f"bernoulli:{p}", config, seed=seed),
                      config) for seed in range(count)]


def _config(n: int, **extra) -> RunSpec:
    return RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.5",), n=n, **extra)


@pytest.mark.parametrize("p", P_GRID)
def test_certificates_cover_the_true_accuracy(tmp_path: Path, p: float):
    job = Job("toy", "toy", "vanilla", _toy_prompts(f"p={p}"))
    runner = Runner(_config(50, batch_size=50), tmp_path, [job], _slots(p, CERTIFICATES))
    paths = runner.run()
    assert len(paths) == CERTIFICATES
    bodies = [json.loads(path.read_text()) for path in paths]
    assert all(body["n"] == 50 for body in bodies)
    covered = sum(body["lower"] <= p <= body["upper"] for body in bodies)
    # 400 certificates of at least 95% coverage: fewer than 95% - 3 standard errors of them
    # covering p has probability about 0.1%
    allowed = 0.95 - 3 * np.sqrt(0.05 * 0.95 / CERTIFICATES)
    assert covered / CERTIFICATES >= allowed, f"p={p}: {covered}/{CERTIFICATES} contain p"
    # The outcomes behave like Bernoulli(p) draws: the pooled rate is close to p.
    pooled = sum(body["k"] for body in bodies) / (50 * CERTIFICATES)
    assert abs(pooled - p) < 4 * np.sqrt(p * (1 - p) / (50 * CERTIFICATES)) + 1e-9


@pytest.mark.parametrize("p", P_GRID)
def test_sequential_bounds_cover_at_every_stopping_time(tmp_path: Path, p: float):
    job = Job("toy", "toy", "vanilla", _toy_prompts(f"seq p={p}"))
    sequential = SequentialConfig(half_width=0.1)
    unparseable = 0.1
    config = GenerationConfig()
    slots = [ModelSlot(f"bernoulli:{p}#{seed}", get_model(f"bernoulli:{p}", config, seed=seed,
                                                           unparseable_rate=unparseable),
                       config) for seed in range(SEQUENTIAL_RUNS)]
    runner = Runner(_config(SEQUENTIAL_MAX, batch_size=50, sequential=sequential), tmp_path,
                    [job], slots)
    runner.run()
    always_covered = 0
    # The true values: P(correct) = (1 - u) p (unparseable counted wrong, and nothing is
    # skipped or fails, so the unconditional bound has the same target), p among parseable.
    truth = {"headline": (1 - unparseable) * p, "unparseable_excluded": p,
             "unconditional": (1 - unparseable) * p}
    certified = dict.fromkeys(truth, 0)
    for slot in runner.models:
        records = SampleLog(runner.log(job, slot).path).read()
        outcomes = [records[i].correct for i in sorted(records)]
        lower, upper = mixture_cs_limits(np.cumsum(outcomes), np.arange(1, len(outcomes) + 1),
                                         delta=0.05)
        always_covered += bool(np.all((lower <= truth["headline"])
                                      & (truth["headline"] <= upper)))
        body = json.loads(runner.certificate_path(job, slot).read_text())
        assert body["method"].startswith("beta-binomial mixture")
        for name, value in truth.items():
            bound = body if name == "headline" else body[name]
            assert bound["method"].startswith("beta-binomial mixture")
            certified[name] += bound["lower"] <= value <= bound["upper"]
        if len(records) < SEQUENTIAL_MAX:  # stopped early: the target half-width was reached
            assert body["upper"] - body["lower"] <= 0.2 + 1e-9
    assert always_covered / SEQUENTIAL_RUNS >= 0.95, f"p={p}: {always_covered} always covered"
    for name, covered in certified.items():  # the certificate's own bounds, not a recomputation
        assert covered / SEQUENTIAL_RUNS >= 0.95, f"p={p}: {name} covered {covered} times"


def test_errors_and_skips_are_not_counted_wrong(tmp_path: Path):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0,
                                index=index, setting="vanilla")
        if index % 5 == 0:
            return Prompt(text="", provenance=provenance, skipped="context does not fit")
        return Prompt(text=f"q{index}", provenance=provenance, options=("a", "b"),
                      option_ids=("a", "b"), correct_option=1)

    config = GenerationConfig()
    slot = ModelSlot("bernoulli:1", get_model("bernoulli:1", config), config)
    runner = Runner(_config(20), tmp_path, [Job("toy", "toy", "vanilla", build)], [slot])
    body = json.loads(runner.run()[0].read_text())
    assert body["outcomes"] == {"correct": 16, "wrong": 0, "unparseable": 0, "error": 0,
                                "refused": 0, "skipped": 4}
    assert (body["k"], body["n"]) == (16, 16)


def test_torn_last_line_is_dropped_and_resumed_once(tmp_path: Path):
    job = Job("toy", "toy", "vanilla", _toy_prompts("resume"))
    slots = _slots(0.5, 1)
    first = Runner(_config(30, batch_size=7), tmp_path / "a", [job], slots)
    first.run()
    log = first.log(job, slots[0]).path
    whole = log.read_bytes()
    lines = whole.split(b"\n")
    # Keep 10 records and half of the 11th, as a kill during a write would.
    log.write_bytes(b"\n".join(lines[:10]) + b"\n" + lines[10][: len(lines[10]) // 2])
    Runner(_config(30, batch_size=7), tmp_path / "a", [job], slots).run()
    records = SampleLog(log).read()
    assert sorted(records) == list(range(30))
    again = Runner(_config(30, batch_size=4), tmp_path / "b", [job], slots)
    again.run()
    assert (json.loads(first.certificate_path(job, slots[0]).read_text())["k"]
            == json.loads(again.certificate_path(job, slots[0]).read_text())["k"])


def test_baseline_is_never_stopped_early_and_stale_samples_are_refused(tmp_path: Path):
    sequential = SequentialConfig(threshold=0.5)
    slots = _slots(0.95, 1)
    jobs = [Job("toy", "toy", "vanilla", _toy_prompts("a")),
            Job("toy", "toy", "baseline", _toy_prompts("b"), n=60)]
    runner = Runner(_config(300, batch_size=10, sequential=sequential), tmp_path, jobs, slots)
    bodies = {json.loads(p.read_text())["setting"]: json.loads(p.read_text())
              for p in runner.run()}
    assert bodies["vanilla"]["n"] < 300  # stopped once the bounds cleared 0.5
    assert bodies["baseline"]["n"] == 60 and bodies["baseline"]["method"].startswith("clopper")
    changed = Job("toy", "other-hash", "vanilla", _toy_prompts("a"))
    with pytest.raises(InputError, match="now hashes to other-hash"):
        Runner(_config(300, sequential=sequential), tmp_path, [changed], slots).run()


def test_reports_count_only_the_samples_inside_a_sequential_certificate(tmp_path: Path):
    from kgcert.report import load_runs

    slots = _slots(0.97, 1)
    job = Job("toy", "toy", "vanilla", _toy_prompts("cut"))
    runner = Runner(_config(400, batch_size=25, sequential=SequentialConfig(threshold=0.6)),
                    tmp_path, [job], slots)
    body = json.loads(runner.run()[0].read_text())
    written = len(SampleLog(runner.log(job, slots[0]).path).read())
    assert body["samples_recorded"] < written  # the stopping batch ran past the cut
    samples = load_runs([tmp_path]).samples
    assert len(samples) == body["samples_recorded"]
