"""Paired comparison on shared prompts decides between two models with fewer samples than
waiting for their Clopper-Pearson intervals to separate."""

from __future__ import annotations

from pathlib import Path

from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_spec import RunSpec
from kgcert.rundir.sample_log import SampleLog
from kgcert.stats import clopper_pearson, hierarchy

N = 1500
STEP = 10


def _prompts(tag: str):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=0,
                                index=index, setting="vanilla")
        return Prompt(text=f"{tag} {index}", provenance=provenance,
                      options=("w", "x", "y", "z"), option_ids=("w", "x", "y", "z"),
                      correct_option=1 + index % 4)
    return build


def _first_decisions(tmp_path: Path, tag: str) -> tuple[int, int]:
    """Samples needed (checked every STEP) by the Holm hierarchy and by CP non-overlap."""
    config = GenerationConfig()
    # Same provider seed: each prompt gets one uniform draw u, and a model is right when
    # u < p, so 0.8 is right whenever 0.7 is (the two share every easy prompt).
    slots = [ModelSlot(f"bernoulli:{p}", get_model(f"bernoulli:{p}", config), config)
             for p in (0.7, 0.8)]
    job = Job("toy", "toy", "vanilla", _prompts(tag))
    runner = Runner(RunSpec.of(kg="toy", specs=("toy",), models=("x",), n=N, batch_size=500),
                    tmp_path, [job], slots)
    runner.run()
    outcomes = {}
    for slot in slots:
        records = SampleLog(runner.log(job, slot).path).read()
        outcomes[slot.spec_string] = [records[i].correct for i in range(N)]
    paired_n = separate_n = 0
    for n in range(STEP, N + 1, STEP):
        head = {name: values[:n] for name, values in outcomes.items()}
        if not paired_n:
            ranking = hierarchy(head, alpha=0.05)
            if ranking.groups == (("bernoulli:0.8",), ("bernoulli:0.7",)):
                paired_n = n
        if not separate_n:
            low = clopper_pearson(sum(head["bernoulli:0.7"]), n)
            high = clopper_pearson(sum(head["bernoulli:0.8"]), n)
            if high.lower > low.upper:
                separate_n = n
    return paired_n, separate_n


def test_hierarchy_needs_fewer_samples_than_interval_separation(tmp_path: Path):
    ratios = []
    for replicate in range(3):
        paired_n, separate_n = _first_decisions(tmp_path / str(replicate), f"pair{replicate}")
        assert paired_n, "the paired test never decided"
        assert separate_n, "the intervals never separated"
        assert paired_n < separate_n
        ratios.append(separate_n / paired_n)
    print(f"samples for CP separation / samples for the paired hierarchy: {ratios}")
    assert min(ratios) > 1.5
