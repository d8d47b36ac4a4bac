"""In the distractor setting the distractors' own sentences are essential: after the sample's
own sentences they are kept before any other context, and a prompt none of whose distractor
sentences fits is skipped as "no distractor fits" (issue 35, item 5)."""

from __future__ import annotations

from kgcert.certify.certificate import skip_cause
from kgcert.prompts.budget import Budget
from kgcert.prompts.context import (
    ESSENTIAL,
    NO_DISTRACTOR_FITS,
    OPTIONS,
    REST,
    Line,
    Tiers,
    trim,
)


def _cost(text: str) -> int:
    return Budget.characters().count(f"- {text}\n")


def _tiers() -> Tiers:
    """Tier 2 offers an option's long sentence before the distractor's own sentence (their
    places: 0 and 1), as a related option's edges may come before a distractor's."""
    tiers = Tiers()
    tiers.essential = [Line("essential.", ESSENTIAL)]
    distractor = Line("the distractor's own sentence.", OPTIONS)
    tiers.options = [Line("o" * 60, OPTIONS), distractor, Line("short option.", OPTIONS)]
    tiers.rest = [Line("filler.", REST)]
    tiers.distractors = [(1, distractor)]
    return tiers


def test_distractor_sentence_is_kept_before_earlier_context_and_stays_in_its_place():
    room = _cost("essential.") + _cost("the distractor's own sentence.") + _cost("o" * 60)
    plain = trim(Tiers(_tiers().essential, _tiers().options, _tiers().rest), room - 1, _cost)
    assert "the distractor's own sentence." not in [line.text for line in plain.lines]
    kept = trim(_tiers(), room - 1, _cost)  # the long line no longer fits beside it
    assert [line.text for line in kept.lines] == [
        "essential.", "the distractor's own sentence.", "short option.", "filler."]
    everything = trim(_tiers(), 10_000, _cost)  # nothing cut: Algorithm 7's order
    assert [line.text for line in everything.lines] == [
        "essential.", "o" * 60, "the distractor's own sentence.", "short option.", "filler."]
    assert everything.kept == {ESSENTIAL: 1, OPTIONS: 3, REST: 1}


def test_prompt_without_room_for_a_distractor_sentence_is_skipped_by_that_cause():
    room = _cost("essential.") + _cost("the distractor's own sentence.") - 1
    kept = trim(_tiers(), room, _cost)
    assert kept.lines == () and kept.skipped is not None
    assert kept.skipped.startswith(NO_DISTRACTOR_FITS)
    assert skip_cause(kept.skipped) == "no distractor fits"
    essential_only = trim(_tiers(), _cost("essential.") - 1, _cost)
    assert skip_cause(essential_only.skipped) == "budget"
