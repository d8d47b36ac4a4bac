"""`kgcert run` (certify models on specs) and `kgcert plan` (how many samples a width needs)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from kgcert import defaults
from kgcert.cli.common import Context, console, errors
from kgcert.cli.console import keep_names, print_table
from kgcert.cli.progress import progress_display
from kgcert.config import data_dir
from kgcert.errors import InputError
from kgcert.heap import pace_for_prompts
from kgcert.output import output_to
from kgcert.run.config import UNHASHED, RunConfig, load_run_config, with_quantization

_locks: list[Any] = []  # run-directory locks, held until the process ends


@contextmanager
def _run_dir(config: RunConfig, out: Path | None) -> Iterator[Path]:
    """The run directory, locked for this process; refuses a file or a folder that holds
    another run. A run that fails before writing anything leaves no empty folder behind."""
    run_dir = out or default_run_dir(config)
    if run_dir.exists() and not run_dir.is_dir():
        raise InputError(f"--out {run_dir} is a file; name a folder for the run")
    saved = run_dir / "run.yaml"
    if saved.exists():
        previous = load_run_config(saved, {})
        if previous.fingerprint() != config.fingerprint():
            changed = sorted(k for k, v in config.model_dump().items()
                             if previous.model_dump().get(k) != v and k not in UNHASHED)
            raise InputError(f"{run_dir} holds a different run (changed: {', '.join(changed)}); "
                             "choose another --out")
    created = _topmost_missing(run_dir)
    with output_to(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
        lock = (run_dir / ".lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise InputError(f"another kgcert run is writing to {run_dir}") from None
    _locks.append(lock)
    try:
        yield run_dir
    except BaseException:
        if created is not None:
            _remove_unused(run_dir, created)
        raise


def default_run_dir(config: RunConfig, root: Path = Path("runs")) -> Path:
    """runs/<kg>-<first spec>[+N]-<date>-<config hash>: readable, and the same command run
    again (another day too) finds the folder of its hash and resumes there."""
    import re
    from datetime import date

    fingerprint = config.fingerprint()
    for found in sorted(root.glob(f"*-{fingerprint[:8]}")) if root.is_dir() else []:
        if (found / "run.yaml").is_file() and load_run_config(
                found / "run.yaml", {}).fingerprint() == fingerprint:
            return found
    first = config.specs[0] if config.specs else "run"
    spec = Path(first).stem if first.endswith((".yaml", ".yml")) else first.split(".")[-1]
    more = f"+{len(config.specs) - 1}" if len(config.specs) > 1 else ""
    parts = [re.sub(r"[^A-Za-z0-9_-]+", "_", part) for part in (config.kg, spec)]
    return root / f"{parts[0]}-{parts[1]}{more}-{date.today():%Y%m%d}-{fingerprint[:8]}"


def _topmost_missing(path: Path) -> Path | None:
    """The first folder of `path` that does not exist yet (None when `path` exists)."""
    missing = None
    while not path.exists():
        missing, path = path, path.parent
    return missing


def _remove_unused(run_dir: Path, created: Path) -> None:
    """Remove the folders this run created (up to `created`) if they hold only its lock."""
    if {p.name for p in run_dir.iterdir()} != {".lock"}:
        return
    with contextlib.suppress(OSError):
        (run_dir / ".lock").unlink()
        folder = run_dir
        while True:
            folder.rmdir()
            if folder == created:
                break
            folder = folder.parent


class _Display:
    """Rich progress: one bar per certificate with samples/s, correct so far and bounds."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}
        self.started: dict[str, tuple[float, int]] = {}

    def update(self, label: str, done: int, total: int, correct: int,
               bounds: tuple[float, float] | None) -> None:
        now = time.monotonic()
        if label not in self.tasks:
            self.tasks[label] = self.progress.add_task(label, total=total, info="")
            self.started[label] = (now, done)
        start, first = self.started[label]
        rate = (done - first) / max(now - start, 1e-9)
        if bounds is None:
            from kgcert.stats import clopper_pearson

            interval = clopper_pearson(correct, done) if done else None
            bounds = (interval.lower, interval.upper) if interval else (0.0, 1.0)
        self.progress.update(self.tasks[label], completed=done,
                             info=f"{correct}/{done} correct, [{bounds[0]:.3f}, {bounds[1]:.3f}], "
                                  f"{rate:.1f}/s")


