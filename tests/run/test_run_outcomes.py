"""Outcomes and sentences: refusals are answers counted wrong, the unconditional pair is a
one-sided lower bound, skips are named by cause, chance is never read for n = 0, the three
bounds' joint level is said, and the report states its Holm family and what its summary is."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kgcert.certify.certificate import certificate
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.bernoulli import answer_line
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_spec import RunSpec

OPTIONS = ("alpha", "beta", "gamma", "delta")


def _prompts(skip: dict[int, str] | None = None):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0,
                                index=index, setting="vanilla")
        if skip and index in skip:
            return Prompt("", provenance, skipped=skip[index])
        return Prompt(f"question {index}", provenance, options=OPTIONS,
                      option_ids=("a", "b", "c", "d"), correct_option=1 + index % 4)
    return build


class RefusesHardPrompts:
    """Declines every third prompt (a safety block that depends on the prompt), answers the
    others right: a test model, since what is tested is how the runner counts refusals."""

    cacheable = False

    def identity(self) -> dict[str, Any]:
        return {"provider": "refuses-hard"}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        return [ModelResponse("", refused="the prompt was blocked (SAFETY)")
                if r.sample_index is not None and r.sample_index % 3 == 0
                else ModelResponse(answer_line(r.correct_option or 1, r)) for r in requests]


def _certify(tmp_path: Path, model: Any, n: int, job: Job | None = None) -> dict[str, Any]:
    config = RunSpec.of(kg="toy", specs=("toy",), models=("m",), n=n)
    slot = ModelSlot("m", model, GenerationConfig())
    [path] = Runner(config, tmp_path, [job or Job("toy", "toy", "vanilla", _prompts())],
                    [slot]).run()
    return json.loads(path.read_text())


def test_a_refusal_is_an_answer_counted_wrong_never_an_error(tmp_path: Path):
    body = _certify(tmp_path, RefusesHardPrompts(), 30)
    assert body["outcomes"]["refused"] == 10 and body["outcomes"]["error"] == 0
    assert (body["k"], body["n"]) == (20, 30)  # refusals in n, as wrong
    assert body["unparseable_excluded"]["n"] == 20  # committed answers only
    assert "refusals (10) and unparseable answers (0) counted wrong" in body["guarantee"]
    samples = [json.loads(line) for line in next(tmp_path.glob("samples/**/*.jsonl"))
               .read_text().splitlines()]
    assert {s["outcome"] for s in samples if s["index"] % 3 == 0} == {"refused"}


def test_prompt_dependent_refusals_keep_the_headline_covering():
    """Refusals that depend on the prompt: the model refuses hard prompts (30%) and is right
    on 90% of the others, so P(correct) = 0.63. Counting refusals wrong, the headline covers
    it; leaving them out (as failed calls were) would certify about 0.9."""
    rng = np.random.default_rng(35)
    truth, covered, excluded_cover, reps, n = 0.7 * 0.9, 0, 0, 300, 60
    for _ in range(reps):
        hard = rng.random(n) < 0.3
        right = rng.random(n) < 0.9
        records = [{"index": i, "outcome": "refused" if hard[i] else
                    ("correct" if right[i] else "wrong")} for i in range(n)]
        body = certificate(records, confidence=0.95, context={"options": 4}).to_dict()
        covered += body["lower"] <= truth <= body["upper"]
        kept = [r for r in records if r["outcome"] != "refused"]
        old = certificate(kept, confidence=0.95, context={"options": 4}).to_dict()
        excluded_cover += old["lower"] <= truth <= old["upper"]
    assert covered / reps >= 0.95 - 3 * np.sqrt(0.05 * 0.95 / reps)
    assert excluded_cover / reps < 0.5


def test_the_unconditional_pair_is_a_one_sided_lower_bound(tmp_path: Path):
    skipped = {i: "the essential context does not fit 2750 characters" for i in range(16)}
    job = Job("toy", "toy", "vanilla", _prompts(skipped), {"options": 4})
    from kgcert.models.registry import get_model

    body = _certify(tmp_path, get_model("oracle", GenerationConfig()), 20, job)
    free = body["unconditional"]
    assert free["sided"] == "lower" and (free["k"], free["n"]) == (4, 20)
    # a statement about the distribution, not about the share of the drawn sample
    assert "Over the whole distribution, skipped prompts, failed calls, refusals and " \
        "unparseable answers counted wrong (no conditioning), the chance that a drawn " \
        f"prompt is answered correctly is at least {free['lower']:.4f}" in body["guarantee"]
    assert "of all drawn prompts" not in body["guarantee"]
    assert f"lies in [{free['lower']:.4f}" not in body["guarantee"]


def test_skips_are_named_by_cause_with_counts(tmp_path: Path):
    skipped = {0: "the essential context does not fit 700 tokens with the rest of the prompt",
               1: "only 2 answer options of type drug were found, 4 were asked for",
               2: "only 3 answer options of type drug were found, 4 were asked for",
               3: "no distractor fits the budget"}
    body = _certify(tmp_path, RefusesHardPrompts(), 12,
                    Job("toy", "toy", "vanilla", _prompts(skipped), {"budget": "700 tokens"}))
    assert body["conditioning"]["skip_causes"] == {
        "budget": 1, "too few answer options": 2, "no distractor fits": 1}
    assert ("4 of 12 drawn prompts skipped: 1 budget, 2 too few answer options, "
            "1 no distractor fits") in body["guarantee"]


def test_chance_is_never_read_for_a_certificate_without_answers(tmp_path: Path):
    skipped = dict.fromkeys(range(5), "the essential context does not fit")
    body = _certify(tmp_path, RefusesHardPrompts(), 5,
                    Job("toy", "toy", "vanilla", _prompts(skipped), {"options": 4}))
    assert body["n"] == 0 and body["chance"] is None and "Chance" not in body["guarantee"]
    records = [{"index": i, "outcome": "correct" if i % 4 == 0 else "wrong"}
               for i in range(20)]
    reading = certificate(records, confidence=0.95, context={"options": 4}).to_dict()["chance"]
    assert reading["reading"] == "cannot be told apart from chance (1/4)"


def test_the_three_bounds_say_their_joint_level(tmp_path: Path):
    body = _certify(tmp_path, RefusesHardPrompts(), 12)
    assert body["multiplicity"]["jointly_at_least"] == pytest.approx(0.85)
    assert "hold together at least 0.85" in body["guarantee"]


def test_the_report_states_its_holm_family_and_what_its_summary_is(tmp_path: Path):
    from kgcert.models.registry import get_model
    from kgcert.report import write_report

    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.5", "oracle"), n=12)
    slots = [ModelSlot(name, get_model(name, GenerationConfig()), GenerationConfig())
             for name in config.models.names]
    run = tmp_path / "run"
    jobs = [Job("toy", "toy", "vanilla", _prompts(), {"options": 4}),
            Job("empty", "empty", "vanilla", _prompts(dict.fromkeys(range(12), "no fit")),
                {"options": 4})]
    Runner(config, run, jobs, slots).run()
    report = write_report([run], tmp_path / "report", figures=False, family="run")
    page = (tmp_path / "report" / "report.html").read_text()
    assert "one Holm family: all" in page
    assert "not a confidence statement" in page
    summary = report.summary.set_index("model")
    assert int(summary.loc["oracle", "certificates"]) == 1  # the n = 0 certificate left out
    assert summary.loc["oracle", "mean_lower"] > 0.7
