"""The verdict's words, flags and numbers (issue 47 items 1, 2 and 6): what the headline says
against chance or a threshold, the position-bias flag, a bound never rounded onto the level it
is read against, and a guarantee split into clauses that are its words unchanged."""

from __future__ import annotations

from typing import Any

from kgcert.certify.record import Certificate
from kgcert.report.certificate_table import guarantee_items
from kgcert.report.headline import position_flag, split_constant, verdict
from kgcert.util.numbers import bound_text, interval_text, level_text

CHANCE = {"level": 0.25, "options": 4, "reading": "above chance"}


def _cert(body: dict[str, Any]) -> Certificate:
    return Certificate.from_dict(body)


def _verdict(body: dict[str, Any], threshold: float | None) -> tuple[str, str, tuple[float, ...]]:
    return verdict(_cert(body), threshold)


def test_a_lower_bound_just_above_chance_keeps_the_digits_that_say_so():
    assert bound_text(0.2502, [0.25]) == "0.2502"
    assert bound_text(0.25002, [0.25]) == "0.25002"
    assert bound_text(0.3172, [0.25]) == "0.317"  # three decimals where they suffice
    assert interval_text(0.2502, 0.41234, [0.25]) == "[0.2502, 0.412]"
    assert level_text(0.25) == "0.25" and level_text(1 / 3) == "0.3333" and level_text(1) == "1"


def test_verdict_against_chance_in_words():
    assert _verdict({"n": 20, "lower": 0.2502, "upper": 0.6, "chance": CHANCE}, None)[:2] == (
        "above chance 0.25 (1/4)", "above")
    assert _verdict({"n": 20, "lower": 0.01, "upper": 0.2, "chance": CHANCE}, None)[:2] == (
        "below chance 0.25 (1/4)", "below")
    assert _verdict({"n": 20, "lower": 0.01, "upper": 0.3, "chance": CHANCE}, None)[:2] == (
        "cannot be told apart from chance 0.25 (1/4)", "open")
    assert _verdict({"n": 0, "lower": 0.0, "upper": 1.0}, None)[0] == (
        "no claim: no prompt was answered")
    assert _verdict({"n": 5, "lower": 0.1, "upper": 0.9}, None)[0].startswith("no chance level")


def test_verdict_against_a_sequential_runs_threshold():
    body = {"n": 40, "lower": 0.55, "upper": 0.8, "chance": CHANCE}
    assert _verdict(body, 0.5)[:2] == ("above the threshold 0.5", "above")
    assert _verdict(body, 0.6)[:2] == ("cannot tell against the threshold 0.6", "open")
    assert _verdict(body, 0.9)[:2] == ("below the threshold 0.9", "below")


def test_position_flag_names_the_degenerate_option():
    degenerate = {"positions": {"chosen": [0, 0, 20, 0], "parsed": 20, "test": {
        "degenerate": True, "position": 3, "chosen": 20}}}
    assert position_flag(_cert(degenerate)) == ("DEGENERATE: option 3 chosen on 20 of 20", True)
    fine = {"positions": {"chosen": [5, 6, 4, 5], "parsed": 20, "test": {
        "degenerate": False, "position": 2, "chosen": 6}}}
    assert position_flag(_cert(fine)) == ("none found", False)
    assert position_flag(_cert({"positions": {"chosen": [1, 0], "test": None}}))[1] is False


def test_single_valued_columns_are_said_once():
    rows = [{"model": "a", "setting": "vanilla", "run": "r"},
            {"model": "b", "setting": "vanilla", "run": "r"}]
    assert split_constant(rows, keep=("model",)) == ({"setting": "vanilla", "run": "r"},
                                                     ["model"])
    assert split_constant(rows[:1]) == ({}, ["model", "setting", "run"])  # one row: no split


def test_guarantee_clauses_are_its_words_unchanged():
    text = ("With probability at least 0.95 (this bound alone), P(correct) of model m for "
            "prompts drawn from spec s, setting vanilla, conditioned on the prompt fitting a "
            "budget (0 of 20 drawn prompts skipped) and on the model call succeeding (0 failed "
            "calls excluded), with refusals (0) and unparseable answers (0) counted wrong, lies "
            "in [0.0123, 0.3170] (k = 2, n = 20). Chance with 4 options is 0.250: cannot be "
            "told apart from chance (1/4).")
    items = guarantee_items(text)
    assert " ".join(items) == text
    assert [item.split(" ")[0] for item in items] == [
        "With", "conditioned", "and", "with", "lies", "Chance"]
