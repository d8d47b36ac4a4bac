"""The embedded server gives its memory back once a command's bulk reads are done (issue 48:
a full-size Wikidata5m run kept 2 GB of Java heap for reads that never came)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alzheimer_kg_fixture import kg_shape
from run_cli import kgcert

import kgcert.store.jvm_memory as jvm_memory
from kgcert.store.jvm_memory import give_back_heap


def test_giving_the_heap_back_empties_the_page_cache_and_shrinks_the_committed_heap(
        alzheimer_kg: Any):
    import jpype

    before = kg_shape(alzheimer_kg.store)  # reads every node and edge: pages in the cache
    # Garbage the collector must make room for: the committed heap grows past what is live.
    for _ in range(24):
        jpype.JArray(jpype.JByte)(16 << 20)
    given = give_back_heap()
    assert given is not None
    assert given.page_cache_before > 0
    assert given.page_cache_after == 0
    assert given.committed_after < given.committed_before
    assert kg_shape(alzheimer_kg.store) == before  # reads still work, from the disk's pages


def test_without_a_jvm_there_is_nothing_to_give_back(monkeypatch: pytest.MonkeyPatch):
    import sys

    monkeypatch.delitem(sys.modules, "jpype", raising=False)
    assert give_back_heap() is None


def test_a_run_gives_the_heap_back_once_its_jobs_are_built_before_any_prompt(
        alzheimer_kg: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import kgcert.run.jobs as jobs_module

    events: list[str] = []
    build = jobs_module.build_jobs

    def built(*args: Any, **kwargs: Any) -> Any:
        jobs = build(*args, **kwargs)
        events.append("jobs built")
        return jobs

    def given_back() -> Any:
        found = give_back_heap()
        events.append("heap given back")
        return found

    import kgcert.run.runner as runner_module
    run = runner_module.Runner.run

    def running(self: Any, *args: Any, **kwargs: Any) -> Any:
        events.append("prompts asked")
        return run(self, *args, **kwargs)

    import kgcert.run.preflight as preflight_module
    refuse = preflight_module.refuse_distractor_settings_without_distractors

    def checked(*args: Any, **kwargs: Any) -> Any:  # builds the first prompts of each job
        events.append("distractors checked")
        return refuse(*args, **kwargs)

    monkeypatch.setattr(preflight_module, "refuse_distractor_settings_without_distractors",
                        checked)
    monkeypatch.setattr(jobs_module, "build_jobs", built)
    monkeypatch.setattr(jvm_memory, "give_back_heap", given_back)
    monkeypatch.setattr(runner_module.Runner, "run", running)
    done = kgcert(alzheimer_kg.data_dir, "run", "--kg", alzheimer_kg.name, "--spec",
                  "primekg.dual_indication", "--model", "bernoulli:0.5", "--mode", "choice",
                  "--n", "5", "--out", str(tmp_path / "run"))
    assert done.exit_code == 0, done.output
    assert events == ["jobs built", "heap given back", "distractors checked", "prompts asked"]
