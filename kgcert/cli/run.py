"""`kgcert run`: certify models on specs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
from rich.text import Text

from kgcert.certify.record import Certificate
from kgcert.cli.common import Context, console, errors
from kgcert.cli.heap import built_graphs_frozen, pace_for_prompts
from kgcert.cli.progress import progress_display
from kgcert.cli.run_display import RunDisplay, print_certificates
from kgcert.cli.run_folder import _locks, run_dir_locked
from kgcert.cli.run_folder import run_path as folder_for
from kgcert.cli.run_options import run_options
from kgcert.errors import InputError, NothingAnsweredError
from kgcert.rundir.run_dir import read_certificate
from kgcert.util.locations import data_dir

if TYPE_CHECKING:  # the spec's module imports the prompt layer: not for --help
    from kgcert.rundir.run_spec import RunSpec

__all__ = ["_locks", "run_command", "with_prices"]  # _locks: tests release them between runs


@click.command("run")
@run_options
@click.pass_obj
def run_command(ctx: Context, config_file: Path | None, limit: int | None,
                half_width: float | None, threshold: float | None,
                specs_dirs: tuple[Path, ...], out: Path | None, quant: str | None,
                as_json: bool, wide: bool, new_design: bool, price_flags: tuple[str, ...],
                prices_file: Path | None, suite: str | None, weights: str | None,
                **flags: Any) -> None:
    """Certify models on specs: bounds on P(correct) for prompts drawn from each spec."""
    from kgcert.run.jobs import build_jobs, build_models, prompt_budgets
    from kgcert.run.look_record import LookRecord
    from kgcert.run.preflight import (
        preflight_warnings,
        refuse_distractor_settings_without_distractors,
    )
    from kgcert.run.runner import Progress as RunProgress
    from kgcert.run.runner import Runner
    from kgcert.run.start import fix_budget, record_start, settle
    from kgcert.run.suite_weights import count_match_weights
    from kgcert.rundir.entity_names import write_entity_names
    from kgcert.rundir.run_dir import run_dir_of

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
    spec = _given_spec(config_file, flags, quant, price_flags, prices_file, limit)
    seed_given = flags.get("seed") is not None or _file_gives(config_file, "seed")
    run_path = folder_for(spec, out)
    spec, saved = settle(spec, run_path, seed_given=seed_given, new_design=new_design)
    if saved is not None and saved.models.prices:  # a resume keeps the prices given before
        spec = spec.with_prices(dict(saved.models.prices) | dict(spec.models.prices))
    with run_dir_locked(run_path) as run_dir:
        cache = data_dir(ctx.data_dir) / "cache"  # per data dir: the KGs' spec counts
        # Responses are the user's cache (README): KGCERT_CACHE_DIR, else the user cache dir.
        from kgcert.models.cache import default_cache_dir

        models = build_models(spec, default_cache_dir())  # a bad key is refused before
        server = ctx.server()  # the graph server starts
        store = server.open(spec.kg.name)
        spec = fix_budget(spec, [(slot.spec_string, slot.model) for slot in models])
        # Folders named now must exist; those a run file recorded may be gone (the copies
        # in the run folder stand in for their files).
        spec_dirs = list(specs_dirs) or [Path(f) for f in spec.specs.dirs if Path(f).is_dir()]
        for folder in (config_file.parent if config_file else None, run_dir):
            if folder is not None:
                # a run folder's own copies, when the originals are gone
                run_dir_of(folder).use_spec_copies()
        spec = count_match_weights(spec, store, spec_dirs, cache / "specs")
        jobs = build_jobs(store, spec, spec_dirs, cache / "specs",
                          lambda answer: prompt_budgets(spec, models, answer))
        # The jobs are built: a relation or entity spec's prompts read the snapshot's arrays
        # from here on, not the server, whose caches (GBs of Java heap at full size) would
        # otherwise stay for the whole run (kgcert/store/jvm_memory.py); given back before
        # the checks below build their first prompts, which read pages of mapped files.
        server.release_memory()
        refuse_distractor_settings_without_distractors(jobs, spec.design.n)  # before any call
        looks = LookRecord(data_dir(ctx.data_dir))
        # prompts another folder looked at: refused before anything is written or asked
        Runner(spec, run_dir, jobs, models, looks=looks,
               new_design=new_design).refuse_unseen_extensions()
        run_dir_of(run_dir).save_specs(store, spec.specs.names, spec_dirs)
        for warning in preflight_warnings(store, spec, spec_dirs, cache / "specs"):
            errors.print(Text(f"warning: {warning}"), style="yellow", soft_wrap=True)
        columns = [TextColumn("{task.description}"), BarColumn(), TextColumn(
            "{task.completed}/{task.total}"), TextColumn("{task.fields[info]}"),
            TimeRemainingColumn()]
        with progress_display(*columns, console=errors if as_json else console) as progress:
            display = RunDisplay(progress)
            runner = Runner(spec, run_dir, jobs, models,
                            RunProgress(display.update, display.begin, display.answered),
                            looks=looks, new_design=new_design)
            record_start(run_dir, spec, saved, runner.confidence)
            _warn_unreachable(spec, runner.confidence)
            with built_graphs_frozen():  # the jobs' prompt graphs, read by now
                paths = runner.run()
        # The report captions subgraphs by name: the names from the run's prompt graph.
        graph = next((job.graph for job in jobs if job.graph is not None), None)
        write_entity_names(store, run_dir_of(run_dir), graph)
    certificates = [read_certificate(path) for path in paths]
    if as_json:
        for path, cert in zip(paths, certificates, strict=True):
            click.echo(json.dumps({**cert.to_dict(), "file": str(path)}, ensure_ascii=False))
    else:
        print_certificates(certificates, wide=wide)
        from kgcert.certify.comparison import decision_lines

        for line in decision_lines(run_dir_of(run_dir)):
            console.print(Text(line))
        console.print(Text(f"certificates and samples in {run_dir}"))
    _refuse_unanswered(run_dir, certificates)




def _given_spec(config_file: Path | None, flags: dict[str, Any], quant: str | None,
                price_flags: tuple[str, ...], prices_file: Path | None,
                limit: int | None) -> RunSpec:
    """The run as the command gives it: the run file with the flags on top, then --quant,
    the prices and --limit, each checked as a run file is (before run.yaml is consulted)."""
    from kgcert.rundir.run_spec import RunSpec

    spec = RunSpec.parse(config_file, flags)
    if quant is not None:
        from kgcert.run.quantization import with_quantization

        spec = with_quantization(spec, quant)
    if price_flags or prices_file is not None:
        spec = spec.revised(prices=with_prices(spec, price_flags, prices_file))
    if limit is not None:
        spec = spec.revised(n=min(spec.design.n, limit),
                            baseline=min(spec.variants.baseline, limit))
    return spec


def with_prices(spec: RunSpec, flags: tuple[str, ...], file: Path | None
                ) -> dict[str, dict[str, float]]:
    """The run file's prices, then a prices file's, then each --price (which must name a
    model of the run)."""
    from kgcert.certify.cost import parse_price, read_prices

    prices = {model: dict(price) for model, price in spec.models.prices.items()}
    prices |= read_prices(file) if file is not None else {}
    for text in flags:
        model, price = parse_price(text)
        if model not in spec.models.names:
            raise InputError(f"--price names {model}, which is not a model of this run "
                             f"({', '.join(spec.models.names)})")
        prices[model] = price
    return prices


def _refuse_unanswered(run_dir: Path, certificates: list[Certificate]) -> None:
    """A certificate with no answered prompt because every call failed certifies nothing:
    the run ends with exit code 5 (its files are kept; a rerun asks those samples again)."""
    from kgcert.rundir.run_dir import run_dir_of

    empty = [cert for cert in certificates if cert.n == 0 and cert.counts.error > 0]
    if not empty:
        return
    first = empty[0]
    reason = ""
    samples = run_dir / str(first.sample_file or "")
    if samples.is_file():
        error = next((r.response.error for _, r in run_dir_of(run_dir).sample_records(samples)
                      if r.response is not None and r.call_failed), None)
        reason = f": {error}" if error else ""
    raise NothingAnsweredError(
        f"{len(empty)} of {len(certificates)} certificates have no answered prompt because every "
        f"call failed ({first.model} on {first.spec} / {first.setting}"
        f"{reason}); rerun the same command to ask them again")


def _file_gives(path: Path | None, key: str) -> bool:
    if path is None:
        return False
    from kgcert.util.yamlfile import read_yaml

    loaded = read_yaml(path, "run file")
    return isinstance(loaded, dict) and key in loaded


def _warn_unreachable(spec: RunSpec, confidence: float) -> None:
    """`--half-width` that n samples cannot reach when the accuracy is near 0.5."""
    design = spec.design
    target = design.sequential.half_width if design.sequential else None
    if target is None:
        return
    from kgcert.stats import plan_sequential_size

    needed = plan_sequential_size(target, confidence=confidence).n
    if design.n < needed:
        console.print(Text(f"warning: n = {design.n} cannot reach half-width {target} at "
                           f"confidence {confidence:.6g} when the accuracy is near 0.5 (the "
                           f"sequence needs n = {needed}); such certificates end wider"),
                      style="yellow")


COMMANDS = [run_command]
