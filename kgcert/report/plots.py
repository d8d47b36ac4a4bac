"""Report figures (matplotlib, drawn off-screen): each saved as PNG and SVG.

matplotlib is optional (`pip install 'kgcert[report]'`); without it every function here
raises MissingDependencyError, and the tables, CSV and HTML report are still written.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kgcert.errors import MissingDependencyError
from kgcert.report.tables import format_order, heatmap_matrix

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
    return Plot(name, title, png, svg, inline_svg(text, prefix=f"{name}-"))


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
    from kgcert.run.records import slug

    return slug(text)


def _model_colors(rows: pd.DataFrame, models: list[str] | None) -> tuple[list[str], dict[str, Any]]:
    """The models of `rows` and their colours (fixed by `models`, the report's whole list, so
    a model has one colour in every figure)."""
    present = sorted(str(m) for m in rows["model"].unique())
    every = list(models) if models is not None else []
    every += [m for m in present if m not in every]
    return present, _colors(every)


def forest_plot(rows: pd.DataFrame, out: Path, *, name: str, title: str, group: list[str],
                lower: str = "lower", upper: str = "upper", estimate: str | None = "estimate",
                marker: str | None = None, models: list[str] | None = None) -> Plot:
    """Intervals [lower, upper] per model, one block of rows per `group` value (e.g. spec and
    setting), models in colour; the estimate as a dot when given, and the column `marker`
    (e.g. the baseline accuracy) as a cross where it has a value."""
    require()
    models, colors = _model_colors(rows, models)
    blocks = list(rows.groupby(group, sort=True))
    height = max(2.0, 0.28 * len(rows) + 0.35 * len(blocks) + 1.0)
    figure = _figure(8.0, height)
    axes = figure.add_subplot()
    ticks, labels = [], []
    y = 0.0
    for key, block in blocks:
        keys = key if isinstance(key, tuple) else (key,)
        labels.append(" / ".join(str(k) for k in keys))
        start = y
        for model in models:
            for _, row in block[block["model"] == model].iterrows():
                axes.plot([row[lower], row[upper]], [y, y], color=colors[model], linewidth=2.5)
                if estimate is not None and pd.notna(row[estimate]):
                    axes.plot([row[estimate]], [y], "o", color=colors[model], markersize=4)
                if marker is not None and pd.notna(row[marker]):
                    axes.plot([row[marker]], [y], "x", color="black", markersize=6)
                y += 1.0
        ticks.append((start + y - 1.0) / 2)
        y += 0.8
    axes.set_yticks(ticks, labels)
    axes.invert_yaxis()
    axes.set_xlim(0.0, 1.0)
    axes.set_xlabel("accuracy")
    axes.grid(axis="x", alpha=0.3)
    axes.set_title(title)
    from matplotlib.lines import Line2D

    handles = [Line2D([0], [0], color=colors[m], linewidth=2.5) for m in models]
    labels = list(models)
    if marker is not None and rows[marker].notna().any():
        handles.append(Line2D([0], [0], color="black", marker="x", linestyle=""))
        labels.append(marker)
    axes.legend(handles, labels, loc="upper center",
                bbox_to_anchor=(0.5, -0.08 if height > 3 else -0.2), ncol=min(len(labels), 3),
                fontsize="small", frameon=False)
    return _save(figure, out, name, title)


def heatmap_plot(table: pd.DataFrame, model: str, out: Path) -> Plot:
    """Task x textualization accuracy of one model, exact and flexible side by side."""
    require()
    matrices = {metric: heatmap_matrix(table, model, metric) for metric in ("exact", "flexible")}
    tasks = matrices["flexible"].index
    forms = format_order(matrices["flexible"].columns)
    figure = _figure(max(5.0, 1.6 + 2.2 * len(forms)), 1.4 + 0.45 * len(tasks))
    grid = figure.subplots(1, 2, squeeze=False)[0]
    image = None
    for axes, (metric, matrix) in zip(grid, matrices.items(), strict=True):
        values = matrix.reindex(index=tasks, columns=forms).to_numpy(dtype=float)
        image = axes.imshow(values, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
        axes.set_xticks(range(len(forms)), forms, rotation=30, ha="right")
        axes.set_yticks(range(len(tasks)), [str(t) for t in tasks])
        axes.set_title(metric)
        for (i, j), value in np.ndenumerate(values):
            if not np.isnan(value):
                axes.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize="small",
                          color="black" if value > 0.6 else "white")
    if image is not None:
        figure.colorbar(image, ax=list(grid), shrink=0.8, label="accuracy")
    title = f"{model}: accuracy by task and format"
    figure.suptitle(title)
    return _save(figure, out, f"heatmap_{_slug(model)}", title)


def path_length_plot(table: pd.DataFrame, out: Path, *, models: list[str] | None = None) -> Plot:
    """Accuracy by path length with Clopper-Pearson error bars: one panel per spec and
    setting, one line per model (dodged sideways a little so the bars do not overlap)."""
    require()
    panels = list(table.groupby(["spec", "setting"], sort=True))
    models, colors = _model_colors(table, models)
    dodge = 0.3 / max(len(models), 1)
    columns = min(len(panels), 2)
    rows = (len(panels) + columns - 1) // columns
    figure = _figure(5.0 * columns, 3.2 * rows)
    grid = figure.subplots(rows, columns, squeeze=False)
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
                          yerr=errors,
                          marker="o", capsize=3, color=colors[model], label=model)
        axes.set_title(f"{spec} / {setting}", fontsize="medium")
        axes.set_xlabel("path length (hops)")
        axes.set_ylabel("accuracy")
        axes.set_ylim(0.0, 1.02)
        lengths = sorted(int(v) for v in panel["path_length"].unique())
        axes.set_xticks(lengths)
        axes.grid(alpha=0.3)
        axes.legend(fontsize="small")
    for number in range(len(panels), rows * columns):
        grid[number // columns][number % columns].set_visible(False)
    title = "accuracy by path length"
    return _save(figure, out, "path_length", title)