@click.command("run")
@click.option("--config", "config_file", type=click.Path(path_type=Path),
              help="A YAML run file; flags override its values.")
@click.option("--kg", default=None, help="The loaded KG.")
@click.option("--spec", "specs", multiple=True, help="Spec name or file (repeatable).")
@click.option("--model", "models", multiple=True,
              help="Provider string, e.g. smollm2, hf:./model, openai:gpt-4o-mini, bernoulli:0.8 "
                   "(repeatable).")
@click.option("--setting", "settings", multiple=True,
              type=click.Choice(["vanilla", "distractor"]),
              help="Relation and entity specs: vanilla, or distractor (Definition 2.3 "
                   "distractors in the context); repeatable, default vanilla.")
@click.option("--format", "formats", multiple=True,
              help="Textualization for task specs: list, json, yaml, turtle, jsonld "
                   "(repeatable: each a setting).")
@click.option("--entity-names", "entity_names", multiple=True,
              type=click.Choice(["real", "pseudonymized"]),
              help="Task specs: real and/or pseudonymized entity names, each a setting "
                   "(repeatable; default real).")
@click.option("--strategy", "strategies", multiple=True,
              type=click.Choice(["standard", "system", "cot", "tot"]),
              help="Prompting strategy, each a setting paired with the standard prompt by "
                   "index: system (the --system-prompt), cot (chain of thought), tot (tree of "
                   "thoughts). Repeatable; default standard.")
@click.option("--system-prompt", default=None,
              help="System message of the system strategy: text, or @FILE for a file's text.")
@click.option("--reasoning-tokens", type=int, default=None,
              help="Extra answer tokens for reasoning: cot adds this to --max-new-tokens, tot "
                   "twice this (default 384).")
@click.option("--temperature", type=float, default=None,
              help="Sampling temperature (default 0: greedy).")
@click.option("--distractor-weighting", type=click.Choice(["tail", "head", "uniform"]),
              default=None,
              help="Entity specs, distractor setting: how distractor paths are weighted "
                   "(default tail).")
@click.option("--n", type=int, default=None, help="Samples per certificate (default 250).")
@click.option("--confidence", type=float, default=None,
              help="Confidence of each certificate's bounds (default 0.95; with --simultaneous "
                   "the whole run's).")
@click.option("--seed", type=int, default=None, help="Run seed (default 0).")
@click.option("--batch-size", type=int, default=None,
              help="Prompts sent to a model at once (default 16); a resume may change it.")
@click.option("--max-new-tokens", type=int, default=None,
              help="Longest reply, in tokens (default 128; cot and tot add reasoning tokens).")
@click.option("--mode", type=click.Choice(["generate", "choice"]), default=None,
              help="choice: local models score the option numbers (never unparseable).")
@click.option("--options", type=int, default=None,
              help=f"Options per question (default {defaults.OPTIONS}).")
@click.option("--few-shot", type=int, default=None,
              help=f"Worked examples, 0-5 (default {defaults.FEW_SHOT}).")
@click.option("--context-chars", type=int, default=None,
              help="Prompt budget in characters when a model's tokenizer is unknown (default "
                   "12000); prompts whose essential sentences do not fit are skipped, counted.")
@click.option("--context-tokens", type=int, default=None,
              help="Cap on the prompt budget of local models, counted by their tokenizers "
                   "(default: their context window less the answer).")
@click.option("--baseline", type=int, default=None,
              help="Also run the paper's static baseline: this many prompts per spec with "
                   "fixed names and no noise (the paper uses 50).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Smoke test: at most this many samples per certificate.")
