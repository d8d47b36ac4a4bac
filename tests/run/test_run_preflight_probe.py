"""The distractor probe's prompts are the run's first prompts: built once, handed to the run."""

from __future__ import annotations

import pytest

from kgcert.errors import InputError
from kgcert.prompts.record import Prompt, Provenance
from kgcert.run.preflight import refuse_distractor_settings_without_distractors
from kgcert.run.runner import Job


def _job(setting: str, first_with_distractor: int | None, built: list[int]) -> Job:
    def prompts(index: int) -> Prompt:
        built.append(index)
        holds = first_with_distractor is not None and index >= first_with_distractor
        return Prompt(f"prompt {index}", Provenance(
            "s", "h", "entity", 0, index, setting, distractors=("Q1",) if holds else ()))
    return Job("s", "h", setting, prompts)


def test_probed_prompts_are_not_built_again_by_the_run() -> None:
    built: list[int] = []
    job = _job("distractor", 2, built)
    refuse_distractor_settings_without_distractors([job], 250)
    assert built == [0, 1, 2]
    assert [job.prompts(i).text for i in range(5)] == [f"prompt {i}" for i in range(5)]
    assert built == [0, 1, 2, 3, 4]  # the run built only the prompts after the probe's
    assert job.prompts(1).text == "prompt 1" and built[-1] == 1  # asked again: built again


def test_vanilla_jobs_are_not_probed_and_distractor_less_ones_refused() -> None:
    built: list[int] = []
    vanilla = _job("vanilla", None, built)
    refuse_distractor_settings_without_distractors([vanilla], 250)
    assert built == []
    with pytest.raises(InputError, match="first 30 prompts of setting distractor"):
        refuse_distractor_settings_without_distractors([_job("distractor", None, built)], 250)
