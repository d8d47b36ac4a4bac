"""Before a run asks any model: a warning for a spec with fewer matches than `--n` (its
prompts repeat: draws are IID, with replacement), and a refusal of a distractor setting whose
prompts would hold no distractor (it would certify what the vanilla setting does, under the
distractor setting's name)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from kgcert.errors import InputError
from kgcert.prompts.record import Prompt
from kgcert.prompts.setting_names import parse_setting
from kgcert.run.runner import Job
from kgcert.rundir.run_spec import RunSpec
from kgcert.store.graph import GraphStore

# The run's own first prompts probed in each distractor-setting job; the probe stops at the
# first that holds a distractor, so a setting that holds them costs a prompt or two.
PROBE = 30


def preflight_warnings(store: GraphStore, run: RunSpec, spec_dirs: Iterable[Path],
                       cache_dir: Path | None) -> list[str]:
    from kgcert.specs import RelationSampler, find_spec, prepare_sampler
    from kgcert.specs.kind import spec_kind

    found = []
    for name in run.specs.names:
        spec = find_spec(name, spec_dirs).spec
        if not spec_kind(spec).dag:  # only a DAG pattern's matches are counted
            continue
        sampler = prepare_sampler(spec, store, cache_dir)  # cached: build_jobs made it
        assert isinstance(sampler, RelationSampler)
        matches = sampler.count().matches
        if matches is not None and run.design.n > matches:
            found.append(f"{spec.name}: --n {run.design.n} exceeds its {matches:,} matches in "
                         f"{run.kg.name}: prompts repeat (draws are with replacement), and the "
                         "bounds are about this small distribution")
    return found


def refuse_distractor_settings_without_distractors(jobs: Sequence[Job], n: int) -> None:
    """Refuses (InputError) the run when a distractor-setting job's first prompts (at most
    PROBE, and no more than the run draws) hold no distractor sentence."""
    for job in jobs:
        if parse_setting(job.setting).base != "distractor":
            continue
        probed = min(n if job.n is None else job.n, PROBE)
        prompts: list[Prompt] = []
        for index in range(probed):
            prompt = job.prompts(index)
            prompts.append(prompt)
            if prompt.provenance.distractors:
                break
        else:
            if probed:
                raise InputError(_no_distractor(job, prompts))
        job.prompts = _first_given(job.prompts, prompts)


def _first_given(build: Callable[[int], Prompt], first: list[Prompt]
                 ) -> Callable[[int], Prompt]:
    """`build`, except that prompts 0 to len(first) - 1 are `first` (the probe's: a prompt
    is the same whenever it is built), each handed out once and then built again if asked."""
    kept = dict(enumerate(first))

    def prompt(index: int) -> Prompt:
        found = kept.pop(index, None)
        return found if found is not None else build(index)
    return prompt


def _no_distractor(job: Job, shown: Sequence[Prompt]) -> str:
    candidates = sum(bool(p.provenance.extra.get("distractor_candidates")) for p in shown)
    if candidates:
        why = (f"{candidates} of them have Definition 2.3 distractor candidates, but no "
               f"distractor sentence fits the budget of {job.context.get('budget')} beside "
               "the essential context: raise --budget")
    else:
        why = ("none of their questions has a Definition 2.3 distractor candidate: drop "
               "--setting distractor for this spec (or, where its distractors are only rare, "
               "condition it on one with `distractors: required`)")
    return (f"{job.spec}: none of the run's first {len(shown)} prompts of setting "
            f"{job.setting} holds a distractor, so it would certify what vanilla does; {why}")
