"""Prompt pieces without a graph server: few-shot examples, layout, budgets, trimming,
options, distractor weights, redraw seeds."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgcert.answer_format.checker import Outcome, check_answer
from kgcert.answer_format.reply import ANSWER_LINE
from kgcert.errors import InputError
from kgcert.graphview import Fact
from kgcert.prompts import Budget, redraw_seed
from kgcert.prompts.context import ESSENTIAL, OPTIONS, REST, CharacterCost, Line, Tiers, trim
from kgcert.prompts.distractors import Distractor, weighted_order
from kgcert.prompts.fewshot import PATH, RELATION, Example, examples, solve
from kgcert.prompts.layout import LINE_OVERHEAD, Layout, render_example
from kgcert.prompts.options import OptionPools, choose_options

ALL_EXAMPLES = [*RELATION, *PATH]


# -- few-shot examples ----------------------------------------------------------------------


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda e: e.question[:40])
def test_example_states_the_one_correct_option(example: Example):
    answers = solve(example)
    assert answers == {example.answer_text}, (
        f"the facts answer {sorted(answers)}, the example states option {example.answer} "
        f"({example.answer_text})")
    assert len(set(example.options)) == len(example.options)
    assert 1 <= example.answer <= len(example.options)


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda e: e.question[:40])
def test_example_reply_is_read_by_the_checker_as_its_option(example: Example):
    rendered = render_example(1, example)
    reply = rendered.splitlines()[-1]
    assert reply.startswith(f"correct answer: {example.answer}. {example.answer_text}, because ")
    result = check_answer(reply, example.options, example.answer)
    assert result.outcome is Outcome.CORRECT
    for sentence in example.sentences():  # the context it reasons from is shown
        assert f"- {sentence}\n" in rendered


def test_solver_sees_a_wrong_option_number():
    """The check above can fail: an example stating the wrong option is caught."""
    good = RELATION[0]
    wrong = Example(good.facts, good.question, good.pattern, good.options,
                    good.answer % len(good.options) + 1, good.reason)
    assert solve(wrong) != {wrong.answer_text}


def test_examples_are_counted_and_bounded():
    assert len(RELATION) == len(PATH) == 5
    assert examples("relation", 0) == ()
    assert examples("entity", 3) == PATH[:3]
    assert examples("relation", 5) == RELATION
    with pytest.raises(ValueError):
        examples("relation", 6)


def test_answers_spread_over_option_numbers():
    """Few-shot answers that were always option 1 would teach a position bias."""
    for group in (RELATION, PATH):
        assert len({e.answer for e in group}) >= 3


# -- layout ---------------------------------------------------------------------------------


def test_each_context_line_costs_its_length_plus_three_characters():
    layout = Layout(RELATION[:2], "Which drug?", ("A", "B", "C", "D"), ("\"x\" refers to y.",))
    lines = ["First sentence.", "A second, longer sentence."]
    empty = layout.render([])
    full = layout.render(lines)
    assert len(full) == len(empty) + sum(len(s) + LINE_OVERHEAD for s in lines)
    assert full.rstrip().endswith(ANSWER_LINE)
    assert "1. A\n2. B\n3. C\n4. D\n" in full


def test_path_layout_explains_the_arrow_form():
    plain = Layout((), "q", ("a", "b")).render([])
    chain = Layout((), "q", ("a", "b"), path_query=True).render([])
    assert "->" not in plain and "chain" in chain


# -- budgets and trimming -------------------------------------------------------------------


def _tiers() -> Tiers:
    tiers = Tiers()
    tiers.essential = [Line("essential one.", ESSENTIAL), Line("essential two.", ESSENTIAL)]
    tiers.options = [Line("option sentence.", OPTIONS), Line("essential one.", OPTIONS)]
    tiers.rest = [Line("r" * 40, REST), Line("short.", REST), Line("short.", REST)]
    return tiers


def test_trim_keeps_essential_whole_then_fills_greedily_without_repeats():
    cost = Budget.characters().count
    room = sum(cost(f"- {t}\n") for t in ("essential one.", "essential two.",
                                           "option sentence.", "short."))
    kept = trim(_tiers(), room, lambda t: cost(f"- {t}\n"))
    assert kept.skipped is None
    assert [line.text for line in kept.lines] == ["essential one.", "essential two.",
                                                  "option sentence.", "short."]
    assert kept.kept == {ESSENTIAL: 2, OPTIONS: 1, REST: 1}


def test_trim_skips_when_the_essential_sentences_do_not_fit():
    kept = trim(_tiers(), 20, lambda t: len(t) + 3)
    assert kept.skipped is not None and "essential" in kept.skipped
    assert kept.lines == ()


def _greedy(tiers: Tiers, room: int, cost, write) -> tuple[list[Line], int]:
    """Algorithm 7's pass as the module docstring states it, a line at a time: tier 1 whole,
    the distractor sentences, then tiers 2 and 3, each line kept when new and when it fits;
    the distractor sentences placed among tier 2's kept lines."""
    seen: set[str] = set()
    kept: list[Line] = []
    used = 0
    for line in tiers.essential:
        if line.text not in seen:
            seen.add(line.text)
            kept.append(line)
            used += cost(line.text)
    first = []
    for place, line in tiers.distractors:
        if line.text not in seen and used + cost(line.text) <= room:
            seen.add(line.text)
            first.append((place, line))
            used += cost(line.text)
    for tier, entries in ((OPTIONS, tiers.options), (REST, tiers.rest)):
        placed = []
        for place, entry in enumerate(entries):
            line = Line(write(entry), tier, entry) if isinstance(entry, Fact) else entry
            if line.text not in seen and used + cost(line.text) <= room:
                seen.add(line.text)
                placed.append((place, line))
                used += cost(line.text)
        if tier == OPTIONS:
            placed = sorted([*placed, *first], key=lambda pair: pair[0])
        kept.extend(line for _, line in placed)
    return kept, used


