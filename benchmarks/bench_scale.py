"""The whole path on a synthetic PrimeKG at a chosen scale (issue 12; run on demand).

    python benchmarks/bench_scale.py --scale 0.1 [--server embedded|neo4j] [--samples 2000]
    python benchmarks/bench_scale.py --work DIR --loaded KG   # a KG loaded before, in DIR/data
    python benchmarks/bench_scale.py --scale 0 --entity-scale 0.05   # entity specs only
    python benchmarks/bench_scale.py --scale 0 --entity-scale 1.0 --entity-run-n 250 \
        [--server neo4j]          # issue 34 item 2: the 50 pivot specs, and their run
    python benchmarks/bench_scale.py --work DIR --loaded KG --only-prompts --run-n 250 \
        --baseline ../main                                 # this checkout against another
    python benchmarks/bench_scale.py --work DIR --loaded KG --baseline ../main --paired \
        --rounds 3                                         # both at once, one core each
    python benchmarks/bench_scale.py --work DIR --loaded KG --only-prompts \
        --max-distractors 16                               # what a distractor cap would gain

Times `synth` (rows/s), the load, and for each of the 10 shipped PrimeKG specs: preparation
with an empty table cache of its own (edge tables pulled over Bolt), preparation again (cached
tables), the memory that preparation allocates at its peak (tracemalloc, cached tables), the
match count and samples/s; with `--cypher-counts`, each count against the server's own Cypher
count (benchmarks/scale_counts.py); with `--entity-scale S`, `specs generate` on a synthetic
Wikidata5m at scale S, preparation per pivot and samples/s (benchmarks/scale_entity.py), and
with `--entity-run-n N` the `kgcert run` of those specs x both settings x N with
`bernoulli:0.7`, end to end (benchmarks/scale_entity_run.py). Then,
for each spec and setting (vanilla, distractor), multiple-choice prompts per CPU-second over
the KG snapshot, sampling included, warm (after `--prompts` prompts of warm-up, the next
`--prompts` are timed; `--cold`: the first ones, on a graph cache of their own); with
`--run-n`, a run's overhead: `kgcert run` of every spec x both settings x n with
`bernoulli:0.7` and `oracle`, after its preparation (jobs built, snapshot and tables read),
wall and CPU time less the models' own, per prompt; and the peak RSS of this process.
`--baseline DIR` measures the prompts and the run with the kgcert of another checkout too (a
separate process on the same KG, before this one starts its server; needs --loaded) and
prints the ratios; `--rounds K` measures both checkouts' prompts K times, alternating, and
compares the best rate of each (a busy or drifting machine otherwise favours one side);
`--paired` measures them at the same time instead, one core each (benchmarks/scale_paired.py:
the figure to trust on a machine whose speed drifts), and nothing else. The
embedded server runs in the measuring process, so its CPU counts. `--server neo4j` uses
KGCERT_NEO4J_URI and its credentials from the environment. Scale 1.0 is the full PrimeKG
(8.1M rows): mind the machine's memory before running it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import cast

from bench_common import (
    SETTINGS,
    moved,
    pace_as_the_commands_do,
    per_cpu_s,
    prompt_builder,
    prompt_specs,
    run_settings,
    snapshot_graph,
    start_server,
    timed,
)

from kgcert.errors import KgcertError
from kgcert.loaders import get_loader
from kgcert.specs import RelationSampler, RelationSpec, load_spec_file, prepare_sampler
from kgcert.store.graph import GraphStore


def bench_prompts(store: GraphStore, cache: Path, count: int, cold: bool = False,
                  specs: str | None = None, max_distractors: int | None = None
                  ) -> dict[str, object]:
    """Prompts (sampling included) per CPU-second over the KG snapshot, warm: per spec and
    setting, `count` prompts of warm-up, then `count` timed; one graph cache for all, as a
    run shares it. `cold`: each spec and setting times its first `count` prompts on a graph
    cache of its own, so every entity is met for the first time, as most options are at
    full PrimeKG size (a small KG is otherwise soon cached whole). `max_distractors`: each
    distractor setting is timed again with the DAG's distractors cut to that many, other
    prompts than the default's (what such a cap would gain), alternating with the default
    twice more and taking the best of each."""
    start, cpu = time.perf_counter(), time.process_time()
    snapshot_graph(store, cache)
    row: dict[str, object] = {"snapshot_s": time.perf_counter() - start,
                              "snapshot_cpu_s": time.process_time() - cpu}
    start = time.perf_counter()
    _, new_graph = snapshot_graph(store, cache)
    row["snapshot_cached_s"] = time.perf_counter() - start
    print(f"prompt snapshot: {row['snapshot_s']:.1f} s ({row['snapshot_cpu_s']:.1f} CPU-s), "
          f"{row['snapshot_cached_s']:.1f} s from its file", flush=True)
    graph = new_graph()
    for path in prompt_specs(specs):
        spec = load_spec_file(path)
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, store, cache)
        for setting in SETTINGS:
            if cold:
                graph = new_graph()
            builder = prompt_builder(store, spec, sampler, graph, setting=setting)
            if not cold:
                per_cpu_s(builder, range(count))  # warm-up: caches fill
            row[f"{spec.name}/{setting}"] = rate = per_cpu_s(builder, range(count, 2 * count))
            if max_distractors is None or setting != "distractor":
                print(f"prompts {spec.name}/{setting}: {rate:,.1f} per CPU-s", flush=True)
            else:
                capped = prompt_builder(store, spec, sampler, graph, setting=setting,
                                        max_distractors=max_distractors)
                per_cpu_s(capped, range(count))
                cut, full = [], [rate]
                for _ in range(2):
                    cut.append(per_cpu_s(capped, range(count, 2 * count)))
                    full.append(per_cpu_s(builder, range(count, 2 * count)))
                row[f"{spec.name}/{setting}"] = max(full)
                row[f"{spec.name}/{setting}/max_distractors={max_distractors}"] = max(cut)
                print(f"prompts {spec.name}/{setting}: {max(full):,.1f} per CPU-s, "
                      f"{max(cut):,.1f} with at most {max_distractors} distractors "
                      f"({max(cut) / max(full):.2f}x)", flush=True)
    return row


def bench_run(store: GraphStore, kg: str, cache: Path, n: int,
              only: str | None = None) -> dict[str, float]:
    """A run's overhead per prompt after its preparation: every spec x both settings x `n`
    with two test models, wall and CPU time less the time inside the models' `generate`."""
    from kgcert.run.jobs import build_jobs, build_models
    from kgcert.run.runner import Runner

    specs = tuple(load_spec_file(path).name for path in prompt_specs(only))
    config = run_settings(kg=kg, specs=specs, models=("bernoulli:0.7", "oracle"),
                          settings=SETTINGS, n=n, cache=False)
    models = build_models(config, None)
    inside = [0.0, 0.0]  # wall, CPU seconds in the models

    for slot in models:
        slot.model.generate = timed(inside, slot.model.generate)  # type: ignore[method-assign]
    start, cpu = time.perf_counter(), time.process_time()
    jobs = build_jobs(store, config, [], cache)
    prepared_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory(prefix="kgcert-bench-run-") as run_dir:
        start, cpu = time.perf_counter(), time.process_time()
        Runner(config, Path(run_dir), jobs, models).run()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    prompts = len(jobs) * n
    row = {"prompts": prompts, "prepare_s": prepared_s, "wall_s": wall, "cpu_s": cpu,
           "models_s": inside[0],
           "overhead_ms_per_prompt": (wall - inside[0]) / prompts * 1000,
           "overhead_cpu_ms_per_prompt": (cpu - inside[1]) / prompts * 1000}
    print(f"run: {prompts:,} prompts x 2 models in {wall:.1f} s ({cpu:.1f} CPU-s) after "
          f"{prepared_s:.1f} s of preparation, models {inside[0]:.2f} s: overhead "
          f"{row['overhead_ms_per_prompt']:.1f} ms per prompt "
          f"({row['overhead_cpu_ms_per_prompt']:.1f} CPU-ms)", flush=True)
    return row


