"""`kgcert plan --kg --spec --budget`: the spec's skip rate at a budget, from a probe of
drawn prompts, and the n to draw so that enough prompts are answered.

`plan` counts answered prompts, `run --n` drawn ones; a spec that skips 60% of its prompts at
a budget needs 2.5 times as many drawn. The skip rate is bounded above (Clopper-Pearson, 95%)
so the planned n falls short only rarely.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kgcert.errors import InputError
from kgcert.run.budget import run_budget
from kgcert.run.certificate import skip_cause
from kgcert.run.config import RunConfig
from kgcert.store.graph import GraphStore
from kgcert.util import defaults

SKIP_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Probe:
    drawn: int
    skipped: int
    causes: dict[str, int]
    budget: str


def probe_skips(store: GraphStore, *, kg: str, spec: str, budget: str | None, setting: str,
                few_shot: int, probe: int, spec_dirs: list[Path],
                cache_dir: Path | None) -> Probe:
    """The first `probe` prompts a run with this budget would draw (seed 0: a probe of the
    spec, not of any run's prompts), and how many of them are skipped, by cause."""
    from kgcert.run.jobs import build_jobs

    config = RunConfig(kg=kg, specs=(spec,), models=("oracle",), settings=(setting,),
                       few_shot=few_shot, budget=budget or str(defaults.CONTEXT_CHARS))
    chosen = run_budget(config, [])
    jobs = build_jobs(store, config, spec_dirs, cache_dir, [(chosen, None)])
    if not jobs:
        raise InputError(f"spec {spec} has no prompts to probe")
    reasons = [jobs[0].prompts(index).skipped for index in range(probe)]
    causes = Counter(skip_cause(reason) for reason in reasons if reason is not None)
    return Probe(probe, sum(causes.values()), dict(causes), chosen.text())


def draws_needed(answered: int, skipped: int, drawn: int) -> tuple[int, float]:
    """Prompts to draw for `answered` answers, and the skip rate's upper bound it uses."""
    from kgcert.stats import clopper_pearson

    upper = clopper_pearson(skipped, drawn, SKIP_CONFIDENCE, "upper").upper
    if upper >= 1 or skipped == drawn:
        raise InputError(f"every one of the {drawn} probed prompts was skipped at this "
                         "budget: no n would be answered; raise the budget")
    return math.ceil(answered / (1 - upper)), upper
