"""`kgcert plan --until`: the expected calls of a comparison that stops when decided, by
simulating the run's own stopping code (kgcert.stats.racing) on guessed accuracies."""

from __future__ import annotations

from kgcert.cli.common import console
from kgcert.errors import InputError

# The simulation steps through every prompt of each simulated run, and a race between equal
# models runs to n: 10,000 takes some 30 CPU seconds with the default 2,000 runs.
PLAN_MAX_N = 10_000


def parse_accuracies(text: str | None) -> list[float]:
    if not text:
        raise InputError("--until needs --accuracies, the guessed accuracy of each model "
                         "(e.g. 0.97,0.95,0.88)")
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InputError(f"--accuracies {text!r} must be numbers separated by commas") from None
    if len(values) < 2 or any(not 0 <= v <= 1 for v in values):
        raise InputError(f"--accuracies {text!r} must name at least two accuracies in [0, 1]")
    return values


def plan_race(until: str | None, accuracies: str | None, *, n: int, confidence: float,
              margin: float | None, runs: int) -> None:
    from kgcert.stats.race_sim import simulate_race
    from kgcert.stats.racing import StopRule

    if until is None:
        raise InputError("--accuracies goes with --until ranked or --until best")
    guessed = parse_accuracies(accuracies)
    if n > PLAN_MAX_N:
        raise InputError(f"plan --until simulates every prompt of each run, up to --n; "
                         f"{n:,} is more than it simulates (at most {PLAN_MAX_N:,}): plan at "
                         f"--n {PLAN_MAX_N:,}, where a race that is decided stops as well")
    if not 0 < confidence < 1:
        raise InputError(f"--confidence must be between 0 and 1, got {confidence}")
    if margin is not None and not 0 < margin < 1:
        raise InputError(f"--margin must be between 0 and 1, got {margin}")
    rule = StopRule(n=n, until=until, confidence=confidence, margin=margin)  # type: ignore[arg-type]
    summary, _ = simulate_race(guessed, rule, runs, seed=0)
    per_model = ", ".join(f"{p:g}: {calls:.0f}" for p, calls in
                          zip(guessed, summary.calls_per_model, strict=True))
    pairs = len(guessed) * (len(guessed) - 1) // 2
    within = (f", {summary.within_pairs:.1f} within {margin}" if margin is not None else "")
    console.print(
        f"--until {until} on {len(guessed)} models at n <= {n}: expected {summary.mean_calls:.0f} "
        f"model calls per (spec, setting) ({summary.mean_drawn:.0f} prompts drawn; per model "
        f"{per_model}) against {summary.fixed_calls} with n = {n} fixed, {summary.saving:.1f}x "
        f"fewer; {summary.decided_pairs:.2f} of {pairs} pairs decided{within} on average; "
        f"any wrong claim in {summary.wrong_claims:.3f} of {runs} simulated runs (allowed "
        f"{1 - confidence:.3g}); models independent given the prompt, which gives the most "
        "discordant prompts", highlight=False)
