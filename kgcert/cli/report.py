"""`kgcert report` (tables, figures and an HTML page from run directories) and `kgcert compare`
(paired McNemar tests and a Holm-corrected hierarchy of the models of those runs)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table
from rich.text import Text

from kgcert.cli.common import console
from kgcert.cli.console import keep_names, print_table
from kgcert.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from kgcert.report import Alignment, Comparison
    from kgcert.report.run_frames import RunInfo, RunSet
    from kgcert.report.variants import VariantComparison
    from kgcert.stats import Hierarchy

# Text columns shown like numbers (right-aligned, never wrapped).
FIGURES = {"k/n", "bounds", "mean of bounds", "unp/err/skip", "list", "json", "yaml", "turtle",
           "jsonld"}
# Columns of names a reader needs whole (never cut, never folded mid-name).
NAME_COLUMNS = {"spec", "model", "setting", "run", "kg", "task", "textualization", "A", "B"}
RUNS = click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))


def _table(frame: pd.DataFrame, title: str, digits: int = 3) -> Table:
    from kgcert.report.tables import fmt

    table = Table(title=title, show_header=True, header_style="bold", title_justify="left")
    for column in frame.columns:
        numeric = frame[column].dtype.kind in "iuf" or column in FIGURES
        # Names fold onto a second line rather than being cut; figures never wrap.
        table.add_column(str(column), justify="right" if numeric else "left",
                         no_wrap=numeric, overflow="ellipsis" if numeric else "fold")
    for row in frame.itertuples(index=False):
        table.add_row(*(Text(fmt(value, digits)) for value in row))
    names = [str(c) for c in frame.columns if str(c) in NAME_COLUMNS]
    return keep_names(table, *names)


def _summary_columns(frame: pd.DataFrame) -> pd.DataFrame:
    names = {"mean_lower": "lower", "mean_upper": "upper", "mean_estimate": "estimate"}
    return frame.drop(columns=["certificates"]).rename(columns=names)


def _bounds_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """One spec's certificates as printed: k/n, [lower, upper] and the counts left out
    (unparseable answers, failed calls, skipped prompts)."""
    from kgcert.report.tables import fmt

    shown = frame[["setting", "model"]].copy()
    shown["run"] = frame["run"]
    shown["k/n"] = [f"{k}/{n}" for k, n in zip(frame["k"], frame["n"], strict=True)]
    shown["bounds"] = [f"[{fmt(lo)}, {fmt(up)}]"
                       for lo, up in zip(frame["lower"], frame["upper"], strict=True)]
    shown["unp/err/skip"] = [f"{u}/{e}/{s}" for u, e, s in zip(
        frame["unparseable"], frame["error"], frame["skipped"], strict=True)]
    return shown


@click.command("report")
@RUNS
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the report (default: <first run>/report).")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.95, show_default=True,
              help="Confidence of the per-path-length bounds.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Level of the paired comparisons.")
@click.option("--no-figures", is_flag=True, help="Tables, CSV and HTML only.")
@click.option("--family", type=click.Choice(["spec", "run"]), default="spec", show_default=True,
              help="Holm family of the paired comparisons: each comparison apart, or every "
                   "pair of the runs at once.")
def report_command(runs: tuple[Path, ...], out: Path | None, confidence: float, alpha: float,
                   no_figures: bool, family: str) -> None:
    """Tables, figures (PNG/SVG), CSV/Parquet and one HTML page from run directories."""
    import pandas as pd

    from kgcert.report import heatmap_matrix, write_report
    from kgcert.report.tables import fmt

    report = write_report(list(runs), out, confidence=confidence, alpha=alpha,
                          figures=not no_figures, family=family)
    if not report.summary.empty:
        print_table(console, _table(_summary_columns(report.summary),
                                    "Mean of the certificates' bounds over specs, per model and "
                                    "setting (a summary, not a confidence statement; n = 0 and "
                                    "suites left out)"))
    if not report.suites.empty:
        _print_suites(report.suites)
    several_runs = report.specs["run"].nunique() > 1
    for spec, rows in report.specs.groupby("spec", sort=True):
        shown = _bounds_columns(rows)
        if not several_runs:
            shown = shown.drop(columns=["run"], errors="ignore")
        print_table(console, _table(shown, f"Certificates: {spec}"))
    if not report.tasks.empty:
        for model in sorted(report.tasks["model"].unique()):
            exact = heatmap_matrix(report.tasks, str(model), "exact")
            flexible = heatmap_matrix(report.tasks, str(model), "flexible")
            cells = pd.DataFrame({form: [f"{fmt(e, 2)} / {fmt(f, 2)}" for e, f in zip(
                exact[form], flexible[form], strict=True)] for form in exact.columns},
                index=exact.index)
            print_table(console, _table(cells.reset_index(),
                                 f"{model}: accuracy (exact / flexible), task x format"))
    for spec, rows in (report.path_lengths.groupby("spec", sort=True)
                       if not report.path_lengths.empty else []):
        shown = pd.DataFrame({
            "setting": rows["setting"], "model": rows["model"], "hops": rows["path_length"],
            "k/n": [f"{k}/{n}" for k, n in zip(rows["k"], rows["n"], strict=True)],
            "accuracy": rows["accuracy"],
            "bounds": [f"[{fmt(lo)}, {fmt(up)}]"
                       for lo, up in zip(rows["lower"], rows["upper"], strict=True)]})
        print_table(console, _table(shown, f"Accuracy by path length: {spec} ({confidence:.0%} "
                                    "Clopper-Pearson per length)"))
    if report.comparisons or report.variants:
        from kgcert.report.compare import family_statement

        console.print(Text("paired comparisons (report.html): " + family_statement(
            family, [*report.comparisons, *report.variants])))
    for note in report.notes:
        console.print(Text(f"note: {note}"), style="yellow")
    folder = report.out
    console.print(Text(f"report written to {folder / 'report.html'} ({len(report.files)} files "
                       f"in {folder})"))


def _print_suites(suites: pd.DataFrame) -> None:
    """Each suite certificate (certified: the mixture) beside the mean of its specs' own
    bounds (a mean of bounds) and its per-spec counts (not certified)."""
    import pandas as pd

    from kgcert.report.tables import fmt

    shown = pd.DataFrame({
        "suite": suites["suite"], "setting": suites["setting"], "model": suites["model"],
        "k/n": [f"{k}/{n}" for k, n in zip(suites["k"], suites["n"], strict=True)],
        "bounds": [f"[{fmt(lo)}, {fmt(up)}]"
                   for lo, up in zip(suites["lower"], suites["upper"], strict=True)],
        "mean of bounds": [f"[{fmt(lo)}, {fmt(up)}]" if lo == lo else "-" for lo, up in zip(
            suites["mean_of_bounds_lower"], suites["mean_of_bounds_upper"], strict=True)],
        "per spec (not certified)": suites["per_spec_not_certified"]})
    print_table(console, _table(shown, "Suite certificates: bounds on the mixture (certified), "
                                "beside the mean of its specs' own bounds in these runs (a mean "
                                "of bounds, not a confidence statement; - when a spec has none)"))


def _which(better: str | None, model_a: str) -> str:
    return "-" if better is None else ("A" if better == model_a else "B")


def _print_comparison(item: Comparison, unpaired: str | None = None) -> None:
    _print_tests(f"{item.spec} / {item.setting}", item.alignment, item.hierarchy, "model",
                 unpaired)


def seed_note(runs: Sequence[RunInfo]) -> str | None:
    """Why runs with different seeds share no prompt, and how to pair them; None when every
    run has the same seed."""
    seeds = {run.label: run.config.get("seed") for run in runs}
    if len({str(seed) for seed in seeds.values()}) < 2:
        return None
    shown = ", ".join(f"{label} seed {seed}" for label, seed in seeds.items())
    first = next(iter(seeds.values()))
    return (f"the runs drew their prompts with different seeds ({shown}), so index i is a "
            f"different prompt in each; to pair them, run the others again with --seed {first} "
            "(the same spec, KG and budget) and compare those")


def _print_variants(item: VariantComparison) -> None:
    settings = ", ".join(f"{variant} = {setting}" for variant, setting
                         in sorted(item.settings.items()))
    _print_tests(item.title, item.alignment, item.hierarchy, "variant")
    console.print(Text(f"  settings: {settings}"))


def _print_tests(title: str, aligned: Alignment, ranked: Hierarchy | None, what: str,
                 unpaired: str | None = None) -> None:
    """One comparison: shared prompts, every pair's McNemar test and the Holm hierarchy of
    the models (or of one model's variants of a setting)."""
    dropped = [f"{count} {reason}" for count, reason in (
        (aligned.missing, f"not answered in every {what}"),
        (aligned.failed, "with an error or skipped prompt"),
        (aligned.mismatched, "with differing prompts")) if count]
    shared = (f"{aligned.n} shared prompts" if aligned.n  # never "0 shared prompts"
              else "no prompt in common" if aligned.mismatched and not aligned.missing
              else f"no prompt answered by every {what}")
    header = f"{title}: {shared}" + (f" (dropped: {', '.join(dropped)})" if dropped else "")
    console.print(Text(header, style="bold"))
    if ranked is None:
        if unpaired is not None and aligned.mismatched and not aligned.n:
            console.print(Text(f"  nothing to test: {unpaired}"))
        else:
            console.print(Text(f"  no prompt answered in every {what}: nothing to test"))
        return
    table = Table(show_header=True, header_style="bold",
                  caption="b: A right, B wrong; c: A wrong, B right; p: exact McNemar, and "
                          "Holm-adjusted over the pairs; Holm better: the significantly "
                          f"better {what} (- none), the claim that holds with every other "
                          "of the family at alpha; unadjusted: this pair's own test alone, "
                          f"no claim (among equal {what}s some pair is called different "
                          "more often than alpha)", caption_justify="left")
    for column in ("A", "B", "b", "c", "p", "unadjusted", "Holm p", "Holm better"):
        numeric = column in ("b", "c", "p", "Holm p")
        table.add_column(column, justify="right" if numeric else "left", no_wrap=numeric,
                         overflow="ellipsis" if numeric else "fold")
    for pair in ranked.comparisons:
        test = pair.test
        table.add_row(Text(test.model_a), Text(test.model_b), str(test.b), str(test.c),
                      f"{test.p_value:.2g}", _which(test.better, test.model_a),
                      f"{pair.adjusted_p:.2g}", _which(pair.better, test.model_a))
    print_table(console, keep_names(table, "A", "B"))
    accuracy = {m.name: f"{m.correct}/{m.n}" for m in ranked.models}
    groups = " > ".join("{" + ", ".join(f"{name} {accuracy[name]}" for name in group) + "}"
                        for group in ranked.groups)
    console.print(Text(f"  hierarchy (Holm, alpha {ranked.alpha}): {groups}"))


@click.command("compare")
@RUNS
@click.option("--spec", default=None, help="Only this spec.")
@click.option("--setting", default=None,
              help="Only this setting (or task format), and the variant comparisons that "
                   "include it.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.05, show_default=True, help="Family-wise error level (Holm).")
@click.option("--family", type=click.Choice(["spec", "run"]), default="spec", show_default=True,
              help="Holm family: each (spec, setting) apart, or all pairs of the runs at once.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the comparison: a .json file, or a folder for compare.json "
                   "(default: <run>/report/compare.json for one run; for several, "
                   "compare-<run>+<run>.json beside the first).")
@click.option("--json", "as_json", is_flag=True,
              help="Print each comparison as one JSON line instead of tables.")
def compare_command(runs: tuple[Path, ...], spec: str | None, setting: str | None,
                    alpha: float, family: str, out: Path | None, as_json: bool) -> None:
    """Paired exact McNemar tests and Holm-corrected hierarchies on prompts aligned by sample
    index: models, task formats, entity names, prompting strategies.

    Models are compared per spec and setting; the variants of a setting (textualizations,
    real against pseudonymized names, strategies against the standard prompt) per spec and
    model."""
    from kgcert.report import compare_json, load_runs
    from kgcert.report.compare import compare_all, family_statement
    from kgcert.rundir.atomic import write_json

    loaded = load_runs(list(runs))
    _one_kg(loaded)
    apart = [run.label for run in loaded.runs if run.config.get("budget") == "per-model"
             and len(run.config.get("models") or ()) > 1]
    for label in apart:
        console.print(Text(f"{label}: its models were certified on different populations "
                           "(--budget per-model: each model its own prompts), so they are not "
                           "compared"), style="yellow")
    comparisons, variants = compare_all(loaded.samples, alpha=alpha, spec=spec,
                                        setting=setting, family=family, apart=apart)
    body = compare_json(comparisons, alpha=alpha, family=family, variants=variants,
                        runs=[str(run.path) for run in loaded.runs])
    target = compare_target(loaded.runs, out)
    write_json(target, body)
    _like_report_files(target)
    if as_json:  # the same records as compare.json, one line each
        for record in [*body["comparisons"], *body["variants"]]:
            click.echo(json.dumps(record, ensure_ascii=False, default=str))
        return
    unpaired = seed_note(loaded.runs)
    for item in comparisons:
        _print_comparison(item, unpaired)
    if variants:
        console.print(Text("Variants of a setting, per spec and model (paired by index):",
                           style="bold underline"))
    for variant in variants:
        _print_variants(variant)
    console.print(Text("multiplicity: " + family_statement(family, [*comparisons, *variants])))
    console.print(Text(f"comparisons written to {target}"))


def _one_kg(loaded: RunSet) -> None:
    """Paired tests pair prompt i of one run with prompt i of another, which is the same
    prompt only on the same KG: runs on KGs with different fingerprints are refused."""
    where = {run.label: run.path for run in loaded.runs}
    found: dict[str, tuple[str, str]] = {}  # fingerprint -> (run path, kg)
    certificates = loaded.certificates
    for row in certificates.itertuples(index=False):
        fingerprint = getattr(row, "kg_fingerprint", None)
        if not isinstance(fingerprint, str) or not fingerprint:
            continue
        found.setdefault(fingerprint, (str(where.get(row.run, row.run)), str(row.kg)))
        if len(found) > 1:
            (first, (run_a, kg_a)), (second, (run_b, kg_b)) = list(found.items())[:2]
            raise InputError(f"{run_a} was run on KG {kg_a} (fingerprint {first}) and {run_b} "
                             f"on KG {kg_b} (fingerprint {second}): prompt i is not the same "
                             "prompt on different graphs, so they cannot be paired; compare "
                             "runs of one KG")


def compare_target(runs: Sequence[Any], out: Path | None) -> Path:
    """Where a comparison goes: where the user says, else into the run's report folder for
    one run, else beside the runs under a name of them all (so comparing other runs never
    overwrites it)."""
    from kgcert.rundir.layout import COMPARE_FILE, slug
    from kgcert.rundir.run_dir import run_dir_of

    if out is not None:
        return out if out.suffix == ".json" else out / COMPARE_FILE
    if len(runs) == 1:
        return run_dir_of(runs[0].path).compare_file
    name = "+".join(slug(run.path.resolve().name) for run in runs)
    if len(name) > 150:  # many runs: a stable short name
        import hashlib

        name = name[:100] + "-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    return runs[0].path.resolve().parent / f"compare-{name}.json"


def _like_report_files(path: Path) -> None:
    """Readable as the report's other files are (the atomic write makes it owner-only)."""
    mask = os.umask(0)
    os.umask(mask)
    path.chmod(0o666 & ~mask)


COMMANDS = [report_command, compare_command]
