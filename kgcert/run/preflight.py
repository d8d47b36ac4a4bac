"""Warnings before a run asks any model: a spec with fewer matches than `--n` (its prompts
repeat: draws are IID, with replacement) or whose questions have no Definition 2.3 distractor
candidates while the run asks for the distractor setting (its prompts would hold none)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kgcert.run.config import RunConfig
from kgcert.store.graph import GraphStore

DRAWS = 20  # questions drawn per spec to look for distractor candidates


def preflight_warnings(store: GraphStore, config: RunConfig, spec_dirs: Iterable[Path],
                       cache_dir: Path | None) -> list[str]:
    from kgcert.specs import RelationSampler, find_spec, prepare_sampler
    from kgcert.specs.answer_stats import answer_stats

    found = []
    for name in config.specs:
        spec = find_spec(name, spec_dirs).spec
        if spec.kind != "relation":
            continue
        sampler = prepare_sampler(spec, store, cache_dir)  # cached: build_jobs made it
        assert isinstance(sampler, RelationSampler)
        matches = sampler.count().matches
        if matches is not None and config.n > matches:
            found.append(f"{spec.name}: --n {config.n} exceeds its {matches:,} matches in "
                         f"{config.kg}: prompts repeat (draws are with replacement), and the "
                         "bounds are about this small distribution")
        if "distractor" in config.settings:
            share = answer_stats(sampler, store, DRAWS, seed=config.seed).with_distractors
            if share == 0:
                found.append(f"{spec.name}: none of {DRAWS} drawn questions has a "
                             "Definition 2.3 distractor candidate, so the distractor setting "
                             "would hold none (it certifies what vanilla does)")
    return found