def _measure_with(checkout: Path, args: argparse.Namespace, run_n: int) -> dict[str, object]:
    """The prompt (and, with `run_n`, run) figures with `checkout`'s kgcert (this script, its
    imports there), in a process of their own."""
    with tempfile.TemporaryDirectory(prefix="kgcert-bench-baseline-") as folder:
        out = Path(folder) / "figures.json"
        command = [sys.executable, __file__, "--only-prompts", "--work", str(args.work),
                   "--loaded", args.loaded, "--prompts", str(args.prompts),
                   "--run-n", str(run_n), "--out", str(out)] + (
                       ["--cold"] if args.cold else [])
        env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
        print(f"kgcert of {checkout}", flush=True)
        subprocess.run(command, env=env, check=True)
        return json.loads(out.read_text(encoding="utf-8"))


def _baselines(args: argparse.Namespace) -> tuple[dict[str, object], list[dict[str, object]]]:
    """The baseline's figures, best of `--rounds`; and with more than one round, this
    checkout's prompt figures measured in between, one set per round. A machine whose speed
    drifts by tens of percent within minutes favours whichever checkout ran in its fast
    minutes; alternating, and taking the best of each, evens that out over the rounds."""
    assert args.baseline is not None
    theirs, mine = [], []
    for round_ in range(args.rounds):
        theirs.append(_measure_with(args.baseline, args, args.run_n if round_ == 0 else 0))
        if args.rounds > 1:
            mine.append(_measure_with(Path(__file__).resolve().parents[1], args, 0))
    best = dict(theirs[0])
    best["prompts"] = _best_prompts(theirs)
    return best, mine


