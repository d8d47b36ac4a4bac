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
from kgcert.errors import InputError, NothingAnsweredError
from kgcert.heap import pace_for_prompts
from kgcert.output import output_to
from kgcert.paths import check_folder
from kgcert.run.config import RunConfig, load_run_config, with_quantization
from kgcert.rundir.layout import RunLayout

_locks: list[Any] = []  # run-directory locks, held until the process ends


def _run_path(config: RunConfig, out: Path | None) -> Path:
    run_dir = out or default_run_dir(config)
    # a file, under a file, a link loop: one line (a write that fails says why itself)
    check_folder(run_dir, "--out", writable=False, fix="name a folder for the run")
    return run_dir


@contextmanager
def _run_dir(run_dir: Path) -> Iterator[Path]:
    """The run directory, locked for this process. A run that fails before writing anything
    leaves no empty folder behind."""
    created = _topmost_missing(run_dir)
    with output_to(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
        lock = RunLayout(run_dir).lock_file.open("w")
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
        saved = RunLayout(found).run_file
        if saved.is_file() and _same_run(load_run_config(saved, {}), config):
            return found
    first = config.suite.name if config.suite else config.specs[0] if config.specs else "run"
    spec = Path(first).stem if first.endswith((".yaml", ".yml")) else first.split(".")[-1]
    more = f"+{len(config.specs) - 1}" if len(config.specs) > 1 and not config.suite else ""
    parts = [re.sub(r"[^A-Za-z0-9_-]+", "_", part) for part in (config.kg, spec)]
    return root / f"{parts[0]}-{parts[1]}{more}-{date.today():%Y%m%d}-{fingerprint[:8]}"


def _same_run(saved: RunConfig, config: RunConfig) -> bool:
    """Whether `config` (as given, before a seed is drawn) asks what `saved` recorded: a seed
    the run drew stands for the one the command left out."""
    if saved.seed_source == "drawn":
        saved = saved.model_copy(update={"seed": config.seed})
    return saved.fingerprint() == config.fingerprint()


def _topmost_missing(path: Path) -> Path | None:
    """The first folder of `path` that does not exist yet (None when `path` exists)."""
    missing = None
    while not path.exists():
        missing, path = path, path.parent
    return missing


def _remove_unused(run_dir: Path, created: Path) -> None:
    """Remove the folders this run created (up to `created`) if they hold only its lock."""
    lock = RunLayout(run_dir).lock_file
    if {p.name for p in run_dir.iterdir()} != {lock.name}:
        return
    with contextlib.suppress(OSError):
        lock.unlink()
        folder = run_dir
        while True:
            folder.rmdir()
            if folder == created:
                break
            folder = folder.parent


class _Display:
    """Rich progress: one bar per certificate with the model's pace, correct so far and
    bounds; its first line comes before the first model call, then one after every answer."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}
        self.pace: dict[str, _Pace] = {}
        self.info: dict[str, str] = {}  # the last batch's correct count and bounds
        self.recorded: dict[str, int] = {}

    def _task(self, label: str, total: int) -> TaskID:
        if label not in self.tasks:
            self.tasks[label] = self.progress.add_task(label, total=total, info="")
            self.pace[label] = _Pace(time.monotonic())
        return self.tasks[label]

    def begin(self, label: str, recorded: int, total: int, cached: str) -> None:
        task = self._task(label, total)
        self.recorded[label] = recorded
        self.info[label] = f"n = {total}, {recorded} recorded"
        self.progress.update(task, completed=recorded, info=f"{self.info[label]}, {cached}")

    def answered(self, label: str, count: int, cached: bool) -> None:
        if label not in self.tasks:
            return
        pace = self.pace[label]
        pace.add(count, cached, time.monotonic())
        total = int(self.progress.tasks[self.tasks[label]].total or 0)
        # the batch's update (with its answers checked) is the one that reaches the total
        done = min(self.recorded.get(label, 0) + pace.batch, total - 1)
        self.progress.update(self.tasks[label], completed=done,
                             info=", ".join(p for p in (self.info.get(label), pace.text()) if p))

    def update(self, label: str, done: int, total: int, correct: int,
               bounds: tuple[float, float] | None, answered: int, failed: int) -> None:
        task = self._task(label, total)
        pace = self.pace[label]
        pace.batch = 0
        self.recorded[label] = done
        # the tally rests on the answered samples; failed calls are no answer at all
        tally = f"{correct}/{answered} correct" if answered else "0 answered"
        if failed:
            tally += f", {failed} failed"
        self.info[label] = f"{tally}, {_interim(bounds, total)}"
        self.progress.update(task, completed=done,
                             info=", ".join(p for p in (self.info[label], pace.text()) if p))


def _interim(bounds: tuple[float, float] | None, total: int) -> str:
    """Only the certificate's own pre-registered quantity: a sequential run's anytime-valid
    bounds (at its own level), and for n fixed in advance nothing until n is reached, since
    an interim fixed-n interval read mid-run is not what the certificate states."""
    if bounds is None:
        return f"bounds at n = {total}"
    return f"anytime-valid [{bounds[0]:.3f}, {bounds[1]:.3f}]"


class _Pace:
    """The model's pace on one certificate: answers it computed (not those from the cache)
    over the time since it started computing."""

    def __init__(self, now: float) -> None:
        self.start, self.computed, self.cached, self.batch = now, 0, 0, 0
        self.last = now

    def add(self, count: int, cached: bool, now: float) -> None:
        if count == 0 and not cached:  # the model starts computing: its load is left out
            if self.computed == 0:
                self.start = now
            return
        self.batch += count
        if cached:
            self.cached += count
        else:
            self.computed += count
            self.last = now

    def text(self) -> str:
        parts = [f"{self.cached} from cache"] if self.cached else []
        if self.computed:
            parts.append(pace_text(self.computed, self.last - self.start))
        return ", ".join(parts)


def pace_text(answered: int, seconds: float) -> str:
    """`2.5 prompts/s`, or `31 s/prompt` for a model slower than one a second."""
    if seconds <= 0:
        return ""
    rate = answered / seconds
    return f"{rate:.1f} prompts/s" if rate >= 1 else f"{seconds / answered:.0f} s/prompt"


@click.command("run")
@click.option("--config", "config_file", type=click.Path(path_type=Path),
              help="A YAML run file; flags override its values.")
@click.option("--kg", default=None, help="The loaded KG.")
@click.option("--spec", "specs", multiple=True, help="Spec name or file (repeatable).")
@click.option("--suite", default=None,
              help="One certificate for the mixture of the --spec specs under this name, or "
                   "for a suite file's specs (e.g. primekg.table1) when no --spec is given.")
@click.option("--weights", default=None,
              help="Suite weights: equal (default) or SPEC=W,... (normalised to sum 1).")
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
@click.option("--seed", type=int, default=None,
              help="Run seed (default: drawn fresh for a new run and recorded in run.yaml).")
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
@click.option("--budget", default=None,
              help="The run's one prompt budget: N characters or N:TOKENIZER tokens; default "
                   "run (the tightest that fits every model); per-model gives each model its "
                   "own (its certificates are then about different prompts).")
@click.option("--extendable", is_flag=True, default=None,
              help="Declare before the first answer that n may grow later: the first fixed-n "
                   "certificate spends half of delta, the confidence sequence the rest.")
@click.option("--new-design", is_flag=True,
              help="Resume with a changed design (n, confidence, settings, ...): recorded in "
                   "design.json, and each certificate states the joint level of its looks.")
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
@click.option("--price", "price_flags", multiple=True, metavar="MODEL=IN/OUT",
              help="Dollars per million prompt / completion tokens of a model, for the cost "
                   "each certificate records (repeatable).")
@click.option("--prices", "prices_file", type=click.Path(path_type=Path), default=None,
              help="A YAML file of prices, MODEL: IN/OUT per million tokens.")
@click.option("--json", "as_json", is_flag=True,
              help="Print each certificate as one JSON line (progress goes to stderr).")
@click.pass_obj
def run_command(ctx: Context, config_file: Path | None, limit: int | None,
                half_width: float | None, threshold: float | None,
                specs_dirs: tuple[Path, ...], out: Path | None, quant: str | None,
                as_json: bool, new_design: bool, price_flags: tuple[str, ...],
                prices_file: Path | None, suite: str | None, weights: str | None,
                **flags: Any) -> None:
    """Certify models on specs: bounds on P(correct) for prompts drawn from each spec."""
    from kgcert.run.entity_names import write_entity_names
    from kgcert.run.jobs import build_jobs, build_models, prompt_budgets
    from kgcert.run.preflight import preflight_warnings
    from kgcert.run.runner import Progress as RunProgress
    from kgcert.run.runner import Runner
    from kgcert.run.spec_files import save_run_specs, use_copies_of
    from kgcert.run.start import fix_budget, record_start, settle

    pace_for_prompts()
    if half_width is not None or threshold is not None:
        flags["sequential"] = {"half_width": half_width, "threshold": threshold}
    if specs_dirs:  # recorded in run.yaml, so the run file finds the same specs
        flags["specs_dirs"] = tuple(str(folder.resolve()) for folder in specs_dirs)
    if suite is not None:
        from kgcert.run.suite import suite_of

        stated = suite_of(suite, flags.get("specs") or (), weights, specs_dirs)
        flags.update(specs=stated.specs, suite=stated.model_dump())
    elif weights is not None:
        raise InputError("--weights goes with --suite")
    config = load_run_config(config_file, flags)
    if quant is not None:
        config = with_quantization(config, quant)
    if price_flags or prices_file is not None:
        config = load_run_config(None, config.model_dump() | {
            "prices": with_prices(config, price_flags, prices_file)})
    if limit is not None:
        config = load_run_config(None, config.model_dump() | {
            "n": min(config.n, limit), "baseline": min(config.baseline, limit)})
    seed_given = flags.get("seed") is not None or _file_gives(config_file, "seed")
    run_path = _run_path(config, out)
    config, saved = settle(config, run_path, seed_given=seed_given, new_design=new_design)
    if saved is not None and saved.prices:  # a resume keeps the prices it was given before
        config = config.model_copy(update={"prices": saved.prices | config.prices})
    with _run_dir(run_path) as run_dir:
        cache = data_dir(ctx.data_dir) / "cache"
        models = build_models(config, cache / "responses")  # a bad key is refused before
        store = ctx.server().open(config.kg)  # the graph server starts
        config = fix_budget(config, [(slot.spec_string, slot.model) for slot in models])
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
            runner = Runner(config, run_dir, jobs, models,
                            RunProgress(display.update, display.begin, display.answered))
            record_start(run_dir, config, saved, runner.confidence)
            _warn_unreachable(config, runner.confidence)
            paths = runner.run()
        write_entity_names(store, run_dir)  # the report captions subgraphs by name
    if as_json:
        for path in paths:
            body = json.loads(path.read_text(encoding="utf-8"))
            click.echo(json.dumps({**body, "file": str(path)}, ensure_ascii=False))
    else:
        _print_certificates(paths)
        console.print(Text(f"certificates and samples in {run_dir}"))
    _refuse_unanswered(run_dir, paths)


def with_prices(config: RunConfig, flags: tuple[str, ...], file: Path | None
                ) -> dict[str, dict[str, float]]:
    """The run file's prices, then a prices file's, then each --price (which must name a
    model of the run)."""
    from kgcert.run.cost import parse_price, read_prices

    prices = dict(config.prices) | (read_prices(file) if file is not None else {})
    for text in flags:
        model, price = parse_price(text)
        if model not in config.models:
            raise InputError(f"--price names {model}, which is not a model of this run "
                             f"({', '.join(config.models)})")
        prices[model] = price
    return prices


def _refuse_unanswered(run_dir: Path, paths: list[Path]) -> None:
    """A certificate with no answered prompt because every call failed certifies nothing:
    the run ends with exit code 5 (its files are kept; a rerun asks those samples again)."""
    from kgcert.rundir.sample_log import complete_records

    empty = []
    for path in paths:
        body = json.loads(path.read_text(encoding="utf-8"))
        if body.get("n") == 0 and body.get("outcomes", {}).get("error", 0) > 0:
            empty.append(body)
    if not empty:
        return
    first = empty[0]
    reason = ""
    samples = run_dir / str(first.get("sample_file", ""))
    if samples.is_file():
        error = next((r.response.error for _, r in complete_records(samples)
                      if r.response is not None and r.call_failed), None)
        reason = f": {error}" if error else ""
    raise NothingAnsweredError(
        f"{len(empty)} of {len(paths)} certificates have no answered prompt because every call "
        f"failed ({first.get('model')} on {first.get('spec')} / {first.get('setting')}"
        f"{reason}); rerun the same command to ask them again")


def _file_gives(path: Path | None, key: str) -> bool:
    if path is None:
        return False
    from kgcert.yamlfile import read_yaml

    loaded = read_yaml(path, "run file")
    return isinstance(loaded, dict) and key in loaded


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
    warnings, notes = [], []
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
        if counts := body.get("suite_counts"):
            notes.append(_suite_line(body, counts["per_spec"]))
    print_table(console, keep_names(table, "spec", "setting", "model"))
    for note in notes:
        console.print(Text(note))
    for warning in warnings:
        console.print(Text(f"warning: {warning}"), style="yellow")
    console.print(Text("Each certificate's `guarantee` field says what it certifies; the "
                       "seed is the run's --seed, or one drawn fresh when the run began "
                       "(recorded in run.yaml), fixed before the first answer."))


def _suite_line(body: dict[str, Any], per_spec: list[dict[str, Any]]) -> str:
    shown = ", ".join(f"{row['spec']} {row['correct']}/{row['answered']}" for row in per_spec)
    return (f"{body['spec']} / {body['setting']} / {body['model']}: per spec (correct/answered, "
            f"not certified; the bounds are about the mixture): {shown}")


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
@click.option("--kg", default=None,
              help="With --spec: measure the spec's skip rate on this KG from a probe of "
                   "drawn prompts and give the n to draw (run --n counts drawn prompts).")
@click.option("--spec", default=None, help="The spec whose skip rate the probe measures.")
@click.option("--budget", default=None,
              help="The run's budget for the probe: N characters or N:TOKENIZER tokens "
                   f"(default {defaults.CONTEXT_CHARS} characters).")
@click.option("--setting", type=click.Choice(["vanilla", "distractor"]), default="vanilla",
              show_default=True)
@click.option("--few-shot", type=int, default=defaults.FEW_SHOT, show_default=True)
@click.option("--probe", type=click.IntRange(min=10), default=100, show_default=True,
              help="Prompts drawn to measure the skip rate.")
@click.option("--specs-dir", "specs_dirs", multiple=True, type=click.Path(path_type=Path))
@click.pass_obj
def plan_command(ctx: Context, half_width: float, confidence: float, guess: float, family: int,
                 sequential: bool, kg: str | None, spec: str | None, budget: str | None,
                 setting: str, few_shot: int, probe: int,
                 specs_dirs: tuple[Path, ...]) -> None:
    """How many samples a certificate needs for a target half-width.

    With --kg and --spec: how many prompts to draw for that many answers, from the spec's
    skip rate measured on a probe of drawn prompts."""
    from kgcert.stats import bonferroni_confidence, plan_sample_size, plan_sequential_size

    if not 0 < half_width < 0.5:
        raise InputError(f"--half-width must be between 0 and 0.5, got {half_width}")
    if not 0 < confidence < 1:
        raise InputError(f"--confidence must be between 0 and 1, got {confidence}")
    if not 0 <= guess <= 1:
        raise InputError(f"--p must be between 0 and 1, got {guess}")
    if (kg is None) != (spec is None):
        raise InputError("--kg and --spec go together: the probe draws the spec's prompts "
                         "on that KG")
    each = bonferroni_confidence(confidence, family)
    planner = plan_sequential_size if sequential else plan_sample_size
    plan = planner(half_width, confidence=each, p=guess)
    method = ("the anytime-valid mixture sequence" if sequential
              else "Clopper-Pearson with n fixed in advance")
    joint = (f", each of {family} certificates at {each:.6g} (Bonferroni)" if family > 1 else "")
    answered = " answered" if kg is not None else ""
    console.print(f"n = {plan.n}{answered} samples give a half-width of at most {half_width} at "
                  f"{confidence:.0%} confidence{joint} with {method}, when the accuracy is "
                  f"near {guess}", highlight=False)
    if kg is None or spec is None:
        return
    from kgcert.run.probe import draws_needed, probe_skips

    found = probe_skips(ctx.server().open(kg), kg=kg, spec=spec, budget=budget,
                        setting=setting, few_shot=few_shot, probe=probe,
                        spec_dirs=list(specs_dirs),
                        cache_dir=data_dir(ctx.data_dir) / "cache" / "specs")
    draw, upper = draws_needed(plan.n, found.skipped, found.drawn)
    causes = ", ".join(f"{count} {cause}" for cause, count in found.causes.items())
    console.print(f"the probe drew {found.drawn} prompts of {spec} at a budget of "
                  f"{found.budget} and skipped {found.skipped} ({causes or 'none'}; skip rate "
                  f"at most {upper:.3f} at 95%): draw n = {draw} (run --n {draw}) for "
                  f"{plan.n} answered", highlight=False)


COMMANDS = [run_command, plan_command]
