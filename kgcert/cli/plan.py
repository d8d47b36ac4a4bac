"""`kgcert plan`: how many samples a certificate needs for a target half-width."""

from __future__ import annotations

from pathlib import Path

import click

from kgcert.cli.common import Context, console
from kgcert.errors import InputError
from kgcert.util import defaults
from kgcert.util.locations import data_dir


@click.command("plan")
@click.option("--half-width", type=float, default=None,
              help="Target half-width, e.g. 0.05 (or plan a comparison with --until).")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--p", "guess", type=float, default=0.5, show_default=True,
              help="Guessed accuracy (0.5 is the worst case).")
@click.option("--simultaneous", "family", type=click.IntRange(min=1), default=1,
              show_default=True,
              help="Certificates in the run's Bonferroni family (run --simultaneous).")
@click.option("--sequential", is_flag=True,
              help="Plan for the anytime-valid sequence that run --half-width reports.")
@click.option("--kg", default=None,
              help="With --spec: measure the spec's skip rate on this KG from a probe of "
                   "drawn prompts and give the n to draw (run --n counts drawn prompts).")
@click.option("--spec", default=None, help="The spec whose skip rate the probe measures.")
@click.option("--budget", default=None,
              help="The run's budget for the probe: N characters or N:TOKENIZER tokens "
                   f"(default {defaults.CONTEXT_CHARS} characters).")
@click.option("--setting", type=click.Choice(["vanilla", "distractor"]), default="vanilla",
              show_default=True)
@click.option("--few-shot", type=int, default=defaults.FEW_SHOT, show_default=True)
@click.option("--probe", type=click.IntRange(min=10), default=100, show_default=True,
              help="Prompts drawn to measure the skip rate.")
@click.option("--specs-dir", "specs_dirs", multiple=True, type=click.Path(path_type=Path))
@click.option("--until", type=click.Choice(["ranked", "best"]), default=None,
              help="Plan a comparison that stops when decided (run --until): expected calls "
                   "by simulating the run's own stopping code.")
@click.option("--accuracies", default=None,
              help="With --until: guessed accuracies of the models, e.g. 0.97,0.95,0.88.")
@click.option("--n", "most", type=click.IntRange(min=1), default=250, show_default=True,
              help="With --until: the run's --n, the most prompts a model answers.")
@click.option("--margin", type=float, default=None,
              help="With --until: the run's --margin.")
@click.option("--runs", type=click.IntRange(min=10), default=2000, show_default=True,
              help="With --until: simulated runs.")
@click.pass_obj
def plan_command(ctx: Context, half_width: float | None, confidence: float, guess: float,
                 family: int, sequential: bool, kg: str | None, spec: str | None,
                 budget: str | None, setting: str, few_shot: int, probe: int,
                 specs_dirs: tuple[Path, ...], until: str | None, accuracies: str | None,
                 most: int, margin: float | None, runs: int) -> None:
    """How many samples a certificate needs for a target half-width.

    With --kg and --spec: how many prompts to draw for that many answers, from the spec's
    skip rate measured on a probe of drawn prompts. With --until and --accuracies: the
    expected model calls of a comparison that stops when decided."""
    from kgcert.stats import bonferroni_confidence, plan_sample_size, plan_sequential_size

    if until is not None or accuracies is not None:
        from kgcert.cli.plan_race import plan_race

        plan_race(until, accuracies, n=most, confidence=confidence, margin=margin, runs=runs)
        return
    if half_width is None:
        raise InputError("plan needs --half-width (a certificate's width) or --until with "
                         "--accuracies (a comparison's calls)")
    if not 0 < half_width < 0.5:
        raise InputError(f"--half-width must be between 0 and 0.5, got {half_width}")
    if not 0 < confidence < 1:
        raise InputError(f"--confidence must be between 0 and 1, got {confidence}")
    if not 0 <= guess <= 1:
        raise InputError(f"--p must be between 0 and 1, got {guess}")
    if (kg is None) != (spec is None):
        raise InputError("--kg and --spec go together: the probe draws the spec's prompts "
                         "on that KG")
    each = bonferroni_confidence(confidence, family)
    planner = plan_sequential_size if sequential else plan_sample_size
    plan = planner(half_width, confidence=each, p=guess)
    method = ("the anytime-valid mixture sequence" if sequential
              else "Clopper-Pearson with n fixed in advance")
    joint = (f", each of {family} certificates at {each:.6g} (Bonferroni)" if family > 1 else "")
    answered = " answered" if kg is not None else ""
    console.print(f"n = {plan.n}{answered} samples give a half-width of at most {half_width} at "
                  f"{confidence:.0%} confidence{joint} with {method}, when the accuracy is "
                  f"near {guess}", highlight=False)
    if kg is None or spec is None:
        return
    from kgcert.run.probe import draws_needed, probe_skips

    found = probe_skips(ctx.server().open(kg), kg=kg, spec=spec, budget=budget,
                        setting=setting, few_shot=few_shot, probe=probe,
                        spec_dirs=list(specs_dirs),
                        cache_dir=data_dir(ctx.data_dir) / "cache" / "specs")
    draw, upper = draws_needed(plan.n, found.skipped, found.drawn)
    causes = ", ".join(f"{count} {cause}" for cause, count in found.causes.items())
    console.print(f"the probe drew {found.drawn} prompts of {spec} at a budget of "
                  f"{found.budget} and skipped {found.skipped} ({causes or 'none'}; skip rate "
                  f"at most {upper:.3f} at 95%): draw n = {draw} (run --n {draw}) for "
                  f"{plan.n} answered", highlight=False)


COMMANDS = [plan_command]