@click.option("--half-width", type=float, default=None,
              help="Sequential mode: stop at this half-width (anytime-valid bounds).")
@click.option("--threshold", type=float, default=None,
              help="Sequential mode: stop once the bounds clear this accuracy.")
@click.option("--simultaneous", is_flag=True, default=None,
              help="Bonferroni: all certificates of the run hold together.")
@click.option("--specs-dir", "specs_dirs", multiple=True, type=click.Path(path_type=Path),
              help="A folder of your spec files (repeatable); recorded in run.yaml, and the "
                   "spec files a run uses are copied into its specs/ folder.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Run directory (default runs/<kg>-<spec>-<date>-<config hash>); rerun the "
                   "same command to resume.")
@click.option("--quant", type=click.Choice(["4bit", "8bit"]), default=None,
              help="Load hf: models with 4- or 8-bit weights (bitsandbytes, CUDA only); "
                   "recorded in the certificates' model identity.")
@click.option("--json", "as_json", is_flag=True,
              help="Print each certificate as one JSON line (progress goes to stderr).")
@click.pass_obj
def run_command(ctx: Context, config_file: Path | None, limit: int | None,
                half_width: float | None, threshold: float | None,
                specs_dirs: tuple[Path, ...], out: Path | None, quant: str | None,
                as_json: bool, **flags: Any) -> None:
    """Certify models on specs: bounds on P(correct) for prompts drawn from each spec."""
    from kgcert.run.entity_names import write_entity_names
    from kgcert.run.jobs import build_jobs, build_models, prompt_budgets
    from kgcert.run.preflight import preflight_warnings
    from kgcert.run.runner import Progress as RunProgress
    from kgcert.run.runner import Runner
    from kgcert.run.spec_files import save_run_specs, use_copies_of

    pace_for_prompts()
    if half_width is not None or threshold is not None:
        flags["sequential"] = {"half_width": half_width, "threshold": threshold}
    if specs_dirs:  # recorded in run.yaml, so the run file finds the same specs
        flags["specs_dirs"] = tuple(str(folder.resolve()) for folder in specs_dirs)
    config = load_run_config(config_file, flags)
    if quant is not None:
        config = with_quantization(config, quant)
    if limit is not None:
        config = load_run_config(None, config.model_dump() | {
            "n": min(config.n, limit), "baseline": min(config.baseline, limit)})
    with _run_dir(config, out) as run_dir:
        store = ctx.server().open(config.kg)
        cache = data_dir(ctx.data_dir) / "cache"
        models = build_models(config, cache / "responses")
        # Folders named now must exist; those a run file recorded may be gone (the copies
        # in the run folder stand in for their files).
        spec_dirs = list(specs_dirs) or [Path(f) for f in config.specs_dirs if Path(f).is_dir()]
        for folder in (config_file.parent if config_file else None, run_dir):
            if folder is not None:
                use_copies_of(folder)  # a run folder's own copies, when the originals are gone
        jobs = build_jobs(store, config, spec_dirs, cache / "specs",
                          lambda answer: prompt_budgets(config, models, answer))
        save_run_specs(run_dir, store, config.specs, spec_dirs)
        for warning in preflight_warnings(store, config, spec_dirs, cache / "specs"):
            errors.print(Text(f"warning: {warning}"), style="yellow", soft_wrap=True)
        columns = [TextColumn("{task.description}"), BarColumn(), TextColumn(
            "{task.completed}/{task.total}"), TextColumn("{task.fields[info]}"),
            TimeRemainingColumn()]
        with progress_display(*columns, console=errors if as_json else console) as progress:
            display = _Display(progress)
            runner = Runner(config, run_dir, jobs, models, RunProgress(display.update))
            _warn_unreachable(config, runner.confidence)
            paths = runner.run()
        write_entity_names(store, run_dir)  # the report captions subgraphs by name
    if as_json:
        for path in paths:
            body = json.loads(path.read_text(encoding="utf-8"))
            click.echo(json.dumps({**body, "file": str(path)}, ensure_ascii=False))
        return
    _print_certificates(paths)
    console.print(Text(f"certificates and samples in {run_dir}"))


