"""Reports from real run directories (the Runner with bernoulli models on toy prompts).

Tables are checked against recomputation from the certificate JSON files and the sample
files; figures and the HTML page against what they must contain.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import GenerationConfig, Model, ModelRequest, ModelResponse
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.report import (
    build_report,
    heatmap_matrix,
    load_runs,
    path_length_table,
    summary_table,
    write_report,
)
from kgcert.report import plots as report_plots
from kgcert.report.html import HOW_TO_READ
from kgcert.report.run_frames import iter_records
from kgcert.run.runner import Job, ModelSlot, Runner, score_choice
from kgcert.rundir.run_dir import run_dir_of
from kgcert.rundir.run_spec import RunSpec
from kgcert.stats import clopper_pearson

N = 60
ROLES = ("distractor", "path", "related", "random")
RELATION, ENTITY = "toy.relation", "toy.entity"
TASKS = {"toy.shortest_path": "shortest_path", "toy.triple_retrieval": "triple_retrieval"}


def _options(index: int) -> tuple[tuple[str, ...], tuple[str, ...], int, list[str]]:
    correct = 1 + index % 4
    roles = list(ROLES[:3])
    roles.insert(correct - 1, "answer")
    names = tuple(f"entity {index}-{k}" for k in range(4))
    return names, tuple(f"id{index}-{k}" for k in range(4)), correct, roles


def relation_prompts(spec: str, setting: str):
    def build(index: int) -> Prompt:
        names, ids, correct, roles = _options(index)
        provenance = Provenance(spec=spec, spec_hash="h-" + spec, kind="relation", seed=0,
                                index=index, setting=setting, template=index % 2,
                                extra={"option_roles": roles})
        if index % 17 == 5:
            return Prompt("", provenance, skipped="context does not fit")
        return Prompt(f"{spec} {setting} question {index}", provenance, options=names,
                      option_ids=ids, correct_option=correct, answer_id=ids[correct - 1])
    return build


def path_length(index: int) -> int:
    return 1 + index % 3


def entity_prompts(setting: str):
    def build(index: int) -> Prompt:
        names, ids, correct, roles = _options(index)
        hops = path_length(index)
        nodes = {str(i): f"n{index}-{i}" for i in range(hops + 1)}
        edges = tuple((nodes[str(i)], "R", nodes[str(i + 1)]) for i in range(hops))
        provenance = Provenance(spec=ENTITY, spec_hash="h-entity", kind="entity", seed=0,
                                index=index, setting=setting, nodes=nodes, edges=edges,
                                extra={"option_roles": roles})
        return Prompt(f"entity {setting} question {index} over {hops} hops", provenance,
                      options=names, option_ids=ids, correct_option=correct,
                      answer_id=ids[correct - 1])
    return build


def task_prompts(spec: str, form: str):
    def build(index: int) -> Prompt:
        names, ids, correct, _ = _options(index)
        provenance = Provenance(spec=spec, spec_hash="h-" + spec, kind="task", seed=0,
                                index=index, setting="real", textualization=form)
        return Prompt(f"{spec} in {form}: {index}", provenance, options=names, option_ids=ids,
                      correct_option=correct, task=TASKS[spec], answers=(names[correct - 1],))
    return build


def task_scorer(prompt: Prompt, response: ModelResponse) -> dict[str, Any]:
    """Flexible = the choice was right; exact additionally fails on every third prompt."""
    result = score_choice(prompt, response)
    flexible = result["outcome"] == "correct"
    return {**result, "flexible_correct": flexible,
            "exact_correct": flexible and prompt.provenance.index % 3 != 0}


class FlakyModel:
    """A bernoulli model whose call fails on every 13th sample (index 3, 16, ...)."""

    cacheable = False

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = f"flaky {inner.name}"
        self.config = inner.config

    def identity(self) -> dict[str, Any]:
        return {"provider": "flaky", **self.inner.identity()}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        answers = self.inner.generate(requests, config)
        return [ModelResponse.failure("timeout") if r.sample_index % 13 == 3 else a
                for r, a in zip(requests, answers, strict=True)]


def slots(*specs: str, flaky: tuple[str, ...] = ()) -> list[ModelSlot]:
    config = GenerationConfig()
    made = []
    for spec in specs:
        # coupled: one shared stream, so the models' outcomes nest (the compare tests
        # check a paired test on a pair with no discordant prompt one way)
        model: Model = get_model(spec, config, seed=0, coupled=True)
        if spec in flaky:
            model = FlakyModel(model)
        made.append(ModelSlot(spec, model, config))
    return made


def jobs() -> list[Job]:
    made = []
    for setting in ("vanilla", "distractor"):
        made.append(Job(RELATION, "h-" + RELATION, setting, relation_prompts(RELATION, setting),
                        {"spec_kind": "relation", "kg": "toy"}))
        made.append(Job(ENTITY, "h-entity", setting, entity_prompts(setting),
                        {"spec_kind": "entity", "kg": "toy"}))
    made.append(Job(RELATION, "h-" + RELATION, "baseline",
                    relation_prompts(RELATION, "baseline"), {"spec_kind": "relation"}))
    for spec in TASKS:
        for form in ("json", "list"):
            made.append(Job(spec, "h-" + spec, form, task_prompts(spec, form),
                            {"spec_kind": "task", "textualization": form}, scorer=task_scorer))
    return made


def make_runs(root: Path) -> tuple[Path, Path]:
    """Run A: three models (bernoulli:0.6 has failing calls) on every job; run B: one more
    model on the relation spec, same prompts."""
    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.9",), n=N, batch_size=32)
    first, second = root / "run-a", root / "run-b"
    Runner(config, first, jobs(),
           slots("bernoulli:0.9", "bernoulli:0.6", "bernoulli:0.75", flaky=("bernoulli:0.6",))
           ).run()
    (first / "run.yaml").write_text("kg: toy\nn: 60\nseed: 0\n", encoding="utf-8")
    relation = [job for job in jobs() if job.spec == RELATION and job.setting == "vanilla"]
    Runner(config, second, relation, slots("bernoulli:0.8")).run()
    return first, second


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_runs(tmp_path_factory.mktemp("report-runs"))


def certificate_bodies(*run_dirs: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for run in run_dirs
            for path in sorted((run / "certificates").glob("*.json"))]


def sample_records(*run_dirs: Path) -> list[dict[str, Any]]:
    return [record for run in run_dirs for path in sorted((run / "samples").rglob("*.jsonl"))
            for record in (r.to_dict() for r in iter_records(run_dir_of(run), path))]


def test_loaded_frames_match_the_files(runs):
    loaded = load_runs(list(runs))
    bodies = certificate_bodies(*runs)
    assert len(loaded.certificates) == len(bodies) == 3 * 9 + 1
    assert len(loaded.samples) == len(sample_records(*runs)) == N * (3 * 9 + 1)
    assert set(loaded.certificates["run"]) == {"run-a", "run-b"}
    for body in bodies:
        row = loaded.certificates[(loaded.certificates["spec"] == body["spec"])
                                  & (loaded.certificates["setting"] == body["setting"])
                                  & (loaded.certificates["model"] == body["model"])]
        assert len(row) == 1
        assert (row["k"].item(), row["n"].item()) == (body["k"], body["n"])
        assert row["lower"].item() == body["lower"] and row["upper"].item() == body["upper"]
        assert row["error"].item() == body["outcomes"]["error"]
    samples = loaded.samples
    # Roles: the chosen option is the answer exactly when the sample is correct.
    picked = samples[samples["chosen_role"].notna()]
    assert ((picked["chosen_role"] == "answer") == picked["correct"]).all()
    assert set(picked["chosen_role"]) <= {"answer", *ROLES}
    errors = samples[samples["outcome"] == "error"]
    assert set(errors["model"]) == {"bernoulli:0.6"} and (errors["index"] % 13 == 3).all()
    assert set(samples.loc[samples["outcome"] == "skipped", "index"] % 17) == {5}
    entity = samples[samples["spec"] == ENTITY]
    assert (entity["path_length"] == entity["index"].map(path_length)).all()
    assert samples.loc[samples["spec"] != ENTITY, "path_length"].isna().all()


def test_summary_table_is_the_mean_of_the_certificates(runs):
    loaded = load_runs(list(runs))
    table = summary_table(loaded.certificates)
    bodies = [b for b in certificate_bodies(*runs) if b["setting"] != "baseline"]
    expected: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for body in bodies:
        expected.setdefault((body["model"], body["setting"]), []).append(body)
    assert len(table) == len(expected)
    baselines = {b["model"]: b["estimate"] for b in certificate_bodies(*runs)
                 if b["setting"] == "baseline"}
    assert set(baselines) == {"bernoulli:0.9", "bernoulli:0.6", "bernoulli:0.75"}
    for row in table.itertuples():
        group = expected[(row.model, row.setting)]
        assert row.specs == len({b["spec"] for b in group})
        assert row.mean_lower == pytest.approx(sum(b["lower"] for b in group) / len(group))
        assert row.mean_upper == pytest.approx(sum(b["upper"] for b in group) / len(group))
        if row.model in baselines and row.setting in ("vanilla", "distractor"):
            # The baseline covers the relation spec only (not the entity spec, not tasks).
            assert row.baseline == pytest.approx(baselines[row.model])
        else:
            assert pd.isna(row.baseline)


def test_summary_without_baseline_has_no_baseline_column(runs):
    loaded = load_runs([runs[1]])
    table = summary_table(loaded.certificates)
    assert "baseline" not in table.columns
    assert list(table["model"]) == ["bernoulli:0.8"]


def test_path_length_counts_match_the_samples(runs):
    loaded = load_runs([runs[0]])
    table = path_length_table(loaded.samples, confidence=0.9)
    counts: Counter[tuple[str, str, int]] = Counter()
    hits: Counter[tuple[str, str, int]] = Counter()
    for record in sample_records(runs[0]):
        if record["spec"] != ENTITY or record["outcome"] not in ("correct", "wrong",
                                                                 "unparseable"):
            continue
        key = (record["setting"], record["model"], len(record["prompt"]["provenance"]["edges"]))
        counts[key] += 1
        hits[key] += record["outcome"] == "correct"
    assert len(table) == len(counts) == 2 * 3 * 3
    for row in table.itertuples():
        key = (row.setting, row.model, row.path_length)
        assert (row.n, row.k) == (counts[key], hits[key])
        bounds = clopper_pearson(row.k, row.n, confidence=0.9)
        assert (row.lower, row.upper) == (bounds.lower, bounds.upper)


def test_task_heatmap_exact_and_flexible(runs):
    report = build_report([runs[0]])
    tasks = report.tasks
    records = [r for r in sample_records(runs[0]) if r["prompt"]["task"]
               and r["outcome"] in ("correct", "wrong", "unparseable")]
    for row in tasks.itertuples():
        group = [r for r in records if r["model"] == row.model and r["prompt"]["task"] == row.task
                 and r["setting"] == row.textualization]
        assert row.n == len(group)
        assert row.flexible_k == sum(r["flexible_correct"] for r in group)
        assert row.exact_k == sum(r["exact_correct"] for r in group)
        assert row.exact <= row.flexible
    matrix = heatmap_matrix(tasks, "bernoulli:0.9", "exact")
    assert list(matrix.columns) == ["list", "json"]  # KG-LLM-Bench order
    assert list(matrix.index) == sorted(TASKS.values())


def test_written_report(runs, tmp_path):
    out = tmp_path / "out"
    report = write_report(list(runs), out)
    page = (out / "report.html").read_text(encoding="utf-8")
    for spec in [RELATION, ENTITY, *TASKS]:
        assert spec in page
    # offline: no tag or style loads anything (the inlined drawing library sets `img.src=`
    # in its own code, which is no reference of the page)
    for external in ("<script src", "<link", 'src="', "src='", 'href="http', "url(http"):
        assert external not in page
    assert "How to read a certificate" in page and "draws one and records it" in page
    specs = report.specs
    assert {"seed", "chance", "unconditional_lower"} <= set(specs.columns)
    multiple_choice = specs[specs["spec"] == RELATION]
    assert (multiple_choice["chance"] > 0).all() and multiple_choice["seed"].notna().all()
    certificates = pd.read_csv(out / "certificates.csv")
    samples = pd.read_csv(out / "samples.csv")
    # the reading guide's field names are the report's columns and the certificates' fields
    guide = " ".join(HOW_TO_READ)
    named = set(re.findall(r"\b[a-z]+_[a-z_]+\b", guide))
    assert {"wall_s", "gpu_s", "money_usd", "calls_saved"} <= named <= set(certificates.columns)
    assert "`guarantee`" in guide and all(body["guarantee"] for body in certificate_bodies(*runs))
    assert len(certificates) == len(report.runs.certificates)
    assert len(samples) == len(report.runs.samples)
    for name in ("summary", "spec_certificates", "task_formats", "path_length"):
        assert (out / f"{name}.csv").exists()
    for name in ("certificates", "samples"):  # Parquet keeps the column types
        pd.testing.assert_frame_equal(pd.read_parquet(out / f"{name}.parquet"),
                                      report.tables()[name])
    assert not any("pyarrow" in note for note in report.notes)
    if not report_plots.available():
        assert any("kgcert[report]" in note for note in report.notes)
        return
    names = {plot.name for plot in report.plots}
    assert {"forest_models", "path_length"} <= names
    # one forest figure per setting (the baseline is drawn beside the summary, not alone)
    assert {name for name in names if name.startswith("forest_specs_")} == {
        f"forest_specs_{setting}" for setting in ("vanilla", "distractor", "json", "list")}
    assert sum(name.startswith("heatmap_") for name in names) == 3  # one per model with tasks
    for plot in report.plots:
        assert plot.png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert plot.svg.read_text().lstrip().startswith("<?xml")
        assert plot.svg_text in page
    assert page.count("<svg") == len(report.plots)


def test_plots_need_matplotlib(monkeypatch, runs, tmp_path):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(MissingDependencyError, match=r"pip install 'kgcert\[report\]'"):
        report_plots.path_length_plot(pd.DataFrame(), tmp_path)
    report = write_report([runs[1]], tmp_path / "out")
    assert report.plots == []
    assert any("kgcert[report]" in note for note in report.notes)
    assert (tmp_path / "out" / "report.html").exists()


def test_not_a_run_directory(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_runs([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="not a run directory"):
        load_runs([tmp_path / "empty"])
    (tmp_path / "bad" / "certificates").mkdir(parents=True)
    (tmp_path / "bad" / "certificates" / "x.json").write_text("{nope")
    with pytest.raises(InputError, match="not a certificate"):
        load_runs([tmp_path / "bad"])


def test_torn_last_line_is_skipped_and_left_alone(runs, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(runs[1], copy)
    log = next((copy / "samples").rglob("*.jsonl"))
    log.write_bytes(log.read_bytes() + b'{"index": 99, "outc')
    before = log.read_bytes()
    loaded = load_runs([copy])
    assert len(loaded.samples) == N
    assert log.read_bytes() == before


def test_a_samples_file_of_binary_garbage_is_one_line(runs, tmp_path):
    """Random bytes in place of a samples file: an InputError naming the file (issue 46),
    never an internal error."""
    import random
    import shutil

    copy = tmp_path / "garbage"
    shutil.copytree(runs[1], copy)
    log = next((copy / "samples").rglob("*.jsonl"))
    log.write_bytes(random.Random(46).randbytes(4096))
    with pytest.raises(InputError) as refused:
        load_runs([copy])
    assert log.name in str(refused.value) and "\n" not in str(refused.value)
