"""Report figures (matplotlib, drawn off-screen): each saved as PNG and SVG.

matplotlib is optional (`pip install 'kgcert[report]'`); without it every function here
raises MissingDependencyError, and the tables, CSV and HTML report are still written.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from kgcert.errors import MissingDependencyError
from kgcert.report.tables import cell_text, format_order, heatmap_matrix

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSTALL_HINT = "plots need matplotlib: pip install 'kgcert[report]'"


@dataclass(frozen=True)
class Plot:
    name: str
    title: str
    png: Path
    svg: Path
    svg_text: str  # the SVG element, ready to inline in HTML
    figure: Figure | None = field(default=None, repr=False, compare=False)  # for layout checks


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def require() -> None:
    """MissingDependencyError (one line, naming the extra) when matplotlib is missing."""
    if not available():
        raise MissingDependencyError(INSTALL_HINT)


def _figure(width: float, height: float) -> Figure:
    require()
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.rcParams["svg.hashsalt"] = "kgcert"  # stable element ids: same data, same SVG
    return Figure(figsize=(width, height), layout="constrained")


def _save(figure: Figure, out: Path, name: str, title: str) -> Plot:
    out.mkdir(parents=True, exist_ok=True)
    png, svg = out / f"{name}.png", out / f"{name}.svg"
    figure.savefig(png, format="png", dpi=120)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue().decode("utf-8")
    svg.write_text(text, encoding="utf-8")
    return Plot(name, title, png, svg, inline_svg(text, prefix=f"{name}-"), figure)


def inline_svg(text: str, prefix: str) -> str:
    """An SVG file's root element for inlining in HTML: no XML prologue, no fixed size (CSS
    sizes it), and every id prefixed so that several figures in one page cannot collide."""
    body = text[text.find("<svg"):]
    body = re.sub(r'\s(width|height)="[^"]*"', "", body, count=2)
    body = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{prefix}{m.group(1)}"', body)
    body = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}{m.group(1)}"', body)
    return re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}{m.group(1)})", body)


def _colors(names: list[str]) -> dict[str, Any]:
    from matplotlib import colormaps

    palette = colormaps["tab10"]
    return {name: palette(i % 10) for i, name in enumerate(names)}


def _slug(text: str) -> str:
    from kgcert.rundir.layout import slug

    return slug(text)


def _model_colors(rows: pd.DataFrame, models: list[str] | None) -> tuple[list[str], dict[str, Any]]:
    """The models of `rows` and their colours (fixed by `models`, the report's whole list, so
    a model has one colour in every figure)."""
    present = sorted(str(m) for m in rows["model"].unique())
    every = list(models) if models is not None else []
    every += [m for m in present if m not in every]
    return present, _colors(every)


ROW_INCHES = 0.2  # one interval per row: room for a small tick label
CHANCE: dict[str, Any] = {"color": "0.3", "linestyle": "--", "linewidth": 1.0}  # its style
CHANCE_LABEL = "chance (1/options)"


def _legend(figure: Figure, handles: list[Any], labels: list[str],
            where: Literal["upper", "lower"]) -> None:
    """One legend for the whole figure, outside every axes (constrained layout makes room for
    it), so it never covers data, tick labels or axis labels."""
    if handles:
        place: Literal["outside upper center", "outside lower center"] = (
            "outside upper center" if where == "upper" else "outside lower center")
        figure.legend(handles, labels, loc=place, ncol=min(len(labels), 4), fontsize="small",
                      frameon=False)


def _chance_handle() -> Any:
    from matplotlib.lines import Line2D

    return Line2D([0], [0], **CHANCE)


def _row_labels(block: pd.DataFrame) -> list[str]:
    """Model names, with the run where one model has several rows in the block."""
    repeated = block["model"].duplicated(keep=False)
    return [f"{row.model} ({row.run})" if twice and "run" in block.columns else str(row.model)
            for row, twice in zip(block.itertuples(), repeated, strict=True)]


def _chance_spans(levels: list[tuple[float, float]]) -> list[tuple[float, float, float]]:
    """(level, first y, last y) for each run of consecutive rows at the same chance level."""
    spans: list[tuple[float, float, float]] = []
    for y, level in levels:
        if spans and spans[-1][0] == level and spans[-1][2] == y - 1.0:
            spans[-1] = (level, spans[-1][1], y)
        else:
            spans.append((level, y, y))
    return spans


def forest_plot(rows: pd.DataFrame, out: Path, *, name: str, title: str, group: list[str],
                lower: str = "lower", upper: str = "upper", estimate: str | None = "estimate",
                marker: str | None = None, chance: str | None = "chance",
                models: list[str] | None = None) -> Plot:
    """Intervals [lower, upper], one block of rows per `group` value (e.g. spec), models in
    colour. With several models each row is labelled with its model and each block gets a
    header row; with one, rows are labelled with the block. The estimate is a dot when given,
    the column `marker` (e.g. the baseline accuracy) a cross where it has a value, and the
    column `chance` (1/options) a dashed line across the rows it holds for."""
    require()
    present, colors = _model_colors(rows, models)
    order = {model: i for i, model in enumerate(present)}
    blocks = list(rows.groupby(group, sort=True))
    named = len(present) > 1 or any(len(block) > 1 for _, block in blocks)
    count = len(rows) + (len(blocks) if named else 0)
    figure = _figure(8.0, max(2.2, ROW_INCHES * (count + 0.5 * len(blocks)) + 1.4))
    axes = figure.add_subplot()
    ticks: list[float] = []
    labels: list[str] = []
    levels: list[tuple[float, float]] = []
    drawn: dict[str, list[tuple[float, float, float, float]]] = {m: [] for m in present}
    crosses: list[tuple[float, float]] = []
    y = 0.0
    for key, block in blocks:
        block_label = " / ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        if named:
            axes.text(0.01, y, block_label, transform=axes.get_yaxis_transform(), ha="left",
                      va="center", fontsize="small", fontweight="bold")
            y += 1.0
        block = block.sort_values(["model", *(["run"] if "run" in block.columns else [])],
                                  key=lambda c: c.map(order) if c.name == "model" else c)
        for row_label, (_, row) in zip(_row_labels(block), block.iterrows(), strict=True):
            point = (row[estimate] if estimate is not None and pd.notna(row[estimate])
                     else np.nan)
            drawn[str(row["model"])].append((y, row[lower], row[upper], point))
            if marker is not None and pd.notna(row[marker]):
                crosses.append((row[marker], y))
            if chance is not None and chance in row and pd.notna(row[chance]):
                levels.append((y, float(row[chance])))
            ticks.append(y)
            labels.append(row_label if named else block_label)
            y += 1.0
        y += 0.5
    for model, intervals in drawn.items():  # one artist per model: quick to draw and save
        if intervals:
            ys, lows, highs, points = (np.asarray(v, dtype=float) for v in zip(*intervals,
                                                                                 strict=True))
            axes.hlines(ys, lows, highs, color=colors[model], linewidth=2.5)
            axes.plot(points, ys, "o", color=colors[model], markersize=4)
    if crosses:
        axes.plot(*zip(*crosses, strict=True), "x", color="black", markersize=6)
    for level, first, last in _chance_spans(levels):
        axes.plot([level, level], [first - 0.5, last + 0.5], **CHANCE)
    axes.set_yticks(ticks, labels, fontsize="small")
    axes.tick_params(axis="y", length=0)
    axes.set_ylim(y - 0.5, -0.75)  # top to bottom
    axes.set_xlim(0.0, 1.0)
    axes.set_xlabel("accuracy")
    if count > 30:  # a tall figure: the scale at the top too
        axes.tick_params(axis="x", top=True, labeltop=True)
    axes.grid(axis="x", alpha=0.3)
    figure.suptitle(title)  # above the top scale of a tall figure
    from matplotlib.lines import Line2D

    handles: list[Any] = [] if named else [Line2D([0], [0], color=colors[m], linewidth=2.5)
                                           for m in present]
    legend_labels = [] if named else list(present)
    if estimate is not None and rows[estimate].notna().any():
        handles.append(Line2D([0], [0], color="0.3", marker="o", markersize=4, linestyle=""))
        legend_labels.append("estimate k/n")
    if marker is not None and rows[marker].notna().any():
        handles.append(Line2D([0], [0], color="black", marker="x", linestyle=""))
        legend_labels.append(marker)
    if levels:
        handles.append(_chance_handle())
        legend_labels.append(CHANCE_LABEL)
    _legend(figure, handles, legend_labels, "lower")
    return _save(figure, out, name, title)


def heatmap_plot(table: pd.DataFrame, model: str, out: Path, confidence: float = 0.95) -> Plot:
    """Task x textualization accuracy of one model, exact and flexible side by side; each
    cell gives the accuracy and its Clopper-Pearson bounds (columns `<metric>_lower` and
    `<metric>_upper` of :func:`~kgcert.report.tables.task_table`, at `confidence`)."""
    require()
    matrices = {metric: heatmap_matrix(table, model, metric) for metric in ("exact", "flexible")}
    tasks = matrices["flexible"].index
    forms = format_order(matrices["flexible"].columns)
    figure = _figure(2.6 + 2.6 * len(forms), 1.6 + 0.6 * len(tasks))
    grid = figure.subplots(1, 2, squeeze=False, sharey=True)[0]
    image = None
    for axes, (metric, matrix) in zip(grid, matrices.items(), strict=True):
        values, lower, upper = (
            frame.reindex(index=tasks, columns=forms).to_numpy(dtype=float)
            for frame in (matrix, heatmap_matrix(table, model, f"{metric}_lower"),
                          heatmap_matrix(table, model, f"{metric}_upper")))
        image = axes.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
        axes.set_xticks(range(len(forms)), forms, rotation=30, ha="right")
        axes.set_yticks(range(len(tasks)), [str(t) for t in tasks])
        axes.set_title(metric)
        for (i, j), value in np.ndenumerate(values):
            if not np.isnan(value):
                axes.text(j, i, cell_text(value, lower[i, j], upper[i, j], separator="\n"),
                          ha="center", va="center", fontsize="small",
                          color="black" if value > 0.6 else "white")
    if image is not None:
        figure.colorbar(image, ax=list(grid), shrink=0.8, label="accuracy")
    title = f"{model}: accuracy by task and format"
    figure.suptitle(f"{title}\n(each cell: accuracy [{confidence:.0%} Clopper-Pearson bounds])",
                    fontsize="medium")
    return _save(figure, out, f"heatmap_{_slug(model)}", title)


def path_length_plot(table: pd.DataFrame, out: Path, *, models: list[str] | None = None,
                     chance: Mapping[tuple[str, ...], float] | None = None) -> Plot:
    """Accuracy by path length with Clopper-Pearson error bars: one panel per spec and
    setting, one line per model (dodged sideways a little so the bars do not overlap), and a
    dashed line at the chance level of panels that have one (`chance` by spec and setting)."""
    require()
    panels = list(table.groupby(["spec", "setting"], sort=True))
    models, colors = _model_colors(table, models)
    dodge = 0.3 / max(len(models), 1)
    columns = 1 if len(panels) == 1 else 2 if len(panels) <= 4 else 3 if len(panels) <= 9 else 4
    rows = (len(panels) + columns - 1) // columns
    figure = _figure(0.6 + 3.6 * columns, 1.2 + 2.5 * rows)
    grid = figure.subplots(rows, columns, squeeze=False, sharey=True)
    chanced = False
    for number, ((spec, setting), panel) in enumerate(panels):
        axes = grid[number // columns][number % columns]
        for offset, model in enumerate(models):
            line = panel[panel["model"] == model].sort_values("path_length")
            if line.empty:
                continue
            accuracy = line["accuracy"].to_numpy(dtype=float)
            errors = np.vstack([accuracy - line["lower"].to_numpy(dtype=float),
                                line["upper"].to_numpy(dtype=float) - accuracy])
            shift = (offset - (len(models) - 1) / 2) * dodge
            axes.errorbar(line["path_length"].to_numpy(dtype=float) + shift, accuracy,
                          yerr=errors, marker="o", markersize=4, capsize=3,
                          color=colors[model])
        level = (chance or {}).get((str(spec), str(setting)))
        if level is not None:
            axes.axhline(level, **CHANCE)
            chanced = True
        axes.set_title(f"{spec} / {setting}", fontsize="small")
        axes.set_ylim(0.0, 1.02)
        axes.set_xticks(sorted(int(v) for v in panel["path_length"].unique()))
        axes.tick_params(labelsize="small")
        axes.grid(alpha=0.3)
    for number in range(len(panels), rows * columns):
        figure.delaxes(grid[number // columns][number % columns])
    figure.supxlabel("path length (hops)", fontsize="medium")
    figure.supylabel("accuracy", fontsize="medium")
    from matplotlib.lines import Line2D

    handles: list[Any] = [Line2D([0], [0], color=colors[m], marker="o", markersize=4)
                          for m in models]
    labels = list(models)
    if chanced:
        handles.append(_chance_handle())
        labels.append(CHANCE_LABEL)
    _legend(figure, handles, labels, "upper")
    title = "accuracy by path length"
    return _save(figure, out, "path_length", title)
