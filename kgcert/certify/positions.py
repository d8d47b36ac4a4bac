"""Which option positions a model chose, against where the correct answers were.

A model that answers the same position on every prompt is right exactly when the answer sits
there, so its accuracy says nothing about reading: SmolLM2-135M answered option 3 on all 20
demo prompts and its 5 correct answers were the 5 prompts whose answer was option 3. Options
are shuffled uniformly (every setting but `baseline`), so a position-blind model picks each of
m positions with probability 1/m of its prompts, whatever it reads. The exact test below asks
whether the most chosen position is chosen more often than that allows.

Test: one-sided exact binomial test of c (choices of the most chosen position) out of N
parsed choices against p = the mean over those prompts of 1/m_i (its share under uniform
choice; a sum of Bernoulli(1/m_i) is stochastically no larger in its upper tail than the
binomial of the same mean, Hoeffding 1956), Bonferroni-multiplied by the number of positions
because the position is picked after looking. Flagged when that p-value is below 1 minus the
certificate's confidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scipy import special  # scipy.stats would add seconds to start-up

from kgcert.rundir.outcomes import GRADED

MIN_CHOICES = 5  # fewer parsed choices cannot show a position bias at usual levels


def binomial_upper_tail(count: int, trials: int, share: float) -> float:
    """P(X >= count) for X ~ Binomial(trials, share), exactly."""
    if count <= 0:
        return 1.0
    if count > trials:
        return 0.0
    return float(special.betainc(count, trials - count + 1, share))


def position_summary(records: Sequence[Mapping[str, Any]], *,
                     confidence: float) -> dict[str, Any] | None:
    """Chosen and correct positions over the answered multiple-choice prompts, with the
    degenerate-choice test; None where prompts have no numbered options."""
    answered = [r for r in records if r.get("outcome") in GRADED
                and len(r.get("prompt", {}).get("options") or ()) >= 2]
    if not answered:
        return None
    width = max(len(r["prompt"]["options"]) for r in answered)
    chosen, correct = [0] * width, [0] * width
    shares: list[float] = []
    for record in answered:
        prompt = record["prompt"]
        right = prompt.get("correct_option")
        if isinstance(right, int) and 1 <= right <= width:
            correct[right - 1] += 1
        picked = record.get("parsed_option")
        if isinstance(picked, int) and 1 <= picked <= width:
            chosen[picked - 1] += 1
            shares.append(1 / len(prompt["options"]))
    parsed = sum(chosen)
    summary: dict[str, Any] = {"options": width, "chosen": chosen, "correct": correct,
                               "answered": len(answered), "parsed": parsed, "test": None}
    shuffled = all(r.get("setting", r["prompt"].get("provenance", {}).get("setting"))
                   != "baseline" for r in answered)
    if parsed < MIN_CHOICES or not shuffled:
        return summary
    top = max(range(width), key=lambda i: (chosen[i], -i))
    share = sum(shares) / len(shares)
    p_value = min(1.0, width * binomial_upper_tail(chosen[top], parsed, share))
    alpha = 1 - confidence
    summary["test"] = {
        "position": top + 1, "chosen": chosen[top], "share": share, "p_value": p_value,
        "alpha": alpha, "degenerate": p_value < alpha,
        "method": "exact one-sided binomial test of the most chosen position against its "
                  "share under position-blind choice, Bonferroni over positions",
    }
    return summary