def _best_prompts(measured: list[dict[str, object]]) -> dict[str, object]:
    """Per spec and setting, the highest rate of prompts/CPU-s among `measured`."""
    best: dict[str, object] = {}
    for figures in measured:
        prompts = figures.get("prompts", {})
        assert isinstance(prompts, dict)
        for key, value in prompts.items():  # other keys (the snapshot's read): the first
            if key not in best or ("/" in key and value > cast(float, best[key])):
                best[key] = value
    return best


def _compare(results: dict[str, object], baseline: dict[str, object]) -> None:
    print("\nthis checkout against the baseline")
    mine, theirs = results.get("prompts", {}), baseline.get("prompts", {})
    assert isinstance(mine, dict) and isinstance(theirs, dict)
    for key, rate in mine.items():
        if "/" in key and key in theirs:
            print(f"  {key:<48} {theirs[key]:>8,.1f} -> {rate:>8,.1f} prompts/CPU-s "
                  f"({rate / theirs[key]:.1f}x)")
    run, before = results.get("run"), baseline.get("run")
    if isinstance(run, dict) and isinstance(before, dict):
        for key in ("overhead_ms_per_prompt", "overhead_cpu_ms_per_prompt"):
            print(f"  run {key:<44} {before[key]:>8.2f} -> {run[key]:>8.2f} "
                  f"({before[key] / run[key]:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=0.1,
                        help="synthetic PrimeKG scale; 0: skip the relation specs")
    parser.add_argument("--server", choices=["embedded", "neo4j"], default="embedded")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prompts", type=int, default=200,
                        help="prompts per spec and setting (warm-up, then timed); 0: skip")
    parser.add_argument("--cold", action="store_true",
                        help="time prompts on a fresh graph cache per spec and setting")
    parser.add_argument("--run-n", type=int, default=0,
                        help="n of the run whose overhead is measured; 0: skip")
    parser.add_argument("--only-prompts", action="store_true",
                        help="skip the per-spec preparation and sampling figures")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout of kgcert to measure prompts and run against")
    parser.add_argument("--rounds", type=int, default=1,
                        help="with --baseline: measure both checkouts' prompts this many "
                             "times, alternating, and compare the best of each")
    parser.add_argument("--paired", action="store_true",
                        help="with --baseline: measure both checkouts' prompts at the same "
                             "time instead, one core each, --rounds times (scale_paired.py); "
                             "nothing else is measured")
    parser.add_argument("--work", type=Path, default=None,
                        help="working folder (default: a new temporary one); its data/ holds "
                             "the embedded server's KGs")
    parser.add_argument("--loaded", default=None, metavar="KG",
                        help="measure KG, already loaded in --work, instead of synth + load")
    parser.add_argument("--cypher-counts", action="store_true",
                        help="check each spec's match count against the server's Cypher count")
    parser.add_argument("--count-limit", type=float, default=2e6,
                        help="skip the Cypher count of specs with more matches than this")
    parser.add_argument("--entity-scale", type=float, default=0.0,
                        help="also time entity specs on a synthetic Wikidata5m at this scale")
    parser.add_argument("--entity-loaded", default=None, metavar="KG",
                        help="a Wikidata5m KG already loaded in --work, instead of synthesising")
    parser.add_argument("--unsupported-edges", choices=["drop", "template"], default="template",
                        help="Wikidata5m loader: drop edges without a support sentence (the "
                             "paper) or keep them (denser neighbourhoods: the harder case)")
    parser.add_argument("--entity-run-n", type=int, default=0, metavar="N",
                        help="with --entity-scale/--entity-loaded: `kgcert run` end to end over "
                             "the generated entity specs x vanilla, distractor x N with "
                             "bernoulli:0.7 (benchmarks/scale_entity_run.py); 0: skip")
    parser.add_argument("--pivots", type=int, default=50)
    parser.add_argument("--rho", type=int, default=5)
    parser.add_argument("--specs", default=None, metavar="NAMES",
                        help="only these PrimeKG specs, comma-separated (e.g. gene_target,"
                             "synergistic); with --baseline, only with --paired")
    parser.add_argument("--max-distractors", type=int, default=None, metavar="K",
                        help="also time each distractor setting with a DAG's distractors cut "
                             "to K (other prompts: what such a cap would gain)")
    parser.add_argument("--keep", action="store_true", help="keep the loaded KGs in --work")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/scale.json"))
    args = parser.parse_args()
    pace_as_the_commands_do()
    if args.baseline is not None and not (args.loaded and args.work):
        parser.error("--baseline needs --work and --loaded (a KG both checkouts read)")
    if args.baseline is not None and not (args.baseline / "kgcert").is_dir():
        parser.error(f"--baseline {args.baseline}: not a checkout of kgcert (no kgcert/ there)")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.max_distractors is not None and (args.max_distractors < 1 or args.cold
                                             or args.baseline is not None):
        parser.error("--max-distractors takes K >= 1, without --cold or --baseline")
    if args.specs is not None:
        prompt_specs(args.specs)  # unknown names are refused before anything runs
        if args.baseline is not None and not args.paired:
            parser.error("--specs with --baseline needs --paired (an older baseline's own "
                         "script may not know --specs)")
    if args.paired:
        if args.baseline is None:
            parser.error("--paired needs --baseline")
        from scale_paired import paired

        _write({"paired": paired(args)}, args.out)
        return
    baseline, mine = _baselines(args) if args.baseline is not None else (None, [])
    work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-bench-scale-"))
    results: dict[str, object] = {"scale": args.scale, "server": args.server}

    server = start_server(args.server, work)
    if args.scale > 0 or args.loaded:
        bench_relation(server, work, args, results)
    if baseline is not None:
        results["baseline"] = baseline
        if mine:
            results["prompts"] = _best_prompts([results, *mine])
        _compare(results, baseline)
    if args.entity_scale > 0 or args.entity_loaded:
        # Imported when asked for: a --baseline checkout older than them runs this script too.
        from scale_entity import bench_entity, load_wikidata5m

        if args.entity_loaded:
            kg = args.entity_loaded
        else:
            kg, results["wikidata5m"] = load_wikidata5m(server, work, args.entity_scale,
                                                        args.unsupported_edges, args.seed)
        store = server.open(kg)
        results["entity_specs"] = bench_entity(store, kg, work, pivots=args.pivots,
                                               rho=args.rho, samples=args.samples)
        if args.entity_run_n:
            from scale_entity_run import bench_entity_run

            results["entity_run"] = bench_entity_run(store, work, kg, work / "entity_specs",
                                                     args.entity_run_n, args.seed)
        if not (args.entity_loaded or args.keep):
            server.drop(kg)
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS (kgcert process) {results['peak_rss_mb']:,.0f} MB")
    _write(results, args.out)


