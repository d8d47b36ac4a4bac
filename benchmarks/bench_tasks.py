"""KG-LLM-Bench instance generation throughput on the countries KG (run on demand).

    python benchmarks/bench_tasks.py --instances 200
    python benchmarks/bench_tasks.py --tasks shortest_path --server-only

Loads ../shared/data/countries (or --countries DIR) into an embedded server in a temporary
data directory, then for each task generates instances 0..N-1 of its shipped spec and prints
instances/s (after an untimed warm-up pass on another seed, so the server's JIT has compiled
the queries): "cold" is a fresh generator (its adjacency cache fills as it goes: the whole
countries KG is read once), "warm" is a second pass over other indices with that cache.
Per-CPU-second figures (process CPU time: Python, driver and the in-process server's JVM
threads) say what the work costs when the machine is shared and wall time is not.
--server-only composes every ego graph on the server instead (no cache); --shared-cache
gives all tasks one reader, as a run over the five tasks of one KG would.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import load
from kgcert.store.embedded import start_embedded
from kgcert.tasks import TaskGenerator, make_view, names

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--instances", type=int, default=200)
    parser.add_argument("--tasks", nargs="*", default=None, help="default: all five")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--server-only", action="store_true",
                        help="no adjacency cache: every ego graph composed by the server")
    parser.add_argument("--countries", type=Path, default=Path(
        os.environ.get("KGCERT_SHARED_DATA", REPO.parent / "shared" / "data")) / "countries")
    parser.add_argument("--shared-cache", action="store_true",
                        help="one reader for all tasks (the KG is read once, not per task)")
    parser.add_argument("--no-warmup", action="store_true",
                        help="skip the untimed pass that lets the server's JIT compile the "
                             "queries (the first run in a process is several times slower)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="kgcert-bench-tasks-"))
    server = start_embedded(work)
    start = time.perf_counter()
    load(server, get_loader("wikidatasets", LoadOptions()), [args.countries], "countries")
    print(f"load: {time.perf_counter() - start:.1f} s")
    store = server.open("countries")
    cache = 0 if args.server_only else 5_000_000
    if not args.no_warmup:
        start = time.perf_counter()
        for name in ("agg_by_relation", "shortest_path"):
            # its own reader, thrown away; the same kind of reader as the timed runs
            warm_up = TaskGenerator(store, name, seed=args.seed + 1, cache_edges=cache)
            for i in range(20 if cache else 3):
                warm_up.instance(i)
        print(f"server warm-up (untimed, other seed, own cache): "
              f"{time.perf_counter() - start:.1f} s")
    shared = make_view(store, cache) if args.shared_cache else None
    results: dict[str, dict[str, float]] = {}
    for name in args.tasks or names():
        generator = TaskGenerator(store, name, seed=args.seed, cache_edges=cache, view=shared)
        start, cpu = time.perf_counter(), time.process_time()
        cold = [generator.instance(i) for i in range(args.instances)]
        cold_s, cold_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        for i in range(args.instances, 2 * args.instances):
            generator.instance(i)
        warm_s, warm_cpu = time.perf_counter() - start, time.process_time() - cpu
        edges = sum(len(inst.subgraph.edges) for inst in cold) / len(cold)
        draws = sum(inst.provenance["attempts"] for inst in cold) / len(cold)
        n = args.instances
        results[name] = {"cold_per_s": n / cold_s, "warm_per_s": n / warm_s,
                         "cold_per_cpu_s": n / cold_cpu, "warm_per_cpu_s": n / warm_cpu,
                         "mean_edges": edges, "mean_draws": draws}
        print(f"{name:24s} cold {n / cold_s:6.1f}/s ({n / cold_cpu:6.1f}/cpu-s)   "
              f"warm {n / warm_s:6.1f}/s ({n / warm_cpu:6.1f}/cpu-s)   "
              f"edges {edges:5.1f}   draws {draws:.2f}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
    server.close()


if __name__ == "__main__":
    main()
