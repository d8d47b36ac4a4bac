"""Prompt rendering throughput (run on demand).

    python benchmarks/bench_prompts.py --prompts 2000 --instances 100

MCQA: loads PrimeKG's Alzheimer extract (../shared/data or $KGCERT_SHARED_DATA) into an
embedded server in a temporary data directory, draws the samples first (untimed), then times
`PromptBuilder.render` over them for each spec and setting: "cold" with a fresh prompt graph
(its cache fills as it goes), "warm" over as many further samples with that cache. Also
times `build(i)` (sampling included) warm. Target: >= 500 prompts/s after sampling.

Tasks: loads the WikiDataSets Countries KG, generates instances of each task (untimed), then
times rendering them in each of the five textualizations, plain and pseudonymized.
Target: >= 20 task instances rendered/s.

Figures are wall-clock and per CPU-second of this process (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from kgcert.graphview import open_graph
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import load
from kgcert.prompts import PromptBuilder, PromptSettings
from kgcert.specs import load_spec_file, prepare_sampler
from kgcert.store.embedded import start_embedded
from kgcert.tasks import TaskGenerator, make_view, names
from kgcert.tasks.prompt import build_task_prompt
from kgcert.textualize import names as formats

REPO = Path(__file__).resolve().parents[1]
SPECS = ("dual_indication", "contraindication_indication", "exposure_drug")


def _timed(work: Any) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - start, time.process_time() - cpu


def bench_mcqa(server: Any, data: Path, count: int, work: Path) -> dict[str, Any]:
    start = time.perf_counter()
    load(server, get_loader("primekg", LoadOptions()),
         [data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "alz")
    print(f"load alzheimer extract: {time.perf_counter() - start:.1f} s")
    store = server.open("alz")
    results: dict[str, Any] = {}
    for name in SPECS:
        spec = load_spec_file(REPO / "specs" / "primekg" / f"{name}.yaml")
        sampler = prepare_sampler(spec, store, work / "tables")
        samples = [sampler.sample(0, i) for i in range(2 * count)]
        for setting in ("vanilla", "distractor"):
            builder = PromptBuilder(store, spec, sampler, settings=PromptSettings(setting=setting),
                                    graph=open_graph(store))
            cold = _timed(lambda b=builder, todo=samples[:count]: [b.render(s) for s in todo])
            trips = builder.graph.round_trips
            warm = _timed(lambda b=builder, todo=samples[count:]: [b.render(s) for s in todo])
            built = _timed(lambda b=builder: [b.build(i) for i in range(count)])
            row = {"cold_per_s": count / cold[0], "cold_per_cpu_s": count / cold[1],
                   "warm_per_s": count / warm[0], "warm_per_cpu_s": count / warm[1],
                   "build_warm_per_s": count / built[0], "cold_round_trips": trips}
            results[f"{name}/{setting}"] = row
            print(f"{name:28s} {setting:10s} cold {row['cold_per_s']:7.0f}/s "
                  f"({row['cold_per_cpu_s']:7.0f}/cpu-s, {trips} reads)   "
                  f"warm {row['warm_per_s']:7.0f}/s ({row['warm_per_cpu_s']:7.0f}/cpu-s)   "
                  f"build(i) warm {row['build_warm_per_s']:6.0f}/s", flush=True)
    return results


def bench_tasks(server: Any, data: Path, count: int) -> dict[str, Any]:
    start = time.perf_counter()
    load(server, get_loader("wikidatasets", LoadOptions()), [data / "countries"], "countries")
    print(f"load countries KG: {time.perf_counter() - start:.1f} s")
    store = server.open("countries")
    view = make_view(store)
    start = time.perf_counter()
    instances = [TaskGenerator(store, task, seed=0, view=view).instance(i)
                 for task in names() for i in range(count)]
    generated = time.perf_counter() - start
    print(f"generated {len(instances)} task instances (untimed here): {generated:.1f} s")
    results: dict[str, Any] = {}
    for pseudonymize in (False, True):
        for fmt in formats():
            settings = PromptSettings(textualization=fmt, pseudonymize=pseudonymize)
            seconds, cpu = _timed(lambda s=settings: [
                build_task_prompt(inst, s) for inst in instances])
            key = f"{fmt}{'/pseudonymized' if pseudonymize else ''}"
            results[key] = {"per_s": len(instances) / seconds,
                            "per_cpu_s": len(instances) / cpu}
            print(f"task prompts {key:22s} {len(instances) / seconds:7.0f}/s "
                  f"({len(instances) / cpu:7.0f}/cpu-s)", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompts", type=int, default=2000, help="MCQA prompts per pass")
    parser.add_argument("--instances", type=int, default=40, help="task instances per task")
    parser.add_argument("--data", type=Path, default=Path(
        os.environ.get("KGCERT_SHARED_DATA", REPO.parent / "shared" / "data")))
    parser.add_argument("--skip-tasks", action="store_true")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgcert-bench-prompts-"))
    server = start_embedded(work / "server")
    try:
        results = {"mcqa": bench_mcqa(server, args.data, args.prompts, work)}
        if not args.skip_tasks:
            results["tasks"] = bench_tasks(server, args.data, args.instances)
    finally:
        server.close()
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    from kgcert.store.embedded import exit_now

    exit_now(0)


if __name__ == "__main__":
    main()
