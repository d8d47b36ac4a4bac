"""Report figures people read, on a real run of 20 shipped specs x 3 models (the Runner with
bernoulli models, and a free-answer test model on a task spec): legends clear of every
label, model names on the axis, the chance line at 1/options, Clopper-Pearson bounds in the
heatmap cells, and each spec's description and first prompt, escaped, in report.html.

Layout is checked with matplotlib's own boxes of the drawn figures, not by eye.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.bernoulli import uniform
from kgcert.models.registry import get_model
from kgcert.prompts.record import Prompt, Provenance
from kgcert.report import write_report
from kgcert.report.build import Report
from kgcert.report.tables import chance_levels, heatmap_cells
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.layout import slug
from kgcert.rundir.run_spec import RunSpec
from kgcert.specs import spec_hash
from kgcert.specs.catalog import catalog
from kgcert.stats import clopper_pearson

pytest.importorskip("matplotlib")

N = 24
MODELS = ("bernoulli:0.55", "bernoulli:0.7", "bernoulli:0.9")
FREE = "free:0.6"  # answers free-answer prompts right with probability 0.6
FORMS = ("json", "list")
USER_SPEC = "user.gene_target_copy"
DESCRIPTION = 'Drugs acting on <gene> targets & "their" diseases <script>alert(1)</script>'


class FreeAnswerModel:
    """A test model for free-answer prompts, right with known probability: it reads the
    answer the test prompt carries and gives it, or a wrong one."""

    cacheable = False

    def __init__(self, p: float) -> None:
        self.p, self.name, self.config = p, f"free:{p:g}", GenerationConfig()

    def identity(self) -> dict[str, Any]:
        return {"provider": "free", "p": self.p}

    def close(self) -> None:
        pass

    def generate(self, requests: Sequence[ModelRequest],
                 config: GenerationConfig | None = None) -> list[ModelResponse]:
        return [ModelResponse(text=r.prompt.rsplit("answer: ", 1)[1]
                              if uniform(r.prompt, r.sample_index) < self.p else "nowhere")
                for r in requests]


def mc_prompts(spec: str, kind: str, setting: str):
    def build(index: int) -> Prompt:
        correct = 1 + index % 4
        names = tuple(f"<drug {index}-{k}> & co" for k in range(4))
        hops = 1 + index % 3
        nodes = {str(i): f"n{index}-{i}" for i in range(hops + 1)} if kind == "entity" else {}
        edges = tuple((nodes[str(i)], "R", nodes[str(i + 1)]) for i in range(hops)) \
            if kind == "entity" else ()
        provenance = Provenance(spec=spec, spec_hash="-", kind=kind, seed=0, index=index,  # type: ignore[arg-type]
                                setting=setting, nodes=nodes, edges=edges)
        return Prompt(f"Q{index} of {spec} ({setting}): which <drug> acts on \"G\" & why?",
                      provenance, options=names, option_ids=tuple(map(str, range(4))),
                      correct_option=correct)
    return build


def free_prompts(spec: str, form: str):
    def build(index: int) -> Prompt:
        provenance = Provenance(spec=spec, spec_hash="-", kind="task", seed=0, index=index,
                                setting=form, textualization=form)
        return Prompt(f"Graph in {form}. Shortest path {index}? answer: path {index}",
                      provenance, task="shortest_path", answers=(f"path {index}",))
    return build


def free_scorer(prompt: Prompt, response: ModelResponse) -> dict[str, Any]:
    """Scored as the task builder scores: exact and flexible; exact fails every third."""
    flexible = response.text == prompt.answers[0]
    exact = flexible and prompt.provenance.index % 3 != 0
    return {"outcome": "correct" if flexible else "wrong", "exact": exact, "flexible": flexible}


def wide_jobs(user_spec: Path) -> list[Job]:
    entries = {entry.spec.name: entry for entry in catalog()}
    relation = sorted(name for name, e in entries.items() if e.spec.kind == "relation")[:9]
    entity = sorted(name for name, e in entries.items() if e.spec.kind == "entity")[:10]
    from kgcert.specs import load_spec_file

    chosen = [(name, entries[name].spec, entries[name].path) for name in relation + entity]
    chosen.append((USER_SPEC, load_spec_file(user_spec), user_spec))
    jobs = []
    for name, spec, path in chosen:
        for setting in ("vanilla", "distractor"):
            jobs.append(Job(name, spec_hash(spec), setting,
                            mc_prompts(name, spec.kind, setting),
                            {"spec_kind": spec.kind, "spec_file": str(path)}, models=MODELS))
    task = entries["kgllmbench.shortest_path"]
    for form in FORMS:
        jobs.append(Job(task.spec.name, spec_hash(task.spec), form,
                        free_prompts(task.spec.name, form),
                        {"spec_kind": "task", "spec_file": str(task.path),
                         "textualization": form}, scorer=free_scorer, models=(FREE,)))
    return jobs


def make_wide_run(root: Path) -> Path:
    """20 specs x 2 settings x 3 models (19 shipped specs and one user spec whose description
    needs escaping), and one free-answer task spec in two formats."""
    import yaml

    shipped = next(e for e in catalog() if e.spec.name == "primekg.gene_target").path
    body = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    body.update(name=USER_SPEC, description=DESCRIPTION)
    user_spec = root / "user_spec.yaml"
    user_spec.write_text(yaml.safe_dump(body), encoding="utf-8")
    config = GenerationConfig()
    slots = [ModelSlot(m, get_model(m, config, seed=0), config) for m in MODELS]
    slots.append(ModelSlot(FREE, FreeAnswerModel(0.6), config))  # type: ignore[arg-type]
    run = root / "wide"
    Runner(RunSpec.of(kg="toy", specs=("toy",), models=MODELS, n=N, batch_size=64), run,
           wide_jobs(user_spec), slots).run()
    return run


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Report:
    root = tmp_path_factory.mktemp("wide-run")
    return write_report([make_wide_run(root)], root / "report")


def _renderer(figure: Any) -> Any:
    """Draw the figure (laid out as when it was saved) and return the renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def _drawn_tick_labels(figure: Any) -> list[Any]:
    """Tick labels inside their axis's view (matplotlib keeps, but does not draw, others)."""
    found = []
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks():
                if low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    found += [tick.label1, tick.label2]
    return found


