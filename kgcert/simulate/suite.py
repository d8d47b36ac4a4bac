"""Simulated misses of suite certificates whose specs fit the budget at different rates.

Each simulated run goes through the code a suite run uses: `mixture` (the spec draws and the
redraws of skipped prompts), the `Runner` (sample files, the certificate) and the certificate
module; only the specs' prompts are toys (spec j's prompt at an index is skipped with
probability 1 - fit_j, else a prompt its model answers right with probability p_j), so the
mixture the certificate names, sum_j w_j p_j, is known exactly. Used by the tests (small) and
benchmarks/bench_stats.py (full size).

`redraw=False` runs the same runs with the mixture that counted only the prompts that fit
(what suites did before): its certificates cover sum_j w_j f_j p_j / sum_j w_j f_j instead.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcert.certify.record import Certificate
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.bernoulli import answer_line, uniform
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.run.suite import SuiteConfig, drawn_component, mixture
from kgcert.rundir.run_dir import read_certificate
from kgcert.rundir.run_spec import RunSpec

OPTIONS = ("w", "x", "y", "z")


@dataclass(frozen=True)
class SuiteSim:
    miss: float  # share of the runs whose certificate misses the stated mixture's accuracy
    confidence: float  # the level each certificate states
    runs: int
    truth: float  # sum_j w_j p_j, the accuracy the certificates name
    unconditional_miss: float  # runs whose unconditional lower bound exceeds its truth


class SpecAccuracyModel:
    """A test model right with probability p_j on spec j's prompts (the spec read from the
    toy prompt's first word), independently per prompt."""

    cacheable = False
    name = "spec-accuracy"

    def __init__(self, accuracies: Sequence[float], seed: int) -> None:
        self.accuracies = tuple(accuracies)
        self.seed = seed
        self.config = GenerationConfig()

    def identity(self) -> dict[str, Any]:
        return {"provider": "simulation", "accuracies": list(self.accuracies)}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        out = []
        for request in requests:
            text = request.prompt or ""
            spec = int(text.split()[1])
            right = uniform(self.seed, text, "correct") < self.accuracies[spec]
            assert request.correct_option is not None
            option = (request.correct_option if right
                      else request.correct_option % len(OPTIONS) + 1)
            out.append(ModelResponse(text=answer_line(option, request), completion_tokens=12))
        return out


def _component(spec: int, fit: float, seed: int) -> Callable[[int], Prompt]:
    def build(index: int) -> Prompt:
        provenance = Provenance(spec=f"spec{spec}", spec_hash=f"h{spec}", kind="relation",
                                seed=seed, index=index, setting="vanilla")
        if uniform(seed, spec, index, "fit") >= fit:
            return Prompt("", provenance, skipped="the essential context does not fit the "
                                                  "budget of 100 characters")
        return Prompt(f"spec {spec} prompt {seed}/{index}", provenance, options=OPTIONS,
                      option_ids=OPTIONS, correct_option=1 + index % 4)
    return build


def _without_redraws(seed: int, suite: SuiteConfig,
                     components: Sequence[Callable[[int], Prompt]]) -> Callable[[int], Prompt]:
    """The earlier suite: spec j's prompt i for the spec index i draws, skipped or not."""
    return lambda index: components[drawn_component(seed, suite, index)](index)


def one_run(run_dir: Path, seed: int, *, weights: Sequence[float], fits: Sequence[float],
            accuracies: Sequence[float], n: int, confidence: float = 0.95,
            redraw: bool = True) -> Certificate:
    """One suite run through the runner; its certificate."""
    specs = tuple(f"spec{j}" for j in range(len(weights)))
    suite = SuiteConfig(name="sim", specs=specs, weights=tuple(weights), weighting="explicit")
    components = [_component(j, fit, seed) for j, fit in enumerate(fits)]
    prompts = (mixture(seed, suite, components) if redraw
               else _without_redraws(seed, suite, components))
    context = {"options": len(OPTIONS), "budget": "100 characters", "population": "run",
               "suite": {"name": "sim", "weighting": "explicit",
                         "components": [{"spec": s, "spec_hash": f"h{j}", "weight": w}
                                        for j, (s, w) in enumerate(zip(specs, weights,
                                                                       strict=True))]}}
    job = Job("sim", "sim", "vanilla", prompts, context)
    generation = GenerationConfig()
    model = ModelSlot("spec-accuracy", SpecAccuracyModel(accuracies, seed), generation)
    spec = RunSpec.of(kg="sim", specs=specs, models=("spec-accuracy",), n=n, batch_size=n,
                      seed=seed, confidence=confidence)
    [path] = Runner(spec, run_dir, [job], [model]).run()
    return read_certificate(path)


def simulate_suite(runs: int, *, weights: Sequence[float], fits: Sequence[float],
                   accuracies: Sequence[float], n: int, confidence: float = 0.95,
                   seed: int = 0, redraw: bool = True) -> SuiteSim:
    """`runs` suite runs (seeds seed, seed + 1, ...): how often the certificate misses the
    stated mixture's accuracy sum_j w_j p_j."""
    truth = sum(w * p for w, p in zip(weights, accuracies, strict=True))
    # the first draw of an index fits with probability f_j, then is right with p_j
    free = sum(w * f * p for w, f, p in zip(weights, fits, accuracies, strict=True))
    missed = free_missed = 0
    with tempfile.TemporaryDirectory() as work:
        for run in range(runs):
            cert = one_run(Path(work) / f"run{run}", seed + run, weights=weights, fits=fits,
                           accuracies=accuracies, n=n, confidence=confidence, redraw=redraw)
            missed += not cert.lower <= truth <= cert.upper
            free_missed += cert.unconditional is not None and cert.unconditional.lower > free
    return SuiteSim(missed / runs, confidence, runs, truth, free_missed / runs)
