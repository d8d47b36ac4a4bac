"""A probe of a spec's drawn prompts at a budget: how many are skipped, by cause, and in the
distractor setting how many questions have distractor candidates and how many prompts keep a
distractor sentence.

`kgcert plan --kg --spec --budget` gives the n to draw from the skip rate: `plan` counts
answered prompts, `run --n` drawn ones; a spec that skips 60% of its prompts at a budget
needs 2.5 times as many drawn. The skip rate is bounded above (Clopper-Pearson, 95%) so the
planned n falls short only rarely. `kgcert specs count` and `specs validate` report the
distractor shares.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kgcert.certify.certificate import skip_cause
from kgcert.errors import InputError
from kgcert.run.budget import run_budget
from kgcert.rundir.run_spec import RunSpec
from kgcert.store.graph import GraphStore
from kgcert.util import defaults

SKIP_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Probe:
    drawn: int
    skipped: int
    causes: dict[str, int]
    budget: str
    with_candidates: int = 0  # distractor setting: questions with distractor candidates
    holding: int = 0  # distractor setting: prompts whose context keeps a distractor sentence

    def distractor_shares(self) -> str:
        """The distractor setting's two shares, in words."""
        return (f"{self.with_candidates / self.drawn:.0%} of {self.drawn} drawn questions have "
                "Definition 2.3 distractor candidates and "
                f"{self.holding / self.drawn:.0%} of their distractor-setting prompts keep "
                f"a distractor at a budget of {self.budget}")

    def as_dict(self) -> dict[str, object]:
        return {"probe": self.drawn, "budget": self.budget, "skipped": self.skipped,
                "skip_causes": self.causes,
                "with_distractor_candidates": self.with_candidates / self.drawn,
                "keeping_a_distractor": self.holding / self.drawn}


def probe_skips(store: GraphStore, *, kg: str, spec: str, budget: str | None, setting: str,
                few_shot: int, probe: int, spec_dirs: list[Path],
                cache_dir: Path | None) -> Probe:
    """The first `probe` prompts a run with this budget would draw (seed 0: a probe of the
    spec, not of any run's prompts), how many of them are skipped, by cause, and (distractor
    setting) how many have distractor candidates and how many keep a distractor."""
    from kgcert.run.jobs import build_jobs

    run = RunSpec.of(kg=kg, specs=(spec,), models=("oracle",), settings=(setting,),
                     few_shot=few_shot, budget=budget or str(defaults.CONTEXT_CHARS))
    chosen = run_budget(run, [])
    jobs = build_jobs(store, run, spec_dirs, cache_dir, [(chosen, None)])
    if not jobs:
        raise InputError(f"spec {spec} has no prompts to probe")
    prompts = [jobs[0].prompts(index) for index in range(probe)]
    causes = Counter(skip_cause(p.skipped) for p in prompts if p.skipped is not None)
    return Probe(probe, sum(causes.values()), dict(causes), chosen.text(),
                 with_candidates=sum(
                     bool(p.provenance.extra.get("distractor_candidates")) for p in prompts),
                 holding=sum(bool(p.provenance.distractors) for p in prompts))


def draws_needed(answered: int, skipped: int, drawn: int) -> tuple[int, float]:
    """Prompts to draw for `answered` answers, and the skip rate's upper bound it uses."""
    from kgcert.stats import clopper_pearson

    upper = clopper_pearson(skipped, drawn, SKIP_CONFIDENCE, "upper").upper
    if upper >= 1 or skipped == drawn:
        raise InputError(f"every one of the {drawn} probed prompts was skipped at this "
                         "budget: no n would be answered; raise the budget")
    return math.ceil(answered / (1 - upper)), upper