def _boxes(figure: Any) -> tuple[list[Any], list[tuple[str, Any]]]:
    """(legend boxes, (text, box) of every other drawn text) of a drawn figure."""
    from matplotlib.text import Text

    renderer = _renderer(figure)
    legends = list(figure.legends)
    ticks = {id(t) for axes in figure.axes for axis in (axes.xaxis, axes.yaxis)
             for tick in axis.get_major_ticks() + axis.get_minor_ticks()
             for t in (tick.label1, tick.label2)}
    left_out = ticks | {id(t) for legend in legends for t in legend.findobj(Text)}
    candidates = [t for t in figure.findobj(Text) if id(t) not in left_out]
    texts = [(t.get_text(), t.get_window_extent(renderer))
             for t in candidates + _drawn_tick_labels(figure)
             if t.get_visible() and t.get_text().strip()]
    return [legend.get_window_extent(renderer) for legend in legends], texts


def test_no_text_overlaps_and_legends_outside_the_axes(wide):
    assert len(wide.runs.certificates) == 20 * 2 * 3 + 2
    for plot in wide.plots:
        figure = plot.figure
        assert figure is not None
        assert all(axes.get_legend() is None for axes in figure.axes), plot.name
        legends, texts = _boxes(figure)
        assert texts
        for number, (text, box) in enumerate(texts):  # titles, labels, ticks, cells apart
            for other, other_box in texts[number + 1:]:
                assert not box.overlaps(other_box), f"{plot.name}: {text!r} over {other!r}"
        for box in legends:
            for text, other in texts:
                assert not box.overlaps(other), f"{plot.name}: legend over {text!r}"
            renderer = _renderer(figure)
            for axes in figure.axes:
                if axes.get_visible():
                    assert not box.overlaps(axes.get_window_extent(renderer)), plot.name


def test_model_names_on_the_axis_readable_at_20_specs(wide):
    plot = next(p for p in wide.plots if p.name == "forest_specs_vanilla")
    axes = plot.figure.axes[0]
    labels = [t for t in axes.get_yticklabels() if t.get_text()]
    assert [t.get_text() for t in labels] == list(MODELS) * 20
    headers = {t.get_text() for t in axes.texts}
    assert headers == set(wide.specs.loc[wide.specs["setting"] == "vanilla", "spec"])
    renderer = _renderer(plot.figure)
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert all(t.get_fontsize() >= 7 for t in labels)
    for upper, lower in zip(boxes, boxes[1:], strict=False):
        assert not upper.overlaps(lower)  # no two model names collide
    header_boxes = [t.get_window_extent(renderer) for t in axes.texts]
    for first, second in zip(header_boxes, header_boxes[1:], strict=False):
        assert not first.overlaps(second)


def _dashed(axes: Any) -> list[Any]:
    return [line for line in axes.get_lines() if line.get_linestyle() == "--"]


def test_chance_line_at_one_over_options(wide):
    certificates = wide.runs.certificates
    mc = certificates[certificates["spec_kind"] != "task"]
    assert (mc["chance"] == 0.25).all()  # four options
    assert certificates.loc[certificates["spec_kind"] == "task", "chance"].isna().all()
    for setting in ("vanilla", "distractor"):
        plot = next(p for p in wide.plots if p.name == f"forest_specs_{setting}")
        dashed = _dashed(plot.figure.axes[0])
        assert dashed and all(list(line.get_xdata()) == [0.25, 0.25] for line in dashed)
        rows = [t.get_position()[1] for t in plot.figure.axes[0].get_yticklabels()]
        covered = [(min(line.get_ydata()), max(line.get_ydata())) for line in dashed]
        assert all(any(low < y < high for low, high in covered) for y in rows)
    for form in FORMS:  # free answers: no chance level, no line
        plot = next(p for p in wide.plots if p.name == f"forest_specs_{form}")
        assert _dashed(plot.figure.axes[0]) == []
    paths = next(p for p in wide.plots if p.name == "path_length")
    panels = paths.figure.axes
    assert len(panels) == 2 * 10
    for axes in panels:
        (line,) = _dashed(axes)
        assert list(line.get_ydata()) == [0.25, 0.25]
    summary = next(p for p in wide.plots if p.name == "forest_models")
    assert {tuple(line.get_xdata()) for line in _dashed(summary.figure.axes[0])} == {(0.25,
                                                                                      0.25)}


