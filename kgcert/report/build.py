"""Build a report from run directories and write it: tables as CSV, the certificates and
samples also as Parquet (which keeps the nullable integer and boolean columns CSV loses),
figures as PNG and SVG, and one static `report.html`. Figures need the `report` extra
(matplotlib); without it the rest is written.

    report = write_report([Path("runs/a")], Path("runs/a/report"))
    report.files   # every file written
    report.notes   # what was left out and why (the `report` extra not installed)
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from kgcert.errors import InputError, KgcertError
from kgcert.report import plots
from kgcert.report.compare import Comparison, compare_all
from kgcert.report.contents import Report
from kgcert.report.run_frames import load_runs
from kgcert.report.spec_details import spec_details
from kgcert.report.suites import suite_table
from kgcert.report.tables import (
    chance_levels,
    outcome_roles,
    path_length_table,
    spec_table,
    summary_table,
    task_table,
)
from kgcert.report.variants import VariantComparison
from kgcert.rundir.layout import RunLayout, slug
from kgcert.util.output import output_to


def build_report(paths: Sequence[Path], *, confidence: float = 0.95,
                 alpha: float = 0.05, family: str = "spec") -> Report:
    """The report's tables (nothing written). InputError when the runs hold nothing.
    `family` "run" puts every paired comparison (models and variants) in one Holm family."""
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be between 0 and 1, got {confidence}")
    runs = load_runs(paths)
    if runs.certificates.empty and runs.samples.empty:
        raise InputError("no certificates or samples in " + ", ".join(
            str(run.path) for run in runs.runs) + " yet")
    comparisons: list[Comparison] = []
    variants: list[VariantComparison] = []
    apart = [run.label for run in runs.runs if run.config.get("budget") == "per-model"]
    if not runs.samples.empty:
        with contextlib.suppress(InputError):  # nothing to compare is not a report error
            comparisons, variants = compare_all(runs.samples, alpha=alpha, family=family,
                                                apart=apart)
    return Report(runs=runs, confidence=confidence, alpha=alpha,
                  summary=summary_table(runs.certificates),
                  specs=spec_table(runs.certificates),
                  tasks=task_table(runs.samples, confidence),
                  path_lengths=path_length_table(runs.samples, confidence),
                  roles=outcome_roles(runs.samples), details=spec_details(runs),
                  comparisons=comparisons, variants=variants, family=family,
                  suites=suite_table(runs.certificates))


def draw_plots(report: Report, out: Path) -> list[plots.Plot]:
    """Every figure the report's data allow; MissingDependencyError without matplotlib."""
    drawn: list[plots.Plot] = []
    certificates = report.runs.certificates
    models = sorted(set(certificates["model"]) | set(report.runs.samples["model"]))
    main = certificates[~certificates["baseline"]]
    if not report.summary.empty and report.summary["mean_lower"].notna().any():
        rows = report.summary.dropna(subset=["mean_lower"])
        levels = chance_levels(main, ["model", "setting"])
        rows = rows.assign(chance=[levels.get((str(row.model), str(row.setting)))
                                   for row in rows.itertuples()])
        drawn.append(plots.forest_plot(
            rows, out, name="forest_models", title="mean bounds over specs, per model",
            group=["setting"], lower="mean_lower", upper="mean_upper",
            estimate="mean_estimate",
            marker="baseline" if "baseline" in rows.columns else None, models=models))
    for setting in sorted(main["setting"].unique()):  # one figure per setting stays readable
        drawn.append(plots.forest_plot(
            main[main["setting"] == setting], out, name=f"forest_specs_{slug(setting)}",
            title=f"certificate bounds per spec: {setting}", group=["spec"], models=models))
    for model in sorted(report.tasks["model"].unique()) if not report.tasks.empty else []:
        drawn.append(plots.heatmap_plot(report.tasks, str(model), out, report.confidence))
    if not report.path_lengths.empty:
        drawn.append(plots.path_length_plot(report.path_lengths, out, models=models,
                                            chance=chance_levels(main, ["spec", "setting"])))
    return drawn


def write_report(paths: Sequence[Path], out: Path | None = None, *, confidence: float = 0.95,
                 alpha: float = 0.05, figures: bool = True, family: str = "spec") -> Report:
    """Build the report and write it under `out` (default `<first run>/report`)."""
    report = build_report(paths, confidence=confidence, alpha=alpha, family=family)
    out = out if out is not None else RunLayout(report.runs.runs[0].path).report_dir
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out} is a file; name a folder for the report")
    with output_to(out):
        _write_files(report, out, figures)
    return report


def _write_files(report: Report, out: Path, figures: bool) -> None:
    """Every table, figure and the HTML page, under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    report.out = out
    for name, table in report.tables().items():
        csv = out / f"{name}.csv"
        table.to_csv(csv, index=False)
        report.files.append(csv)
        if name in ("certificates", "samples"):
            target = out / f"{name}.parquet"
            table.to_parquet(target, index=False)
            report.files.append(target)
    if figures:
        try:
            report.plots = draw_plots(report, out / "figures")
        except KgcertError as missing:  # MissingDependencyError: no matplotlib
            report.notes.append(str(missing))
        for plot in report.plots:
            report.files += [plot.png, plot.svg]
    from kgcert.report.html import render

    page = out / "report.html"
    page.write_text(render(report), encoding="utf-8")
    report.files.append(page)
