"""`kgcert plan`: how many samples a certificate needs for a target half-width."""

from __future__ import annotations

from pathlib import Path

import click

from kgcert import defaults
from kgcert.cli.common import Context, console
from kgcert.config import data_dir
from kgcert.errors import InputError


@click.command("plan")
@click.option("--half-width", type=float, required=True, help="Target half-width, e.g. 0.05.")
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
@click.pass_obj
def plan_command(ctx: Context, half_width: float, confidence: float, guess: float, family: int,
                 sequential: bool, kg: str | None, spec: str | None, budget: str | None,
                 setting: str, few_shot: int, probe: int,
                 specs_dirs: tuple[Path, ...]) -> None:
    """How many samples a certificate needs for a target half-width.

    With --kg and --spec: how many prompts to draw for that many answers, from the spec's
    skip rate measured on a probe of drawn prompts."""
    from kgcert.stats import bonferroni_confidence, plan_sample_size, plan_sequential_size

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
