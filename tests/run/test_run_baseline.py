"""The paper's static baseline: fixed names, first template, no shuffling, no distractors,
its own sample count, reported beside the certificates."""

from __future__ import annotations

import json
from pathlib import Path

from kgcert.run.jobs import build_jobs, build_models
from kgcert.run.runner import Runner
from kgcert.rundir.run_spec import RunSpec


def test_baseline_prompts_are_static_and_certified_apart(alzheimer_kg, tmp_path: Path):
    alz_store = alzheimer_kg.store
    config = RunSpec.of(kg=alzheimer_kg.name, specs=("primekg.exposure_drug",),
                        models=("bernoulli:0.9",), settings=("vanilla",), n=12, baseline=5)
    jobs = build_jobs(alz_store, config, [], None)
    assert [(job.setting, job.n) for job in jobs] == [("vanilla", None), ("baseline", 5)]
    names = {row["id"]: row["name"] for row in alz_store.query(
        "MATCH (n:Entity) RETURN n.id AS id, n.name AS name")}
    baseline = jobs[1]
    for index in range(5):
        prompt = baseline.prompts(index)
        provenance = prompt.provenance
        assert provenance.setting == "baseline" and provenance.template == 0
        assert provenance.distractors == ()
        assert provenance.extra["shuffle"] is False
        for entity, shown in provenance.aliases.items():
            assert shown == names[entity]  # the name, never a sampled alias
    paths = Runner(config, tmp_path, jobs, build_models(config, None)).run()
    bodies = {json.loads(p.read_text())["setting"]: json.loads(p.read_text()) for p in paths}
    assert bodies["baseline"]["n"] == 5 and bodies["vanilla"]["n"] == 12
