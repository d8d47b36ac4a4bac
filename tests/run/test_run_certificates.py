"""What a certificate says: every bound valid for how it was obtained (sequential stops,
optional continuation), valid JSON when nothing was answered, and a `guarantee` sentence that
names each conditioning that applied."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_file_keys import SequentialConfig
from kgcert.rundir.run_spec import RunSpec

OPTIONS = ("alpha", "beta", "gamma", "delta")


def _prompts(setting: str = "vanilla", *, skip: Callable[[int], bool] = lambda i: False,
             redraws: Callable[[int], int] = lambda i: 0,
             distractor: Callable[[int], bool] = lambda i: False):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0,
                                index=index, setting=setting, rejected_prompts=redraws(index),
                                distractors=("d1",) if distractor(index) else ())
        if skip(index):
            return Prompt("", provenance, skipped="the essential context does not fit")
        return Prompt(f"question {index}", provenance, options=OPTIONS,
                      option_ids=("a", "b", "c", "d"), correct_option=1 + index % 4)
    return build


class FailingEvery:
    """Fails the call at the given sample indices, answers like `inner` elsewhere (a fake
    API outage: what is tested is how the certificate counts failed calls)."""

    cacheable = False

    def __init__(self, inner: Any, failing: set[int]) -> None:
        self.inner, self.failing = inner, failing

    def identity(self) -> dict[str, Any]:
        return {"provider": "failing", "inner": self.inner.identity()}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        answers = self.inner.generate(requests, config)
        return [ModelResponse.failure("timeout") if r.sample_index in self.failing else a
                for r, a in zip(requests, answers, strict=True)]


def _slot(p: float = 0.8, failing: set[int] | None = None, **options: Any) -> ModelSlot:
    config = GenerationConfig()
    model = get_model(f"bernoulli:{p}", config, **options)
    if failing:
        model = FailingEvery(model, failing)
    return ModelSlot(f"bernoulli:{p}", model, config)


def _run(tmp_path: Path, job: Job, n: int = 40, slot: ModelSlot | None = None,
         **config: Any) -> dict[str, Any]:
    run = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.8",), n=n, **config)
    path = Runner(run, tmp_path, [job], [slot or _slot()]).run()[0]
    # strict JSON: NaN or Infinity would fail here
    return json.loads(path.read_text(), parse_constant=lambda name: pytest.fail(name))


def test_every_bound_of_a_sequential_certificate_is_anytime_valid(tmp_path: Path):
    job = Job("toy", "toy", "vanilla", _prompts())
    body = _run(tmp_path, job, n=300, slot=_slot(0.9, unparseable_rate=0.1),
                sequential=SequentialConfig(half_width=0.15), batch_size=10)
    assert body["samples_recorded"] < 300  # it stopped on the data
    assert "clopper_pearson_fixed_n" not in body
    for bound in (body, body["unparseable_excluded"], body["unconditional"]):
        assert bound["method"].startswith("beta-binomial mixture"), bound
    assert "anytime-valid" in body["guarantee"]


def test_a_fixed_n_certificate_extended_after_it_was_written_switches_to_the_sequence(
        tmp_path: Path):
    job = Job("toy", "toy", "vanilla", _prompts())
    first = _run(tmp_path, job, n=30)
    assert first["method"].startswith("clopper") and first["written_at_n"] == [30]
    again = _run(tmp_path, job, n=30)  # a resume at the same n stays fixed-n
    assert again["method"].startswith("clopper") and again["written_at_n"] == [30]
    extended = _run(tmp_path, job, n=60)
    assert extended["written_at_n"] == [30, 60]
    assert extended["validity"].startswith("anytime-valid: n or the design changed")
    assert extended["looks"]["joint_confidence"] < extended["confidence"]
    for bound in (extended, extended["unparseable_excluded"], extended["unconditional"]):
        assert bound["method"].startswith("beta-binomial mixture")


def test_all_prompts_skipped_gives_null_estimate_a_flag_and_a_warning(tmp_path: Path):
    job = Job("toy", "toy", "vanilla", _prompts(skip=lambda i: True))
    body = _run(tmp_path, job, n=10)
    assert body["n"] == 0 and body["estimate"] is None
    assert body["unconditional"]["n"] == 10 and body["unconditional"]["k"] == 0
    assert "no_answers" in body["flags"]
    assert any("no prompt was answered" in w for w in body["warnings"])
    assert "no claim" in body["guarantee"]


def test_unconditional_bound_counts_skips_and_errors_wrong(tmp_path: Path):
    job = Job("toy", "toy", "vanilla", _prompts(skip=lambda i: i % 5 == 0))
    body = _run(tmp_path, job, n=20, slot=_slot(1.0, failing={1, 2}))
    assert (body["k"], body["n"]) == (14, 14)
    assert (body["unconditional"]["k"], body["unconditional"]["n"]) == (14, 20)
    # a one-sided lower bound: its upper end would say nothing about accuracy
    assert body["unconditional"]["sided"] == "lower" and body["unconditional"]["upper"] == 1.0
    assert 0 < body["unconditional"]["lower"] < 14 / 20
    assert body["chance"] == {"options": 4, "level": 0.25, "reading": "above chance"}


def test_one_budget_for_every_model_of_the_run_the_tightest_that_fits_them_all():
    from kgcert.run.jobs import prompt_budgets

    config = RunSpec.of(kg="toy", specs=("toy",), models=("a",), max_new_tokens=36)
    small = ModelSlot("small", _LocalModel(600), GenerationConfig())  # type: ignore[arg-type]
    large = ModelSlot("large", _LocalModel(4000), GenerationConfig())  # type: ignore[arg-type]
    [(budget, names)] = prompt_budgets(config, [small, large, _slot()])
    assert names is None  # one group: every model answers the same prompts
    words = "w " * 499
    assert budget.count(words) <= budget.limit  # 499 words and 998 characters fit all
    assert budget.count(words + "w w") > budget.limit  # 501 words: over small's window
    assert budget.count("x" * 12_001) > budget.limit  # over the character part (the API)


def test_guarantee_names_each_conditioning_and_changes_when_it_applies(tmp_path: Path):
    plain = _run(tmp_path / "plain", Job("toy", "toy", "vanilla", _prompts()))
    sentence = plain["guarantee"]
    assert "seed 0" in sentence and "0 failed calls excluded" in sentence
    assert "this bound alone" in sentence and "Chance with 4 options" in sentence

    skipped = _run(tmp_path / "skip", Job("toy", "toy", "vanilla",
                                          _prompts(skip=lambda i: i == 3)))
    assert "1 of 40 drawn prompts skipped" in skipped["guarantee"]
    assert skipped["guarantee"] != sentence

    failed = _run(tmp_path / "error", Job("toy", "toy", "vanilla", _prompts()),
                  slot=_slot(failing={4, 5}))
    assert "2 failed calls excluded" in failed["guarantee"]

    redrawn = _run(tmp_path / "redraw", Job("toy", "toy", "vanilla",
                                            _prompts(redraws=lambda i: 1 if i < 10 else 0)))
    assert "10 draws refused and redrawn, acceptance rate 0.800" in redrawn["guarantee"]

    distractor = _run(tmp_path / "distractor", Job("toy", "toy", "distractor",
                                                    _prompts("distractor",
                                                             distractor=lambda i: i < 8)))
    assert "8 of 40 prompts shown held at least one distractor" in distractor["guarantee"]
    assert any("only 8 of 40" in w for w in distractor["warnings"])

    joint = _run(tmp_path / "joint", Job("toy", "toy", "vanilla", _prompts()),
                 simultaneous=True)
    assert "jointly with the other 0 headline bounds" not in joint["guarantee"]
    assert "Bonferroni" in joint["guarantee"]
    assert "covers the headline bounds only" in joint["guarantee"]


class _WordTokenizer:
    """Counts words: a stand-in tokenizer for the budget arithmetic tested here."""

    name_or_path = "words"

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[str]]:
        return {"input_ids": text.split()}


class _LocalModel:
    """Only what `prompt_budget` reads of a local model: its tokenizer and context window."""

    def __init__(self, window: int) -> None:
        self.tokenizer, self.context_limit = _WordTokenizer(), window


def test_context_tokens_caps_the_run_budget_and_each_models_own_alike():
    """The cap applies in one place (run/budget.py's capped_room) for both budget modes."""
    from kgcert.run.jobs import prompt_budgets

    large = ModelSlot("large", _LocalModel(4000), GenerationConfig())  # type: ignore[arg-type]
    small = ModelSlot("small", _LocalModel(600), GenerationConfig())  # type: ignore[arg-type]
    for budget in ("run", "per-model"):
        config = RunSpec.of(kg="toy", specs=("toy",), models=("a",), max_new_tokens=36,
                            budget=budget, context_tokens=1000)
        found = {names: (b.limit, b.unit) for b, names in prompt_budgets(config, [large])}
        assert found == {None: (1000, "tokens (words)")}, budget
        found = {names: (b.limit, b.unit) for b, names in prompt_budgets(config, [small])}
        assert found == {None: (500, "tokens (words)")}, budget  # under the cap: its window


def test_per_model_budgets_give_each_model_its_own_on_request():
    from kgcert.run.jobs import prompt_budgets

    config = RunSpec.of(kg="toy", specs=("toy",), models=("a",), max_new_tokens=36,
                        budget="per-model")
    small = ModelSlot("small", _LocalModel(600), GenerationConfig())  # type: ignore[arg-type]
    large = ModelSlot("large", _LocalModel(4000), GenerationConfig())  # type: ignore[arg-type]
    api = _slot()
    alone = {names: (b.limit, b.unit) for b, names in prompt_budgets(config, [large])}
    assert alone == {None: (4000 - 36 - 64, "tokens (words)")}
    together = {names: (b.limit, b.unit)
                for b, names in prompt_budgets(config, [small, large, api])}
    assert together == {("small",): (500, "tokens (words)"),
                        ("large",): (3900, "tokens (words)"),
                        ("bernoulli:0.8",): (12_000, "characters")}


def test_jobs_for_some_models_are_asked_of_those_only_and_counted_once(tmp_path: Path):
    config = GenerationConfig()
    slots = [ModelSlot(name, get_model("bernoulli:0.5", config), config) for name in "ab"]
    jobs = [Job("toy", "toy", "vanilla", _prompts(), models=("a",)),
            Job("toy", "toy", "vanilla", _prompts(), models=("b",))]
    run = RunSpec.of(kg="toy", specs=("toy",), models=("a", "b"), n=12, simultaneous=True)
    bodies = [json.loads(p.read_text()) for p in Runner(run, tmp_path, jobs, slots).run()]
    assert sorted(b["model"] for b in bodies) == ["a", "b"]
    assert all(b["simultaneous"]["certificates"] == 2 for b in bodies)
    assert all("jointly with the other 1 headline bound " in b["guarantee"] for b in bodies)
