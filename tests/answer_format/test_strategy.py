"""Prompting strategies: the prompt text each asks, the answer read from a reasoning reply
(after the last </reasoning>, never from a step of the reasoning), the answer room, and the
run options that choose them."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcert.answer_format.reply import (
    ANSWER_LINE,
    ANSWER_RULE,
    CLOSE,
    OPEN,
    answer_line_complete,
    answer_part,
)
from kgcert.answer_format.strategies import Strategy
from kgcert.errors import InputError
from kgcert.models.base import ModelResponse
from kgcert.prompts.budget import Budget
from kgcert.prompts.layout import Layout
from kgcert.prompts.record import Prompt, Provenance
from kgcert.prompts.setting_names import PSEUDONYMIZED, SettingParts, parse_setting, setting_name
from kgcert.run.runner import _request, score_choice
from kgcert.rundir.run_spec import RunSpec
from kgcert.tasks.scoring import exact_entity, exact_yes_no

OPTIONS = ("(drug) Donepezil", "(drug) Memantine", "(drug) Galantamine", "(drug) Rivastigmine")


def choice_prompt(correct: int = 2) -> Prompt:
    layout = Layout((), "Which drug treats both?", OPTIONS)
    provenance = Provenance(spec="s", spec_hash="h", kind="relation", seed=0, index=4,
                            setting="vanilla")
    return Prompt(layout.render(["Memantine treats dementia."]), provenance, options=OPTIONS,
                  option_ids=("a", "b", "c", "d"), correct_option=correct)


def task_prompt() -> Prompt:
    provenance = Provenance(spec="t", spec_hash="h", kind="task", seed=0, index=1,
                            setting="real", textualization="json")
    return Prompt("graph...\n\nQuestion: Is France next to Spain?\nReply with Yes or No only.\n",
                  provenance, answers=("Yes",), task="triple_retrieval")


def test_cot_and_tot_replace_the_answer_rule_and_keep_the_answer_line():
    standard = choice_prompt()
    assert standard.text.endswith(f"{ANSWER_RULE}\n{ANSWER_LINE}\n")
    for name in ("cot", "tot"):
        asked = Strategy(name, reasoning_tokens=100).apply(standard)
        assert ANSWER_RULE not in asked.text  # "begin your reply with" would contradict it
        assert asked.text.endswith(f"choosing only among the options above:\n{ANSWER_LINE}\n")
        assert OPEN in asked.text and CLOSE in asked.text
        assert asked.text.startswith(standard.text[:-len(ANSWER_RULE) - len(ANSWER_LINE) - 2])
        assert asked.provenance.extra["strategy"] == name
        assert (asked.options, asked.correct_option) == (standard.options, 2)
    tot = Strategy("tot").apply(standard).text
    assert "three different lines of reasoning" in tot
    task = Strategy("cot").apply(task_prompt())
    assert task.text.startswith(task_prompt().text)
    assert task.text.endswith(f"After {CLOSE}, give your reply exactly in the form asked above.\n")


def test_system_strategy_sends_a_system_message_and_standard_changes_nothing():
    standard = choice_prompt()
    assert Strategy().apply(standard) is standard
    asked = Strategy("system", system="You are a pharmacologist.").apply(standard)
    assert asked.text == standard.text and asked.system == "You are a pharmacologist."
    request = _request(asked, 4)
    assert request.prompt is None
    assert [(m.role, m.content) for m in request.messages] == [
        ("system", "You are a pharmacologist."), ("user", standard.text)]
    assert request.n_options == 4 and request.correct_option == 2
    assert _request(standard, 4).prompt == standard.text
    skipped = Prompt("", standard.provenance, skipped="too long")
    assert Strategy("cot").apply(skipped).skipped == "too long"
    with pytest.raises(InputError, match="needs a system prompt"):
        Strategy("system")
    with pytest.raises(InputError, match="unknown prompting strategy"):
        Strategy("few-shot")


def test_answer_part_reads_after_the_last_closing_tag():
    assert answer_part(f"{OPEN}a{CLOSE} x {OPEN}b{CLOSE}\nanswer") == ("\nanswer", None)
    part, note = answer_part(f"{OPEN}still thinking, correct answer: 3 maybe")
    assert part == "" and note is not None and "never reached" in note
    assert answer_part("correct answer: 2") == ("correct answer: 2", None)


def test_cot_reply_is_scored_on_its_final_line_not_its_reasoning():
    prompt = Strategy("cot").apply(choice_prompt(correct=2))
    score = Strategy("cot").scorer(score_choice)
    reasoning = (f"{OPEN}\nStep 1: the correct answer: 1. (drug) Donepezil, because it looked "
                 "likely, but the context says Memantine treats dementia.\n"
                 f"{CLOSE}\n")
    right = score(prompt, ModelResponse(reasoning + "correct answer: 2. (drug) Memantine, "
                                                    "because the context says so."))
    assert right["outcome"] == "correct" and right["parsed_option"] == 2
    assert right["answer_text"].startswith("correct answer: 2.")
    # The standard reading of the whole reply takes the last committed answer too, but a
    # reply that ends inside its reasoning has no answer: unparseable, not the step's option.
    cut = score(prompt, ModelResponse(reasoning.replace(CLOSE, "") + "more steps"))
    assert cut["outcome"] == "unparseable" and "never reached" in cut["parse_note"]
    plain = score(prompt, ModelResponse("correct answer: 3. (drug) Galantamine"))
    assert plain["outcome"] == "wrong" and plain["parsed_option"] == 3
    failed = score(prompt, ModelResponse.failure("timeout"))
    assert failed["outcome"] == "error"


def test_task_reply_after_reasoning_meets_the_exact_rules():
    def judge(prompt: Prompt, response: ModelResponse) -> dict[str, object]:
        exact = exact_yes_no(response.text, "Yes")
        return {"outcome": "correct" if exact else "wrong", "exact": exact}

    score = Strategy("tot").scorer(judge)
    prompt = Strategy("tot").apply(task_prompt())
    reply = f"{OPEN}Branch 1: no edge. Branch 2: borders edge, so Yes.{CLOSE}\nYes"
    assert score(prompt, ModelResponse(reply))["exact"] is True
    assert not exact_yes_no(reply, "Yes")  # the standard reading fails on the reasoning
    assert exact_entity(answer_part(f"{OPEN}Answer: Peru?{CLOSE}\nAnswer: Chile")[0],
                        ["Chile"])


def test_answer_room_and_budget_grow_with_reasoning():
    assert Strategy("standard", reasoning_tokens=300).max_new_tokens(128) == 128
    assert Strategy("system", "s", 300).max_new_tokens(128) == 128
    assert Strategy("cot", reasoning_tokens=300).max_new_tokens(128) == 428
    assert Strategy("tot", reasoning_tokens=300).max_new_tokens(128) == 728
    budget = Budget.characters(5000)
    assert Strategy().budget(budget) is budget
    cot = Strategy("cot").budget(budget)
    asked = Strategy("cot").apply(choice_prompt())
    # what the strategy adds is taken off the standard prompt's budget, so it still fits
    assert 5000 - cot.limit >= len(asked.text) - len(choice_prompt().text)
    system = Strategy("system", "x" * 100).budget(budget)
    assert system.limit == 4900
    with pytest.raises(InputError, match="longer than the prompt budget"):
        Strategy("system", "x" * 6000).budget(budget)


def test_the_stop_rule_holds_only_after_the_reasoning_closed():
    assert answer_line_complete("correct answer: 2. X, because y\n")
    assert not answer_line_complete(f"{OPEN}correct answer: 2. X, because y\n")
    assert answer_line_complete(f"{OPEN}correct answer: 2. X\n{CLOSE}\ncorrect answer: 1. Z\n")
    assert not answer_line_complete(f"{OPEN}correct answer: 2. X\n{CLOSE}\nthen\n")


def test_setting_names_round_trip():
    for parts in (SettingParts("json"), SettingParts("json", PSEUDONYMIZED, "cot"),
                  SettingParts("vanilla", strategy="system"), SettingParts("baseline")):
        assert parse_setting(parts.name) == parts
    assert setting_name("vanilla") == "vanilla"
    assert setting_name("list", PSEUDONYMIZED, "tot") == "list+pseudonymized+tot"
    assert parse_setting("odd+thing") == SettingParts("odd+thing")


def _config(**options: object) -> RunSpec:
    return RunSpec.parse(None, {"kg": "k", "specs": ("s",), "models": ("oracle",),
                                **options})


def test_run_options_choose_strategies(tmp_path: Path):
    config = _config(strategies=("standard", "cot", "tot"), reasoning_tokens=64,
                     max_new_tokens=32)
    variants = config.variants
    assert [variants.strategy(s).max_new_tokens(32) for s in variants.strategies] == [32, 96, 160]
    assert config.fingerprint() != _config().fingerprint()
    text = tmp_path / "system.txt"
    text.write_text("  Be brief.\n", encoding="utf-8")
    with_file = _config(strategies=("standard", "system"), system_prompt=f"@{text}")
    assert with_file.variants.system_prompt == "Be brief."
    assert with_file.variants.strategy("system").system == "Be brief."
    for options, message in (
        ({"strategies": ("system",)}, "needs a system prompt"),
        ({"system_prompt": "hi"}, "no strategy uses it"),
        ({"strategies": ("cot",), "mode": "choice"}, "needs --mode generate"),
        ({"strategies": ("standard", "standard")}, "named twice"),
        ({"strategies": ("fancy",)}, "unknown strategy"),
        ({"entity_names": ("fake",)}, "unknown entity names"),
        ({"strategies": ("system",), "system_prompt": f"@{tmp_path / 'nope'}"}, "not found"),
    ):
        with pytest.raises(InputError, match=message):
            _config(**options)


def test_show_prints_the_system_message():
    from kgcert.cli.runs import describe_sample

    asked = Strategy("system", system="Be exact.").apply(choice_prompt())
    record = {"index": 4, "spec": "s", "setting": "vanilla+system", "model": "oracle",
              "outcome": "correct", "prompt": asked.as_dict(), "parsed_option": 2,
              "response": {"text": "correct answer: 2"}}
    text = describe_sample(record, "f.jsonl")
    assert "--- system" in text and text.index("Be exact.") < text.index("--- prompt")
    plain = dict(record, prompt=choice_prompt().as_dict())
    assert "--- system" not in describe_sample(plain, "f.jsonl")


def test_a_system_prompt_is_read_up_to_its_cap(tmp_path: Path):
    """`--system-prompt @FILE` reads at most 64 KiB (issue 46): `@/dev/zero` or a wrong, huge
    file is refused in one line without being read whole; the cap itself is accepted."""
    from kgcert.rundir.run_file_keys import SYSTEM_PROMPT_MAX_BYTES

    fits = tmp_path / "fits.txt"
    fits.write_text("b" * SYSTEM_PROMPT_MAX_BYTES)
    read = _config(strategies=("system",), system_prompt=f"@{fits}").variants.system_prompt
    assert read is not None and len(read) == SYSTEM_PROMPT_MAX_BYTES
    big = tmp_path / "big.txt"
    big.write_text("b" * (SYSTEM_PROMPT_MAX_BYTES + 1))
    for source in (f"@{big}", "@/dev/zero", "b" * (SYSTEM_PROMPT_MAX_BYTES + 1)):
        with pytest.raises(InputError, match="over 64 KiB"):
            _config(strategies=("system",), system_prompt=source)  # /dev/zero: never ends