def _warn_unreachable(config: RunConfig, confidence: float) -> None:
    """`--half-width` that n samples cannot reach when the accuracy is near 0.5."""
    target = config.sequential.half_width if config.sequential else None
    if target is None:
        return
    from kgcert.stats import plan_sequential_size

    needed = plan_sequential_size(target, confidence=confidence).n
    if config.n < needed:
        console.print(Text(f"warning: n = {config.n} cannot reach half-width {target} at "
                           f"confidence {confidence:.6g} when the accuracy is near 0.5 (the "
                           f"sequence needs n = {needed}); such certificates end wider"),
                      style="yellow")


def _print_certificates(paths: list[Path]) -> None:
    table = Table(show_header=True, header_style="bold")
    for column in ("spec", "setting", "model", "seed", "k / n", "lower", "upper", "chance",
                   "unparseable", "errors", "skipped"):
        table.add_column(column, no_wrap=column in ("k / n", "lower", "upper"))
    warnings = []
    for path in paths:
        body = json.loads(path.read_text(encoding="utf-8"))
        outcomes = body["outcomes"]
        chance = body.get("chance")
        table.add_row(Text(body["spec"]), body["setting"], Text(body["model"]),
                      str(body.get("seed")), f"{body['k']} / {body['n']}",
                      f"{body['lower']:.3f}", f"{body['upper']:.3f}",
                      f"{chance['level']:.3f} ({chance['reading'].split(' (')[0]})"
                      if chance else "-", str(outcomes["unparseable"]),
                      str(outcomes["error"]), str(outcomes["skipped"]))
        warnings += body.get("warnings", [])
    print_table(console, keep_names(table, "spec", "setting", "model"))
    for warning in warnings:
        console.print(Text(f"warning: {warning}"), style="yellow")
    console.print(Text("Each certificate's `guarantee` field says what it certifies; the "
                       "seed is the run's --seed (0 unless given), fixed in advance."))


@click.command("plan")
@click.option("--half-width", type=float, required=True, help="Target half-width, e.g. 0.05.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--p", "guess", type=float, default=0.5, show_default=True,
              help="Guessed accuracy (0.5 is the worst case).")
@click.option("--simultaneous", "family", type=click.IntRange(min=1), default=1,
              show_default=True,
              help="Certificates in the run's Bonferroni family (run --simultaneous).")
@click.option("--sequential", is_flag=True,
              help="Plan for the anytime-valid sequence that run --half-width reports.")
def plan_command(half_width: float, confidence: float, guess: float, family: int,
                 sequential: bool) -> None:
    """How many samples a certificate needs for a target half-width."""
    from kgcert.stats import bonferroni_confidence, plan_sample_size, plan_sequential_size

    if not 0 < half_width < 0.5:
        raise InputError(f"--half-width must be between 0 and 0.5, got {half_width}")
    if not 0 < confidence < 1:
        raise InputError(f"--confidence must be between 0 and 1, got {confidence}")
    if not 0 <= guess <= 1:
        raise InputError(f"--p must be between 0 and 1, got {guess}")
    each = bonferroni_confidence(confidence, family)
    planner = plan_sequential_size if sequential else plan_sample_size
    plan = planner(half_width, confidence=each, p=guess)
    method = ("the anytime-valid mixture sequence" if sequential
              else "Clopper-Pearson with n fixed in advance")
    joint = (f", each of {family} certificates at {each:.6g} (Bonferroni)" if family > 1 else "")
    console.print(f"n = {plan.n} samples give a half-width of at most {half_width} at "
                  f"{confidence:.0%} confidence{joint} with {method}, when the accuracy is "
                  f"near {guess}", highlight=False)


COMMANDS = [run_command, plan_command]