_WORDS = st.sampled_from(["alpha", "beta", "gamma", "a", "bb", "delta epsilon"])
_ENTRY = st.one_of(st.builds(lambda w: Line(w, "?"), _WORDS),
                   st.builds(lambda s, t: Fact(s, "treats", t), _WORDS, _WORDS))


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=3), st.lists(_ENTRY, max_size=8),
       st.lists(_ENTRY, max_size=8), st.lists(st.integers(0, 7), max_size=2, unique=True),
       st.integers(0, 160), st.booleans())
def test_trim_keeps_what_the_line_by_line_greedy_pass_keeps(
        essential, options, rest, distractor_places, room, characters):
    """Tiers 2 and 3 are written whole first and kept at once when all fit: the same lines,
    in the same order, as the pass a line at a time, with repeats, overflow and distractor
    sentences, under a character cost and under another."""
    tiers = Tiers(essential=[Line(text, ESSENTIAL) for text in essential],
                  options=[e._replace(tier=OPTIONS) if isinstance(e, Line) else e
                           for e in options],
                  rest=[e._replace(tier=REST) if isinstance(e, Line) else e for e in rest])
    tiers.distractors = [(place, Line(f"distractor {place}.", OPTIONS))
                         for place in sorted(distractor_places) if place < len(options)]
    cost = CharacterCost(LINE_OVERHEAD) if characters else (lambda text: 2 * len(text) + 1)

    def write(fact: Fact) -> str:
        return f"{fact.source} treats {fact.target}."

    trimmed = trim(tiers, room, cost, write)
    lines, _ = _greedy(tiers, room, cost, write)
    if trimmed.skipped is None:
        assert list(trimmed.lines) == lines
        assert sum(trimmed.kept.values()) == len(lines)


def test_budget_from_a_real_hf_tokenizer_counts_tokens():
    pytest.importorskip("tokenizers")
    pytest.importorskip("transformers")
    from kgcert.models.testing import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    budget = Budget.from_hf_tokenizer(tokenizer, 500, reserve=100)
    text = "Donepezil is an approved treatment for Alzheimer disease."
    assert budget.limit == 400 and not budget.exact
    assert budget.count(text) == len(tokenizer.encode(text, add_special_tokens=False))
    assert 0 < budget.count(text) < len(text)
    with pytest.raises(InputError):
        Budget.from_hf_tokenizer(tokenizer, 10, reserve=10)


def test_budget_refuses_a_non_positive_limit():
    with pytest.raises(InputError):
        Budget.characters(0)


# -- options --------------------------------------------------------------------------------


