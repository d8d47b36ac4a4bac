"""`kgcert run` (certify models on specs) and `kgcert plan` (how many samples a width needs)."""

from __future__ import annotations

import fcntl
import json
import time
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from kgcert import defaults
from kgcert.cli.common import Context, console, errors
from kgcert.cli.progress import progress_display
from kgcert.config import data_dir
from kgcert.errors import InputError
from kgcert.run.config import UNHASHED, RunConfig, load_run_config, with_quantization


def _resolve_run_dir(config: RunConfig, out: Path | None) -> Path:
    """The run directory, locked for this process; refuses one that holds another run."""
    run_dir = out or Path("runs") / f"{config.kg}-{config.fingerprint()}"
    saved = run_dir / "run.yaml"
    if saved.exists():
        previous = load_run_config(saved, {})
        if previous.fingerprint() != config.fingerprint():
            changed = sorted(k for k, v in config.model_dump().items()
                             if previous.model_dump().get(k) != v and k not in UNHASHED)
            raise InputError(f"{run_dir} holds a different run (changed: {', '.join(changed)}); "
                             "choose another --out")
    run_dir.mkdir(parents=True, exist_ok=True)
    lock = (run_dir / ".lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise InputError(f"another kgcert run is writing to {run_dir}") from None
    _locks.append(lock)  # held until the process ends
    return run_dir


_locks: list[Any] = []


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
              type=click.Choice(["vanilla", "distractor"]), help="Repeatable.")
@click.option("--format", "formats", multiple=True,
              help="Textualization for task specs: list, json, yaml, turtle, jsonld.")
@click.option("--n", type=int, default=None, help="Samples per certificate (default 250).")
@click.option("--confidence", type=float, default=None, help="Default 0.95.")
@click.option("--seed", type=int, default=None, help="Run seed (default 0).")
@click.option("--batch-size", type=int, default=None)
@click.option("--max-new-tokens", type=int, default=None)
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
@click.option("--specs-dir", "specs_dirs", multiple=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Run directory (default runs/<kg>-<config hash>); rerun to resume.")
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
    from kgcert.run.jobs import build_jobs, build_models, prompt_budget
    from kgcert.run.runner import Progress as RunProgress
    from kgcert.run.runner import Runner

    if half_width is not None or threshold is not None:
        flags["sequential"] = {"half_width": half_width, "threshold": threshold}
    config = load_run_config(config_file, flags)
    if quant is not None:
        config = with_quantization(config, quant)
    if limit is not None:
        config = load_run_config(None, config.model_dump() | {
            "n": min(config.n, limit), "baseline": min(config.baseline, limit)})
    run_dir = _resolve_run_dir(config, out)
    store = ctx.server().open(config.kg)
    cache = data_dir(ctx.data_dir) / "cache"
    models = build_models(config, cache / "responses")
    jobs = build_jobs(store, config, list(specs_dirs), cache / "specs",
                      prompt_budget(config, models))
    columns = [TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/"
               "{task.total}"), TextColumn("{task.fields[info]}"), TimeRemainingColumn()]
    with progress_display(*columns, console=errors if as_json else console) as progress:
        display = _Display(progress)
        runner = Runner(config, run_dir, jobs, models, RunProgress(display.update))
        paths = runner.run()
    if as_json:
        for path in paths:
            body = json.loads(path.read_text(encoding="utf-8"))
            click.echo(json.dumps({**body, "file": str(path)}, ensure_ascii=False))
        return
    _print_certificates(paths)
    console.print(Text(f"certificates and samples in {run_dir}"))


def _print_certificates(paths: list[Path]) -> None:
    table = Table(show_header=True, header_style="bold")
    for column in ("spec", "setting", "model", "k / n", "lower", "upper", "unparseable",
                   "errors", "skipped"):
        table.add_column(column)
    for path in paths:
        body = json.loads(path.read_text(encoding="utf-8"))
        outcomes = body["outcomes"]
        table.add_row(Text(body["spec"]), body["setting"], Text(body["model"]),
                      f"{body['k']} / {body['n']}", f"{body['lower']:.3f}",
                      f"{body['upper']:.3f}", str(outcomes["unparseable"]),
                      str(outcomes["error"]), str(outcomes["skipped"]))
    console.print(table)


@click.command("plan")
@click.option("--half-width", type=float, required=True, help="Target half-width, e.g. 0.05.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--p", "guess", type=float, default=0.5, show_default=True,
              help="Guessed accuracy (0.5 is the worst case).")
def plan_command(half_width: float, confidence: float, guess: float) -> None:
    """How many samples a certificate needs for a target Clopper-Pearson half-width."""
    from kgcert.stats import plan_sample_size

    plan = plan_sample_size(half_width, confidence=confidence, p=guess)
    console.print(f"n = {plan.n} samples give a half-width of at most {half_width} at "
                  f"{confidence:.0%} confidence when the accuracy is near {guess}", highlight=False)


COMMANDS = [run_command, plan_command]
