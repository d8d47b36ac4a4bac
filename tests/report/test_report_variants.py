"""Paired comparisons of the variants of a setting: task formats, real against pseudonymized
names, prompting strategies against the standard prompt.

On toy runs (the Runner with bernoulli models) the p-values must equal kgcert.stats on the
outcomes aligned straight from the sample files; on the real WikiDataSets Countries KG, a
task run in two formats with real and pseudonymized names must ask the same instance at
every index in every variant, so the variants are paired, and `kgcert compare` prints the
McNemar table and the hierarchy for each family.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from test_report_compare import kgcert
from test_report_tables import RELATION, relation_prompts, sample_records, slots

from kgcert.answer_format.reply import ANSWER_LINE, ANSWER_RULE
from kgcert.answer_format.strategies import Strategy
from kgcert.models.base import GenerationConfig, ModelResponse
from kgcert.prompts.record import Prompt
from kgcert.prompts.setting_names import parse_setting, setting_name
from kgcert.report import load_runs
from kgcert.report.compare import compare_all
from kgcert.report.run_frames import item_sha
from kgcert.report.variants import variant_comparisons
from kgcert.run.runner import Job, ModelSlot, Runner, score_choice
from kgcert.rundir.run_spec import RunSpec
from kgcert.stats import holm_adjust, mcnemar

ANSWERED = ("correct", "wrong", "unparseable")
N = 80
STRATEGIES = ("standard", "system", "cot", "tot")


def toy_prompts(index: int) -> Prompt:
    """The toy relation prompt, closed by the standard answer rule as real prompts are."""
    prompt = relation_prompts(RELATION, "vanilla")(index)
    if prompt.skipped is not None:
        return prompt
    return dataclasses.replace(prompt, text=f"{prompt.text}\n{ANSWER_RULE}\n{ANSWER_LINE}\n")


def strategy_jobs() -> list[Job]:
    jobs = []
    for name in STRATEGIES:
        strategy = Strategy(name, "Be exact." if name == "system" else None, 16)
        build = toy_prompts
        jobs.append(Job(RELATION, "h-" + RELATION, setting_name("vanilla", strategy=name),
                        lambda i, s=strategy, b=build: s.apply(b(i)),  # type: ignore[misc]
                        {"spec_kind": "relation"}, scorer=strategy.scorer(score_choice),
                        max_new_tokens=strategy.max_new_tokens(8)))
    return jobs


@pytest.fixture(scope="module")
def strategy_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("strategies") / "run"
    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.7",), n=N, batch_size=40)
    Runner(config, run, strategy_jobs(),
           slots("bernoulli:0.7", "bernoulli:0.5", flaky=("bernoulli:0.5",))).run()
    return run


def aligned_variants(run: Path, spec: str, model: str, settings: dict[str, str]
                     ) -> tuple[list[int], dict[str, np.ndarray]]:
    """Outcomes per variant straight from the sample files, indices every variant answered."""
    by_variant: dict[str, dict[int, str]] = {v: {} for v in settings}
    variant_of = {s: v for v, s in settings.items()}
    for record in sample_records(run):
        if (record["spec"], record["model"]) == (spec, model) and \
                record["setting"] in variant_of:
            by_variant[variant_of[record["setting"]]][record["index"]] = record["outcome"]
    shared = sorted(set.intersection(*(set(v) for v in by_variant.values())))
    kept = [i for i in shared if all(v[i] in ANSWERED for v in by_variant.values())]
    return kept, {v: np.array([found[i] == "correct" for i in kept])
                  for v, found in by_variant.items()}


def check_against_stats(item, run: Path) -> None:
    indices, outcomes = aligned_variants(run, item.spec, item.model, item.settings)
    assert list(item.alignment.indices) == indices and indices
    ranked = item.hierarchy
    assert ranked is not None and set(ranked.ordering) == set(outcomes)
    for first, second in combinations(sorted(outcomes), 2):
        pair = ranked.comparison(first, second)
        expected = mcnemar(outcomes[pair.test.model_a], outcomes[pair.test.model_b])
        assert (pair.test.b, pair.test.c, pair.test.n) == (expected.b, expected.c, expected.n)
        assert pair.test.p_value == expected.p_value
    raw = [pair.test.p_value for pair in ranked.comparisons]
    assert [p.adjusted_p for p in ranked.comparisons] == pytest.approx(holm_adjust(raw))


def test_strategies_are_paired_with_the_standard_prompt_by_index(strategy_run):
    samples = load_runs([strategy_run]).samples
    found = {item.model: item for item in variant_comparisons(samples)}
    assert set(found) == {"bernoulli:0.7", "bernoulli:0.5"}
    for item in found.values():
        assert item.axis == "strategy" and item.held == {"base": "vanilla", "names": "real"}
        assert item.settings == {"standard": "vanilla", "system": "vanilla+system",
                                 "cot": "vanilla+cot", "tot": "vanilla+tot"}
        assert len(item.hierarchy.comparisons) == 6
        assert item.alignment.mismatched == 0
        check_against_stats(item, strategy_run)
    flaky = found["bernoulli:0.5"].alignment  # failed calls and skipped prompts dropped
    assert all(i % 13 != 3 and i % 17 != 5 for i in flaky.indices)
    assert flaky.failed == N - flaky.n
    # The prompts differ by design; the drawn item they ask about does not.
    rows = samples[(samples["index"] == 0) & (samples["model"] == "bernoulli:0.7")]
    assert rows["prompt_sha"].nunique() == 3 and rows["item_sha"].nunique() == 1  # system:
    # same text, sent with a system message


def test_a_different_item_at_an_index_is_not_paired(strategy_run):
    samples = load_runs([strategy_run]).samples.copy()
    where = (samples["setting"] == "vanilla+cot") & (samples["index"] == 0)
    samples.loc[where, "item_sha"] = "another"
    (item, *_) = [v for v in variant_comparisons(samples) if v.model == "bernoulli:0.7"]
    assert item.alignment.mismatched == 1 and 0 not in item.alignment.indices


def test_compare_prints_the_strategy_table_and_hierarchy(strategy_run, tmp_path, monkeypatch,
                                                         capsys):
    assert kgcert(monkeypatch, "compare", strategy_run, "--out", tmp_path) == 0
    printed = capsys.readouterr().out
    assert f"{RELATION} / bernoulli:0.7: strategy (vanilla, real names)" in printed
    assert "hierarchy (Holm, alpha 0.05): {" in printed and "cot" in printed
    body = json.loads((tmp_path / "compare.json").read_text())
    assert {v["comparison"] for v in body["variants"]} == {"strategy"}
    assert len(body["comparisons"]) == 4  # the two models on each of the four settings
    assert kgcert(monkeypatch, "compare", strategy_run, "--json", "--family", "run",
                  "--setting", "vanilla+cot", "--out", tmp_path) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    variants = [line for line in lines if line.get("comparison") == "strategy"]
    assert len(variants) == 2 and len(lines) == 3  # one model comparison on vanilla+cot
    joint = compare_all(load_runs([strategy_run]).samples, family="run",
                        setting="vanilla+cot")
    raw = [p.test.p_value for group in joint for c in group for p in c.hierarchy.comparisons]
    apart = compare_all(load_runs([strategy_run]).samples, setting="vanilla+cot")
    raw = [p.test.p_value for group in apart for c in group for p in c.hierarchy.comparisons]
    together = [p.adjusted_p for group in joint for c in group for p in c.hierarchy.comparisons]
    assert together == pytest.approx(holm_adjust(raw))


# -- a real task run: formats and entity names -------------------------------------------------

TASK = "kgllmbench.triple_retrieval"
FORMATS = ("list", "turtle")
TASK_N = 12
COIN, YES = "coin", "always-yes"


class YesNoModel:
    """Replies Yes/No to TripleRetrieval: `coin` by a hash of the prompt text (a fair coin
    per rendering, so variants disagree), `always-yes` always Yes (right exactly when the
    instance's answer is Yes, so identical in every variant of a paired index)."""

    cacheable = False

    def __init__(self, name: str) -> None:
        self.name = name
        self.config = GenerationConfig()

    def identity(self) -> dict[str, str]:
        return {"provider": "test", "name": self.name}

    def close(self) -> None:
        pass

    def generate(self, requests, config=None):
        def reply(text: str) -> str:
            if self.name == YES:
                return "Yes"
            return "Yes" if hashlib.sha256(text.encode()).digest()[0] % 2 else "No"

        return [ModelResponse(reply(r.plain_text())) for r in requests]


@pytest.fixture(scope="module")
def task_run(embedded_server, shared_data: Path, tmp_path_factory: pytest.TempPathFactory):
    from kg_helpers import load_kg

    from kgcert.run.jobs import build_jobs

    store, _ = load_kg(embedded_server, "wikidatasets", [shared_data / "countries"],
                       "variants_countries")
    config = RunSpec.of(kg=store.kg, specs=(TASK,), models=(COIN, YES), formats=FORMATS,
                        entity_names=("real", "pseudonymized"), n=TASK_N, seed=3)
    run = tmp_path_factory.mktemp("task-variants") / "run"
    jobs = build_jobs(store, config, [], None)
    assert sorted(job.setting for job in jobs) == [
        "list", "list+pseudonymized", "turtle", "turtle+pseudonymized"]
    models = [ModelSlot(name, YesNoModel(name), GenerationConfig()) for name in (COIN, YES)]
    Runner(config, run, jobs, models).run()
    return run


def test_instance_i_is_the_same_in_every_format_and_name_variant(task_run):
    by_index: dict[int, list[dict]] = {}
    for record in sample_records(task_run):
        if record["model"] == YES:
            by_index.setdefault(record["index"], []).append(record["prompt"])
    assert sorted(by_index) == list(range(TASK_N))
    for prompts in by_index.values():
        assert len(prompts) == 4
        first = prompts[0]["provenance"]
        for prompt in prompts:
            provenance = prompt["provenance"]
            assert provenance["extra"]["instance_provenance"] == \
                first["extra"]["instance_provenance"]
            assert provenance["edges"] == first["edges"]  # same subgraph, ids kept
            assert provenance["nodes"] == first["nodes"]
            assert item_sha(prompt) == item_sha(prompts[0])
        real = [p for p in prompts if p["provenance"]["setting"] == "real"]
        assert len(real) == 2 and real[0]["answers"] == real[1]["answers"]
        question = [p["text"].split("Question:")[1] for p in real]
        assert question[0] == question[1]  # same question in both formats
        assert {p["text"] for p in prompts}.__len__() == 4  # four renderings


def test_compare_tests_formats_and_names_on_the_task_run(task_run, tmp_path, monkeypatch,
                                                         capsys):
    samples = load_runs([task_run]).samples
    found = variant_comparisons(samples)
    axes = sorted((v.model, v.axis, tuple(v.held.values())) for v in found)
    assert axes == sorted(
        (model, axis, held) for model in (COIN, YES) for axis, held in (
            ("format", ("real", "standard")), ("format", ("pseudonymized", "standard")),
            ("names", ("list", "standard")), ("names", ("turtle", "standard"))))
    for item in found:
        assert item.alignment.n == TASK_N and item.alignment.mismatched == 0
        check_against_stats(item, task_run)
        parts = [parse_setting(s) for s in item.settings.values()]
        assert len({p.strategy for p in parts}) == 1
    # Always Yes is right exactly on the Yes instances: if index i were another instance in
    # another variant, its outcomes would differ there.
    for item in (v for v in found if v.model == YES):
        first, *others = item.alignment.outcomes.values()
        assert 0 < first.sum() < TASK_N and all((o == first).all() for o in others)
        assert all(p.test.b == p.test.c == 0 for p in item.hierarchy.comparisons)
    coin = [v for v in found if v.model == COIN]
    assert any(p.test.b + p.test.c for v in coin for p in v.hierarchy.comparisons)
    assert kgcert(monkeypatch, "compare", task_run, "--out", tmp_path) == 0
    printed = capsys.readouterr().out
    assert f"{TASK} / {COIN}: format (real names, standard prompt)" in printed
    assert f"{TASK} / {COIN}: names (list, standard prompt)" in printed
    assert printed.count("hierarchy (Holm") == 2 * 4 + 4  # 4 variant families per model,
    # and one model comparison per setting
