"""Answer checker: real-world answer shapes, each with its expected outcome and option."""

from __future__ import annotations

import pytest

from kgcert.answer_format.checker import Outcome, check_answer, parse_answer

DRUGS = [
    "(drug) Oxaflazone",
    "(drug) Imipramine oxide",
    "(drug) Clopenthixol",
    "(drug) Methylphenidate",
]
C, W, U = Outcome.CORRECT, Outcome.WRONG, Outcome.UNPARSEABLE

# (response, expected outcome, expected parsed option); the correct option is 4.
SHAPES = [
    # the requested format and spacing variants
    ("correct answer: 4. (drug) Methylphenidate, because it treats both.", C, 4),
    ("correct answer: 3. (drug) Clopenthixol, because it is synergistic.", W, 3),
    ("correct answer:4.Methylphenidate, because", C, 4),
    ("correct answer : 4 . Methylphenidate", C, 4),
    ("Correct Answer:   4", C, 4),
    ("CORRECT ANSWER: 2", W, 2),
    ("correct answer: 4", C, 4),
    # markdown (the reference checker failed on the bold form)
    ("**Correct answer:** 4", C, 4),
    ("**correct answer: 4. Methylphenidate**, because ...", C, 4),
    ("### Correct answer\n\n4. (drug) Methylphenidate", C, 4),
    ("`correct answer: 1`", W, 1),
    ("> correct answer: _4_", C, 4),
    ("- **Correct answer**: **3**", W, 3),
    # brackets and numbering styles
    ("correct answer: (4) Methylphenidate", C, 4),
    ("correct answer: [4]", C, 4),
    ("correct answer: {4}", C, 4),
    ("correct answer: 4) Methylphenidate", C, 4),
    ("correct answer: option 4", C, 4),
    ("correct answer: Option #2", W, 2),
    ("correct answer: no. 4", C, 4),
    ("The correct answer is 4.", C, 4),
    ("The correct answer is: 1. (drug) Oxaflazone", W, 1),
    ("correct answer - 4", C, 4),
    ("correct answer = 4", C, 4),
    ("correct_answer: 4", C, 4),
    ("Correct answer：４．Methylphenidate", C, 4),  # full-width colon and digit
    # other answer words
    ("Answer: 4", C, 4),
    ("Final answer: 2", W, 2),
    ("The answer is 4. Methylphenidate", C, 4),
    ("Therefore, the correct option is 4.", C, 4),
    ("So the answer is \\boxed{4}.", C, 4),
    ('{"correct answer": 4, "reason": "..."}', C, 4),
    ('{"answer": "3"}', W, 3),
    ("correct answer: four", C, 4),
    ("correct answer: (D)", C, 4),
    ("correct answer: B)", W, 2),
    # option text instead of a number
    ("correct answer: Methylphenidate, because it is indicated.", C, 4),
    ("correct answer: (drug) Clopenthixol", W, 3),
    ("Correct answer: imipramine oxide because ...", W, 2),
    ("Methylphenidate", C, 4),
    # number wins over text (as in the paper), out-of-range numbers are wrong
    ("correct answer: 3. (drug) Methylphenidate, because", W, 3),
    ("correct answer: 7. Something else", W, 7),
    # the last committed answer counts, not an intermediate one
    (
        "correct answer: 2. Imipramine\nWait, that is wrong.\ncorrect answer: 4. Methylphenidate",
        C,
        4,
    ),
    ("correct answer: 4\nOn reflection, correct answer: 1", W, 1),
    ("Let me think. Option 2 looks plausible.\ncorrect answer: 4", C, 4),
    ("correct answer: 4. Methylphenidate, because the correct answer is not 3.", C, 4),
    # format echoed back before the real answer
    (
        "The format is correct answer: <option_number>. <answer>, because <succinct reason>\n"
        "correct answer: 4. Methylphenidate, because ...",
        C,
        4,
    ),
    ("correct answer:\n\n4. Methylphenidate", C, 4),
    ("An incorrect answer: 2. Imipramine oxide\ncorrect answer: 4", C, 4),
    ("Answer: 4. Methylphenidate\nThe incorrect answer would be 3.", C, 4),
    # bare answers without a marker
    ("4", C, 4),
    ("(2)", W, 2),
    ("4. Methylphenidate", C, 4),
    # unparseable: nothing, garbage, hedging, several options, reasoning lists, placeholders
    ("", U, None),
    ("   \n  ", U, None),
    ("asdf qwerty zxcv", U, None),
    ("I cannot determine the answer from the context.", U, None),
    ("correct answer: 2 or 4", U, None),
    ("correct answer: 3/4", U, None),
    ("correct answer: <option_number>. <answer>, because <succinct reason>", U, None),
    ("1. First, find the drug.\n2. Then check its side effects.", U, None),
    ("correct answer: none of the options", U, None),
    ("<|im_end|>", U, None),
]


@pytest.mark.parametrize(("response", "outcome", "option"), SHAPES)
def test_answer_shapes(response: str, outcome: Outcome, option: int | None) -> None:
    result = check_answer(response, DRUGS, correct=4)
    assert result.outcome is outcome, (response, result)
    assert result.option == option, (response, result)


def test_at_least_thirty_shapes() -> None:
    assert len(SHAPES) >= 30


def test_error_is_never_wrong() -> None:
    result = check_answer("correct answer: 4", DRUGS, correct=4, error="HTTP 500 after 5 tries")
    assert result.outcome is Outcome.ERROR
    assert "500" in result.note


def test_none_response_is_unparseable() -> None:
    assert check_answer(None, DRUGS, correct=1).outcome is Outcome.UNPARSEABLE


def test_longest_option_text_wins() -> None:
    options = ["diabetes", "diabetes mellitus", "obesity", "type 2 diabetes mellitus"]
    assert check_answer("correct answer: diabetes mellitus", options, 2).outcome is C
    assert check_answer("correct answer: diabetes, because", options, 1).outcome is C
    assert check_answer("correct answer: Type 2 Diabetes Mellitus.", options, 4).outcome is C


def test_option_text_that_starts_with_a_number_word_or_letter() -> None:
    options = ["a priori", "one piece", "beta", "gamma"]
    assert parse_answer("correct answer: one piece", options).option == 2  # type: ignore[union-attr]
    assert parse_answer("correct answer: a priori", options).option == 1  # type: ignore[union-attr]


def test_note_when_text_names_another_option() -> None:
    result = check_answer("correct answer: 3. (drug) Methylphenidate", DRUGS, correct=4)
    assert result.outcome is W and "option 4" in result.note


def test_out_of_range_note() -> None:
    result = check_answer("correct answer: 9", DRUGS, correct=4)
    assert result.outcome is W and "not among 1..4" in result.note


def test_bad_correct_option_rejected() -> None:
    with pytest.raises(ValueError):
        check_answer("correct answer: 1", DRUGS, correct=5)