NAMES = {"ans": "Answer", "alt": "Also right", "d1": "Decoy", "p1": "Path node",
         "r1": "Related one", "r2": "Related two", "r3": "decoy", "x1": "Other type",
         "q": "Named in question", "z1": "Random one", "z2": "Random two"}
LABELS = {key: ("disease" if key == "x1" else "drug") for key in NAMES}


def _options(pools: OptionPools, count: int = 4, seed: int = 0, shuffle: bool = True):
    return choose_options("ans", ["ans", "alt"], pools, count, np.random.default_rng(seed),
                          name=NAMES.__getitem__, label=LABELS.__getitem__, excluded=["q"],
                          shuffle=shuffle)


def test_options_follow_algorithm_5_and_refuse_correct_and_ambiguous_candidates():
    pools = OptionPools(distractors=["alt", "d1"], path=["q", "x1", "p1"],
                        related=["r3", "r1", "r2", "alt"], random=lambda: iter(["z1"]))
    for seed in range(20):
        options = _options(pools, seed=seed)
        roles = {o.id: o.role for o in options}
        assert len(options) == 4
        assert sum(o.id in ("ans", "alt") for o in options) == 1 and roles["ans"] == "answer"
        assert roles["d1"] == "distractor" and roles["p1"] == "path"
        assert "x1" not in roles and "q" not in roles  # other type; named in the question
        assert "r3" not in roles  # its name equals the distractor's, ignoring case
        assert {o.id for o in options} & {"r1", "r2"}


def test_options_fall_back_to_random_entities_and_may_come_short():
    pools = OptionPools(related=["r1"], random=lambda: iter(["z1", "z1", "z2"]))
    options = _options(pools)
    assert sorted(o.id for o in options) == ["ans", "r1", "z1", "z2"]
    assert len(_options(OptionPools(related=["r1"]))) == 2


def test_a_related_pool_given_as_a_function_is_listed_only_when_the_options_are_short():
    calls = []

    def related() -> list[str]:
        calls.append(1)
        return ["r1", "r2", "p1"]

    full = OptionPools(distractors=["d1", "r1", "r2"], related=related)
    assert [o.role for o in _options(full, shuffle=False)] == ["answer", *["distractor"] * 3]
    assert not calls
    for seed in range(10):  # listed when needed, and the same options as the list itself
        short = _options(OptionPools(distractors=["d1"], related=related), seed=seed)
        assert short == _options(OptionPools(distractors=["d1"], related=related()), seed=seed)
    assert calls


def test_option_order_is_shuffled_by_the_generator():
    pools = OptionPools(related=["r1", "r2", "p1", "d1"])
    positions = Counter(next(i for i, o in enumerate(_options(pools, seed=s)) if o.id == "ans")
                        for s in range(400))
    assert set(positions) == {0, 1, 2, 3}
    assert min(positions.values()) > 60


# -- distractor weights ---------------------------------------------------------------------


def test_weighted_order_draws_in_proportion_to_the_weights():
    candidates = [(Distractor(name, "0", "1", ()), weight)
                  for name, weight in (("a", 1.0), ("b", 2.0), ("c", 3.0))]
    rng = np.random.default_rng(5)
    counts = Counter(weighted_order(candidates, 1, rng)[0].id for _ in range(6000))
    for name, weight in (("a", 1), ("b", 2), ("c", 3)):
        assert abs(counts[name] / 6000 - weight / 6) < 0.03
    drawn = weighted_order(candidates, 5, rng)
    assert sorted(d.id for d in drawn) == ["a", "b", "c"]


def test_redraw_seeds_are_distinct_and_keep_attempt_zero():
    assert redraw_seed(7, 0) == 7
    seeds = {redraw_seed(7, k) for k in range(1, 200)}
    assert len(seeds) == 199 and all(0 <= s < 2**63 for s in seeds)
    assert redraw_seed(7, 1) != redraw_seed(8, 1)


