"""`kgcert run` end to end over generated entity specs, for bench_scale.py (`--entity-run-n`).

The real command, in this process (so an embedded server started here serves it, and on
Neo4j it reads KGCERT_NEO4J_URI as a user's run does): every spec of a folder x the paper's
two settings (vanilla, distractor) x n prompts, one `bernoulli:0.7` model, a fixed seed, a
fresh run folder. Hooks time what the figures need without changing what runs: the command's
wall, its preparation (`build_jobs`: every spec's sampler prepared, the prompt graph opened),
each spec's sampler preparation within it, the run proper (`Runner.run`) and the time inside
the model. Issue 34's targets: <= 30 s preparation per pivot spec, <= 5 ms per prompt after
preparation (the run's wall less the model's, per prompt).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench_common import run_settings, timed

SETTINGS = ("vanilla", "distractor")
MODEL = "bernoulli:0.7"
PREPARE_TARGET_S = 30.0
OVERHEAD_TARGET_MS = 5.0


@contextlib.contextmanager
def _wrapped(owner: Any, name: str, wrap: Callable[[Any], Any]) -> Iterator[None]:
    original = getattr(owner, name)
    setattr(owner, name, wrap(original))
    try:
        yield
    finally:
        setattr(owner, name, original)


def without_distractors(store: Any, work: Path, kg: str, spec_dir: Path, names: list[str],
                        n: int, seed: int) -> list[str]:
    """The specs whose distractor setting `kgcert run` refuses (none of the run's first
    prompts holds a distractor: on a sparse KG a pivot's unique-answer paths may have no
    wrong turn), found as the command finds them: the same jobs, the same check, per job."""
    from kgcert.errors import InputError
    from kgcert.run.jobs import build_jobs, build_models, prompt_budgets
    from kgcert.run.preflight import refuse_distractor_settings_without_distractors
    from kgcert.run.start import fix_budget

    config = run_settings(kg=kg, specs=tuple(names), models=(MODEL,), settings=("distractor",),
                          n=n, seed=seed, cache=False, specs_dirs=(str(spec_dir.resolve()),))
    models = build_models(config, None)
    config = fix_budget(config, [(slot.spec_string, slot.model) for slot in models])
    jobs = build_jobs(store, config, [spec_dir], work / "data" / "cache" / "specs",
                      lambda answer: prompt_budgets(config, models, answer))
    refused = []
    for job in jobs:
        try:
            refuse_distractor_settings_without_distractors([job], n)
        except InputError:
            refused.append(job.spec)
    return refused


def bench_entity_run(store: Any, work: Path, kg: str, spec_dir: Path, n: int,
                     seed: int = 1) -> dict[str, object]:
    """Runs `kgcert run` over every spec in `spec_dir` x both settings x `n` and returns its
    figures (wall, preparation per spec, overhead per prompt). A spec whose distractor
    setting the command refuses is run in the vanilla setting only, by a second command."""
    names = sorted(path.stem for path in spec_dir.glob("*.yaml"))
    if not names:
        raise SystemExit(f"--entity-run-n: no spec files in {spec_dir}")
    start = time.perf_counter()
    refused = without_distractors(store, work, kg, spec_dir, names, n, seed)
    print(f"kgcert run: {len(refused)} of {len(names)} specs have no distractor in their "
          f"first prompts, run in the vanilla setting only ({time.perf_counter() - start:.1f} s "
          "to find them, not counted)", flush=True)
    both = [name for name in names if name not in refused]
    parts = [_run(work, kg, spec_dir, both, SETTINGS, n, seed)]
    if refused:
        parts.append(_run(work, kg, spec_dir, refused, ("vanilla",), n, seed))
    row = _summed(parts)
    row.update(specs=len(names), without_distractors=refused, n=n, model=MODEL,
               prompts_sha256=[part["prompts_sha256"] for part in parts])
    _print(row)
    return row


def _summed(parts: list[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {key: sum(part[key] for part in parts) for key in
                           ("prompts", "certificates", "wall_s", "cpu_s", "prepare_s",
                            "prepare_cpu_s", "run_s", "run_cpu_s", "model_s", "model_cpu_s",
                            "other_s", "other_cpu_s")}
    per_spec = {name: s for part in parts for name, s in part["prepare_per_spec_s"].items()}
    prepare = list(per_spec.values())
    row.update(
        commands=len(parts), prepare_per_spec_s=per_spec,
        prepare_spec_median_s=statistics.median(prepare) if prepare else 0.0,
        prepare_spec_max_s=max(prepare, default=0.0),
        overhead_ms_per_prompt=(row["run_s"] - row["model_s"]) / row["prompts"] * 1000,
        overhead_cpu_ms_per_prompt=(row["run_cpu_s"] - row["model_cpu_s"]) / row["prompts"]
        * 1000,
        end_to_end_ms_per_prompt=(row["wall_s"] - row["model_s"]) / row["prompts"] * 1000)
    return row


def _run(work: Path, kg: str, spec_dir: Path, names: list[str], settings: tuple[str, ...],
         n: int, seed: int) -> dict[str, Any]:
    """One `kgcert run` of `names` x `settings` x `n`, timed by hooks."""
    import kgcert.run.jobs as jobs_module
    import kgcert.run.runner as runner_module
    from kgcert.cli import cli

    in_model, in_jobs, in_runner = [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]
    per_spec: dict[str, float] = {}

    def prepare_timed(prepare: Callable[..., Any]) -> Callable[..., Any]:
        def call(spec: Any, *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return prepare(spec, *args, **kwargs)
            finally:
                per_spec[spec.name] = per_spec.get(spec.name, 0.0) + \
                    time.perf_counter() - start
        return call

    seen = hashlib.sha256()  # what the model was asked, in order: prompts compared by it

    def models_timed(build: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            slots = build(*args, **kwargs)
            for slot in slots:  # the digest is this bench's, so its time is the model's
                slot.model.generate = timed(in_model, _digested(seen, slot.model.generate))
            return slots
        return call

    command = ["--data-dir", str(work / "data"), "run", "--kg", kg, "--specs-dir", str(spec_dir),
               "--model", MODEL, "--n", str(n), "--seed", str(seed), "--json"]
    for name in names:
        command += ["--spec", name]
    for setting in settings:
        command += ["--setting", setting]
    printed = io.StringIO()
    with tempfile.TemporaryDirectory(prefix="kgcert-bench-entity-run-") as folder, \
            _wrapped(jobs_module, "prepare_sampler", prepare_timed), \
            _wrapped(jobs_module, "build_jobs", lambda f: timed(in_jobs, f)), \
            _wrapped(jobs_module, "build_models", models_timed), \
            _wrapped(runner_module.Runner, "run", lambda f: timed(in_runner, f)), \
            contextlib.redirect_stdout(printed):
        start, cpu = time.perf_counter(), time.process_time()
        cli.main([*command, "--out", str(Path(folder) / "run")], standalone_mode=False)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"prompts": len(names) * len(settings) * n,
            "certificates": sum(1 for line in printed.getvalue().splitlines()
                                if line.startswith("{")),
            "wall_s": wall, "cpu_s": cpu, "prepare_s": in_jobs[0], "prepare_cpu_s": in_jobs[1],
            "run_s": in_runner[0], "run_cpu_s": in_runner[1], "model_s": in_model[0],
            "model_cpu_s": in_model[1], "other_s": wall - in_jobs[0] - in_runner[0],
            "other_cpu_s": cpu - in_jobs[1] - in_runner[1],
            "prepare_per_spec_s": per_spec, "prompts_sha256": seen.hexdigest()}


def _digested(seen: Any, generate: Callable[..., Any]) -> Callable[..., Any]:
    def call(requests: Any, *args: Any, **kwargs: Any) -> Any:
        for request in requests:
            seen.update(f"{request.sample_index}\x00{request.content_key()}\x00".encode())
        return generate(requests, *args, **kwargs)
    return call


def _verdict(value: float, target: float, at_most: bool = True) -> str:
    return "meets" if (value <= target if at_most else value >= target) else "MISSES"


def _print(row: dict[str, Any]) -> None:
    print(f"kgcert run: {row['specs']} entity specs x vanilla, distractor ("
          f"{len(row['without_distractors'])} vanilla only) x {row['n']} with {row['model']}: "
          f"{row['prompts']:,} prompts, {row['certificates']} certificates, "
          f"{row['wall_s']:.1f} s end to end in {row['commands']} command(s) "
          f"({row['cpu_s']:.1f} CPU-s in this process)", flush=True)
    print(f"  preparation (jobs built): {row['prepare_s']:.1f} s; per spec median "
          f"{row['prepare_spec_median_s']:.2f} s, max {row['prepare_spec_max_s']:.2f} s, "
          f"{row['prepare_cpu_s']:.1f} CPU-s in all "
          f"(target <= {PREPARE_TARGET_S:.0f} s: "
          f"{_verdict(row['prepare_spec_max_s'], PREPARE_TARGET_S)})", flush=True)
    print(f"  run after preparation: {row['run_s']:.1f} s, model {row['model_s']:.2f} s: "
          f"overhead {row['overhead_ms_per_prompt']:.2f} ms per prompt (target <= "
          f"{OVERHEAD_TARGET_MS:.0f} ms: "
          f"{_verdict(row['overhead_ms_per_prompt'], OVERHEAD_TARGET_MS)}), "
          f"{row['overhead_cpu_ms_per_prompt']:.2f} CPU-ms ({row['run_cpu_s']:.1f} CPU-s; a "
          f"busy machine's wall is more); the rest of the command (checks, spec copies, "
          f"names, certificates shown) {row['other_s']:.1f} s ({row['other_cpu_s']:.1f} "
          f"CPU-s); "
          f"end to end less the model {row['end_to_end_ms_per_prompt']:.2f} ms per prompt",
          flush=True)
    print(f"  prompts asked, sha256 per command: {', '.join(row['prompts_sha256'])}",
          flush=True)