def _write(results: dict[str, object], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    print(f"wrote {out}")


def _prepare_memory_mb(spec, store: GraphStore, cache: Path) -> float:
    """Peak bytes allocated while preparing from cached tables (numpy arrays included)."""
    tracemalloc.start()
    prepare_sampler(spec, store, cache)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def _check_line(check: dict[str, object]) -> str:
    counted = check["cypher_count"]
    if not isinstance(counted, int):
        return f"Cypher count {counted}"
    verdict = "agrees" if check["agrees"] else "DISAGREES"
    return f"Cypher count {counted:,} {verdict} ({check['cypher_count_s']:.1f} s)"


def bench_relation(server, work: Path, args: argparse.Namespace,
                   results: dict[str, object]) -> None:
    if args.loaded:  # a KG this script (or `kgcert load`) loaded before into --work's data
        kg = args.loaded
    else:
        start = time.perf_counter()
        synthetic = moved("SyntheticPrimeKG", "kgcert.synth.primekg", "kgcert.synth")
        rows = synthetic(args.scale, seed=args.seed).write_kg_csv(work / "kg.csv")
        seconds = time.perf_counter() - start
        results.update(synth_rows=rows, synth_s=seconds, synth_rows_per_s=rows / seconds)
        print(f"synth: {rows:,} rows in {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")

        start = time.perf_counter()
        kg = "bench_scale"
        load = moved("load", "kgcert.loading.pipeline", "kgcert.loading")
        load(server, get_loader("primekg"), [work / "kg.csv"], kg, replace=True)
        seconds = time.perf_counter() - start
        results.update(load_s=seconds, load_rows_per_s=rows / seconds)
        print(f"load: {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")
    store = server.open(kg)
    per_spec: dict[str, dict[str, object]] = {}
    for path in [] if args.only_prompts else prompt_specs(args.specs):
        spec = load_spec_file(path)
        row: dict[str, object] = {}
        per_spec[spec.name] = row
        # Cold: a table cache of its own, so no table comes from an earlier spec.
        cache = Path(tempfile.mkdtemp(prefix="kgcert-bench-cache-"))
        try:
            start = time.perf_counter()
            sampler = prepare_sampler(spec, store, cache)
            row["prepare_cold_s"] = time.perf_counter() - start
            start = time.perf_counter()
            sampler = prepare_sampler(spec, store, cache)
            row["prepare_cached_s"] = time.perf_counter() - start
            row["prepare_peak_mb"] = _prepare_memory_mb(spec, store, cache)
            assert isinstance(sampler, RelationSampler)
            count = sampler.count()
            row["matches"] = count.matches if count.matches is not None else \
                count.estimated_matches
            start = time.perf_counter()
            for index in range(args.samples):
                sampler.sample(0, index)
            row["samples_per_s"] = args.samples / (time.perf_counter() - start)
            if args.cypher_counts:
                from scale_counts import check_count

                row["check"] = check_count(store, sampler, args.count_limit)
        except KgcertError as error:
            row["error"] = str(error)
            print(f"{spec.name}: {error}")
            continue
        print(f"{spec.name}: prepare {row['prepare_cold_s']:.1f} s cold, "
              f"{row['prepare_cached_s']:.2f} s cached, {row['prepare_peak_mb']:,.0f} MB at "
              f"peak; {row['matches']:,.0f} matches; {row['samples_per_s']:,.0f} samples/s"
              + (f"; {_check_line(row['check'])}" if "check" in row else ""), flush=True)
    results["specs"] = per_spec
    if args.prompts:
        # Tables and snapshot kept between measurements with --only-prompts (not timed here).
        cache = work / "bench-cache" if args.only_prompts else \
            Path(tempfile.mkdtemp(prefix="kgcert-bench-cache-"))
        results["prompts"] = bench_prompts(store, cache, args.prompts, args.cold, args.specs,
                                           args.max_distractors)
        if args.run_n:
            results["run"] = bench_run(store, kg, cache, args.run_n, args.specs)
    if not (args.loaded or args.keep):
        server.drop(kg)


if __name__ == "__main__":
    main()