def test_prompt_as_dict_is_asdicts_without_sharing_containers():
    from dataclasses import asdict

    from kgcert.prompts.record import Prompt, Provenance

    provenance = Provenance("s", "h", "relation", 0, 3, "vanilla", nodes={"a": "x"},
                            edges=(("x", "r", "y"),), aliases={"x": "X"}, distractors=("z",),
                            extra={"context_edges": ["x|r|y"], "nested": {"k": [1, (2, 3)]},
                                   "none": None, "flag": True, "ratio": 0.5})
    prompt = Prompt("text", provenance, options=("A", "B"), option_ids=("x", "z"),
                    correct_option=1, answer_id="x")
    expected = asdict(prompt)
    expected["provenance"] = asdict(provenance) | {"edges": [["x", "r", "y"]],
                                                   "distractors": ["z"]}
    expected |= {"options": ["A", "B"], "option_ids": ["x", "z"], "answers": []}
    data = prompt.as_dict()
    assert data == expected
    # in the fields' order (`kgcert prompts --json` writes the keys as they come)
    assert list(data) == list(expected)
    assert list(data["provenance"]) == list(expected["provenance"])
    data["provenance"]["extra"]["nested"]["k"].append(4)
    data["provenance"]["nodes"]["b"] = "y"
    assert provenance.extra["nested"]["k"] == [1, (2, 3)] and provenance.nodes == {"a": "x"}


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet="ab _-.é1Ⅻ\u0301", max_size=12),
       words=st.text(alphabet="ab _-.é1Ⅻ\u0301", max_size=4))
def test_whole_word_test_agrees_with_the_regex_it_replaced(text: str, words: str):
    """The alias note's whole-word test without a regex: the same answer as
    `(?<!\\w)words(?!\\w)`, empty words, accents, combining marks, digits and numerals
    included."""
    import re

    from kgcert.prompts.query import _has_word

    pattern = rf"(?<!\w){re.escape(words)}(?!\w)"
    assert _has_word(text, words) == bool(re.search(pattern, text))


# -- sentence forms and filler keys ---------------------------------------------------------


@pytest.mark.parametrize("template", [
    "{source} treats {target}.", "{target} is treated by {source}", "{source}{target}",
    "x {source} {{y}} {target} z", "}}{{{source}}}{target}{{", "{source} {source} {target}",
    "{source:>9} {target}", "{source!r} {target}", "{0} {target}", "{source} {other}",
    "{source", "", "{source[0]} {target}", "{target} only",
])
@pytest.mark.parametrize("relation", ["treats", "r{x}", "a}}b{"])
def test_sentence_forms_write_what_str_format_writes(template: str, relation: str):
    from kgcert.graphview.sentences import GENERIC_TEMPLATE, sentence_form

    form = sentence_form(template, relation)
    for source, target in (("Aspirin", "pain"), ("", "q"), ("{a}", "}b{")):
        if isinstance(form, tuple):
            before, between, after, source_first = form
            first, second = (source, target) if source_first else (target, source)
            written = before + first + between + second + after
        else:
            written = form.write(source, target)
        try:
            expected = template.format(source=source, target=target) if template else None
        except (KeyError, IndexError, ValueError):
            expected = None
        if expected is None:
            expected = GENERIC_TEMPLATE.format(source=source, target=target, relation=relation)
        assert written == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=60), st.lists(st.integers(0, 30), max_size=10))
def test_first_fresh_keeps_each_unused_key_at_its_first_place(keys: list[int], used: list[int]):
    from kgcert.prompts import filler

    seen = set(used)
    expected = []
    for key in keys:
        expected.append(key not in seen)
        seen.add(key)
    hashed_from = filler.HASHED_FROM
    try:
        for filler.HASHED_FROM in (0, 10 ** 9):  # the hash table's way, then the sorts'
            mask = filler.first_fresh(np.array(keys, dtype=np.int64),
                                      np.array(used, dtype=np.int64))
            assert mask.tolist() == expected
    finally:
        filler.HASHED_FROM = hashed_from


def test_the_array_engine_prepares_what_its_hub_prompts_import():
    """The array tier engine's preparation imports the hash table `first_fresh` uses on a hub
    prompt's keys (pandas), so a run's loop does not pay it on its first hub prompt; the
    reference engine's imports nothing (in a fresh interpreter: this one may hold pandas)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import json, sys\n"
            "from kgcert.prompts.tiers import ArrayTiers, FactTiers\n"
            "before = 'pandas' in sys.modules\n"
            "FactTiers.prepare()\n"
            "reference = 'pandas' in sys.modules\n"
            "ArrayTiers.prepare()\n"
            "print(json.dumps([before, reference, 'pandas' in sys.modules]))\n")
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120, cwd=root,
                          env={**os.environ, "PYTHONPATH": root})
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, False, True]