def test_chance_levels_need_one_level_per_group():
    frame = pd.DataFrame({"spec": ["a", "a", "b", "c", "c"], "setting": ["v"] * 5,
                          "chance": [0.25, 0.25, None, 0.25, 0.2]})
    assert chance_levels(frame, ["spec", "setting"]) == {("a", "v"): 0.25}


def test_heatmap_cells_hold_clopper_pearson_bounds(wide):
    tasks = wide.tasks
    assert set(tasks["model"]) == {FREE} and set(tasks["textualization"]) == set(FORMS)
    samples = wide.runs.samples
    plot = next(p for p in wide.plots if p.name.startswith("heatmap_"))
    panels = {axes.get_title(): axes for axes in plot.figure.axes if axes.get_title()}
    for row in tasks.itertuples():
        scored = samples[(samples["spec"] == "kgllmbench.shortest_path")
                         & (samples["setting"] == row.textualization)]
        assert row.n == len(scored) == N
        assert row.exact_k == int(scored["exact_correct"].sum()) < row.flexible_k
        for metric, k in (("exact", row.exact_k), ("flexible", row.flexible_k)):
            bounds = clopper_pearson(k, row.n, confidence=wide.confidence)
            expected = f"{k / row.n:.2f}\n[{bounds.lower:.2f}, {bounds.upper:.2f}]"
            column = ["list", "json"].index(row.textualization)  # KG-LLM-Bench order
            (cell,) = [t for t in panels[metric].texts if t.get_position() == (column, 0)]
            assert cell.get_text() == expected
            html_cell = heatmap_cells(tasks, FREE, metric).loc["shortest_path",
                                                                row.textualization]
            assert html_cell == expected.replace("\n", " ")


def test_descriptions_and_examples_escaped_in_the_page(wide):
    page = (wide.out / "report.html").read_text(encoding="utf-8")
    # the only scripts are the explorer's own (its data blocks and its code); no KG or model
    # text reaches the page as markup
    tags = re.findall(r"<script[^>]*>", page)
    assert tags and all(re.fullmatch(r'<script( type="application/(json|gzip-base64)" '
                                     r'id="kgx-[\w-]+")?>', tag) for tag in tags), tags
    assert "<script>alert" not in page and "<drug" not in page
    assert html.escape(DESCRIPTION) in page
    shipped = next(e for e in catalog() if e.spec.name == "primekg.gene_target")
    assert html.escape(shipped.spec.description) in page
    for spec in set(wide.specs["spec"]):
        details = wide.details[spec]
        assert details.description, spec
        block = page[page.index(f'<h3 id="spec-{slug(spec)}">{html.escape(spec)}</h3>'):]
        assert html.escape(details.description) in block.split("<h3", 2)[1]  # its own block
        settings = {e.setting for e in details.examples}
        assert settings == set(wide.specs.loc[wide.specs["spec"] == spec, "setting"])
        for example in details.examples:
            assert example.index == 0
            assert html.escape(example.text) in page
    example = wide.details[USER_SPEC].examples[0]
    assert example.text.startswith(f"Q0 of {USER_SPEC}")
    assert html.escape("option 1: <drug 0-0> & co") in page


def test_description_only_from_the_spec_the_run_used(tmp_path):
    from kgcert.report.spec_details import _description
    from kgcert.specs import load_spec_file

    shipped = next(e for e in catalog() if e.spec.name == "primekg.gene_target")
    used = spec_hash(shipped.spec)
    found = _description("primekg.gene_target", [str(shipped.path)], {used}, dict)
    assert found == (shipped.spec.description, str(shipped.path))
    # The file was edited after the run (another pattern, so another hash): no description.
    edited = tmp_path / "edited.yaml"
    edited.write_text(shipped.path.read_text(encoding="utf-8").replace(
        "(d:drug)", "(d:drug)<-[:drug_drug]-(e:drug)"), encoding="utf-8")
    assert spec_hash(load_spec_file(edited)) != used
    description, why = _description("primekg.gene_target", [str(edited)], {used}, dict)
    assert description is None and "changed since the run" in why
    # Named file gone: the shipped spec of that name, when its hash is the run's.
    assert _description("primekg.gene_target", [str(tmp_path / "gone.yaml")], {used},
                        lambda: {shipped.spec.name: shipped})[0] == shipped.spec.description
    assert _description("nowhere", [], set(), dict) == (None,
                                                        "no spec file of this name was found")
