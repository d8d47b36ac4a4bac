"""Coverage through the real pipeline: a PrimeKG extract loaded into the embedded server, the
spec's exact sampler, the prompt builder, the runner and the answer checker, with a model
whose outcome is a fixed function of the drawn answer. The sampler is uniform over the
enumerated matches, so every true value is known exactly: the mean over the match table.

Each seed's prompts are the sampler's own IID draws `sample(seed, i)`. The rendered prompt of
a match is built once by the real builder and reused whenever (any seed) draws that match:
the model's outcome depends only on the answer it shows, so each seed's outcomes stay IID
with exactly the enumerated law, and the test does not render thousands of prompts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from alzheimer_kg_fixture import ALZHEIMER_KG

from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.bernoulli import answer_line
from kgcert.prompts.budget import Budget
from kgcert.prompts.mcqa import PromptBuilder
from kgcert.prompts.record import Prompt
from kgcert.prompts.settings import PromptSettings
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_file_keys import SequentialConfig
from kgcert.rundir.run_spec import RunSpec
from kgcert.specs import find_spec, prepare_sampler
from kgcert.specs.relation_sampler import DagSample, RelationSampler

SPEC = "primekg.dual_indication"
SEEDS = 200
FIXED_N = 20
SEQUENTIAL_MAX = 40
DELTA = 0.05


def behaviour(answer: str) -> str:
    """What the model does when the shown answer is `answer`: a fixed function of it."""
    bucket = hashlib.sha256(f"coverage/{answer}".encode()).digest()[0] % 8
    return ("error" if bucket == 0 else "unparseable" if bucket == 1
            else "correct" if bucket <= 5 else "wrong")


class AnswerKeyedModel:
    """Answers right, wrong, unparseably or fails, by the shown answer alone (a test model:
    what is tested is the pipeline and the certificate, not a language model)."""

    cacheable = False
    name = "answer-keyed"

    def identity(self) -> dict[str, Any]:
        return {"provider": "answer-keyed"}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        out = []
        for request in requests:
            correct = request.correct_option
            assert correct is not None
            kind = behaviour(request.options[correct - 1])
            if kind == "error":
                out.append(ModelResponse.failure("this answer makes the API fail"))
            elif kind == "unparseable":
                out.append(ModelResponse(text="I am not sure."))
            else:
                wrong = 1 if correct != 1 else 2
                out.append(ModelResponse(text=answer_line(
                    correct if kind == "correct" else wrong, request)))
        return out


@pytest.fixture(scope="module")
def prepared(alzheimer_kg):
    store = alzheimer_kg.store
    spec = find_spec(SPEC, []).spec
    sampler = prepare_sampler(spec, store, None)
    assert isinstance(sampler, RelationSampler) and sampler.table is not None
    builder = PromptBuilder(store, spec, sampler, seed=0,
                            settings=PromptSettings(setting="vanilla", few_shot=1,
                                                    budget=Budget.characters(200_000)))
    rendered: dict[tuple[tuple[str, str], ...], Prompt] = {}
    for row_number, row in enumerate(sampler.table):
        nodes = {var: str(sampler.ids[int(pos)])
                 for var, pos in zip(sampler.columns, row, strict=True)}
        sample = DagSample(spec.name, sampler.spec_hash, 0, row_number, nodes, 0)
        prompt = builder.render(sample, index=row_number)
        assert prompt.skipped is None, prompt.skipped  # the budget fits every match
        rendered[tuple(sorted(nodes.items()))] = prompt
    kinds = [behaviour(p.options[p.correct_option - 1]) for p in rendered.values()
             if p.correct_option is not None]
    share = {kind: kinds.count(kind) / len(kinds)
             for kind in ("correct", "wrong", "unparseable", "error")}
    truth = {"headline": share["correct"] / (1 - share["error"]),
             "unparseable_excluded": share["correct"] / (share["correct"] + share["wrong"]),
             "unconditional": share["correct"]}
    assert 0 < share["correct"] < 1 and share["error"] > 0 and share["unparseable"] > 0, share
    return sampler, rendered, truth


def _job(sampler: RelationSampler, rendered: dict, seed: int) -> Job:
    def build(index: int) -> Prompt:  # the real sampler's draw i for this seed
        return rendered[tuple(sorted(sampler.sample(seed, index).nodes.items()))]
    return Job(SPEC, sampler.spec_hash, "vanilla", build, {"options": 4})


@pytest.mark.parametrize("mode", ["fixed", "sequential"])
def test_every_reported_bound_covers_its_true_value(prepared, tmp_path: Path, mode: str):
    sampler, rendered, truth = prepared
    slot = ModelSlot("answer-keyed", AnswerKeyedModel(), GenerationConfig())  # type: ignore
    extra: dict[str, Any] = ({"sequential": SequentialConfig(threshold=0.25)}
                             if mode == "sequential" else {})
    n = SEQUENTIAL_MAX if mode == "sequential" else FIXED_N
    covered = dict.fromkeys(truth, 0)
    stopped_early = 0
    for seed in range(SEEDS):
        config = RunSpec.of(kg=ALZHEIMER_KG, specs=(SPEC,), models=("answer-keyed",), n=n,
                            seed=seed, confidence=1 - DELTA, batch_size=10, **extra)
        path = Runner(config, tmp_path / str(seed), [_job(sampler, rendered, seed)],
                      [slot]).run()[0]
        body = json.loads(path.read_text())
        stopped_early += body["samples_recorded"] < n
        for name, value in truth.items():
            bound = body if name == "headline" else body[name]
            assert bound["method"].startswith("clopper" if mode == "fixed" else "beta")
            covered[name] += bound["lower"] <= value <= bound["upper"]
    print(f"{mode}: truth {truth}, covered {covered} of {SEEDS}, stopped early {stopped_early}")
    for name, count in covered.items():
        assert count / SEEDS >= 1 - DELTA, f"{mode} {name}: {count}/{SEEDS} covered {truth}"
    if mode == "sequential":
        assert stopped_early > 0  # the stopping rule was exercised
