"""Chosen against correct option positions in certificates, with the exact test that flags a
model whose choices are degenerate (issue 32 item 1), and choice probabilities kept in the
sample records."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from kgcert.certify.positions import binomial_upper_tail, position_summary
from kgcert.models.base import GenerationConfig, ModelResponse
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_spec import RunSpec


def record(chosen: int | None, correct: int, options: int = 4,
           setting: str = "distractor") -> dict[str, Any]:
    outcome = ("unparseable" if chosen is None else "correct" if chosen == correct else "wrong")
    return {"outcome": outcome, "setting": setting, "parsed_option": chosen,
            "prompt": {"options": [f"o{i}" for i in range(options)], "correct_option": correct}}


@pytest.mark.parametrize(("count", "trials", "share"),
                         [(0, 5, 0.3), (1, 1, 0.25), (7, 20, 0.25), (20, 20, 0.25), (3, 9, 0.5)])
def test_the_binomial_tail_is_exact(count: int, trials: int, share: float):
    exact = sum(math.comb(trials, k) * share**k * (1 - share) ** (trials - k)
                for k in range(count, trials + 1))
    assert binomial_upper_tail(count, trials, share) == pytest.approx(exact, rel=1e-12)


def test_a_model_that_always_answers_option_3_is_flagged():
    """The demo's pattern: 20 prompts, answers spread over 4 positions, option 3 every time."""
    records = [record(3, i % 4 + 1) for i in range(20)]
    summary = position_summary(records, confidence=0.95)
    assert summary is not None
    assert summary["chosen"] == [0, 0, 20, 0] and summary["correct"] == [5, 5, 5, 5]
    test = summary["test"]
    assert test["position"] == 3 and test["degenerate"]
    assert test["p_value"] == pytest.approx(4 * 0.25**20)


def test_choices_that_follow_the_answers_are_not_flagged():
    records = [record(i % 4 + 1, i % 4 + 1) for i in range(40)]
    records += [record(None, 2), record(2, 1)]
    summary = position_summary(records, confidence=0.95)
    assert summary is not None
    assert summary["parsed"] == 41 and summary["answered"] == 42
    assert summary["chosen"] == [10, 11, 10, 10]
    assert not summary["test"]["degenerate"] and summary["test"]["p_value"] > 0.5


def test_unshuffled_and_optionless_prompts_are_not_tested():
    baseline = [record(1, 1, setting="baseline") for _ in range(30)]
    summary = position_summary(baseline, confidence=0.95)
    assert summary is not None and summary["test"] is None and summary["chosen"][0] == 30
    task = [{"outcome": "correct", "prompt": {"options": []}, "setting": "vanilla"}]
    assert position_summary(task, confidence=0.95) is None


class _Fixed:
    """Always answers option 3, with the probabilities a choice-mode model reports."""

    name = "fixed"
    cacheable = False
    config = None

    def identity(self) -> dict[str, Any]:
        return {"provider": "fixed"}

    def close(self) -> None:
        pass

    def generate(self, requests, config=None) -> list[ModelResponse]:
        return [ModelResponse(text="correct answer: 3. o2", choice_probs=(0.1, 0.2, 0.6, 0.1))
                for _ in requests]


def test_a_run_certifies_positions_and_keeps_choice_probabilities(tmp_path: Path):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="h", kind="relation", seed=0, index=index,
                                setting="vanilla", nodes={"a": "e0"}, edges=(),
                                extra={"option_roles": ["random"] * 4})
        correct = index % 4 + 1
        return Prompt(f"Question {index}?", provenance, options=("o0", "o1", "o2", "o3"),
                      option_ids=("e0", "e1", "e2", "e3"), correct_option=correct,
                      answer_id=f"e{correct - 1}")

    config = RunSpec.of(kg="toy", specs=("toy",), models=("fixed",), n=24)
    Runner(config, tmp_path / "run", [Job("toy", "h", "vanilla", build)],
           [ModelSlot("fixed", _Fixed(), GenerationConfig())]).run()  # type: ignore[arg-type]
    [path] = (tmp_path / "run" / "certificates").glob("*.json")
    body = json.loads(path.read_text())
    assert body["k"] == 6  # right exactly where the answer was option 3
    assert body["positions"]["chosen"] == [0, 0, 24, 0]
    assert body["positions"]["correct"] == [6, 6, 6, 6]
    assert "degenerate_choices" in body["flags"]
    assert any("degenerate choices: option 3 chosen on 24 of 24" in w for w in body["warnings"])
    [samples] = (tmp_path / "run" / "samples").rglob("*.jsonl")
    first = json.loads(samples.read_text().splitlines()[0])
    assert first["response"]["choice_probs"] == [0.1, 0.2, 0.6, 0.1]
