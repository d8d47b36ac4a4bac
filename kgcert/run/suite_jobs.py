"""A suite run's jobs: the per-spec jobs of each setting folded into one mixture job."""

from __future__ import annotations

from typing import Any

from kgcert.run.runner import Job
from kgcert.run.suite import mixture, refuse_specs_that_fit_nothing, suite_hash
from kgcert.rundir.run_spec import RunSpec


def suite_jobs(spec: RunSpec, jobs: list[Job]) -> list[Job]:
    """One job per (setting, models, n) whose prompt i is the suite's prompt i: the spec
    that index draws, then that spec's own prompt i under the same setting (drawn again
    within the spec when it is skipped). A spec none of whose probed prompts fits is
    refused here, before the first answer."""
    suite = spec.specs.suite
    assert suite is not None and not suite.pending, "weights by matches are counted first"
    groups: dict[tuple[str, tuple[str, ...] | None, int | None], list[Job]] = {}
    for job in jobs:
        groups.setdefault((job.setting, job.models, job.n), []).append(job)
    folded = []
    for parts in groups.values():
        assert len(parts) == len(suite.specs), "one job per spec of the suite and setting"
        hashes = [part.spec_hash for part in parts]
        components = [{"spec": part.spec, "spec_hash": part.spec_hash, "weight": weight,
                       "spec_file": part.context.get("spec_file")}
                      for part, weight in zip(parts, suite.weights, strict=True)]
        for component, counted in zip(components, suite.matches or (), strict=False):
            component["matches"] = counted.model_dump()  # how the weight was set
        first = parts[0]
        # before the first answer: a spec with no prompt that fits could not keep its weight
        refuse_specs_that_fit_nothing(suite, [part.spec for part in parts],
                                      [part.prompts for part in parts], first.setting,
                                      first.context.get("budget"))
        context: dict[str, Any] = {
            key: value for key, value in first.context.items() if key != "spec_file"}
        context["spec_kind"] = "suite"
        context["suite"] = {"name": suite.name, "weighting": suite.weighting,
                            "components": components}
        folded.append(Job(suite.name, suite_hash(suite, hashes), first.setting,
                          mixture(spec.seed.value, suite, [part.prompts for part in parts]),
                          context, scorer=first.scorer, n=first.n, models=first.models,
                          max_new_tokens=first.max_new_tokens))
    return folded
