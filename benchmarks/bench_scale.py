"""The whole path on a synthetic PrimeKG at a chosen scale (issue 12; run on demand).

    python benchmarks/bench_scale.py --scale 0.1 [--server embedded|neo4j] [--samples 2000]
    python benchmarks/bench_scale.py --work DIR --loaded KG   # a KG loaded before, in DIR/data

Times `synth` (rows/s), the load, and for each of the 10 shipped PrimeKG specs: preparation
with an empty table cache (edge tables pulled over Bolt), preparation again (cached tables),
the match count and samples/s; prompts per CPU-second (sampling included, warm) with the
per-entity reads as the baseline against the KG snapshot (`--prompts`, two specs, both
settings); and the peak RSS of this process. `--server neo4j` uses
KGCERT_NEO4J_URI and its credentials from the environment. Scale 1.0 is the full PrimeKG
(8.1M rows): mind the machine's memory before running it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from kgcert.errors import KgcertError
from kgcert.loaders import get_loader
from kgcert.loading import load
from kgcert.prompts import PromptBuilder, PromptGraph
from kgcert.prompts.snapshot import pull
from kgcert.resources import data_folder
from kgcert.specs import RelationSampler, RelationSpec, load_spec_file, prepare_sampler
from kgcert.store.graph import GraphStore
from kgcert.synth import SyntheticPrimeKG


def _server(kind: str, work: Path):
    if kind == "embedded":
        from kgcert.store.embedded import start_embedded

        return start_embedded(work / "data")
    from kgcert.config import StoreTarget
    from kgcert.store import connect

    if not os.environ.get("KGCERT_NEO4J_URI"):
        raise SystemExit("--server neo4j needs KGCERT_NEO4J_URI (and its credentials)")
    return connect(StoreTarget.resolve(os.environ["KGCERT_NEO4J_URI"], str(work / "data")))


PROMPT_SPECS = ("dual_indication", "exposure_drug")


def _per_cpu_s(builder: PromptBuilder, indices: range) -> float:
    cpu = time.process_time()  # the embedded server runs in this process: its CPU counts too
    for index in indices:
        builder.build(index)
    return len(indices) / (time.process_time() - cpu)


def bench_prompts(store: GraphStore, cache: Path, count: int) -> dict[str, object]:
    """Prompts (sampling included) per CPU-second, warm: the per-entity reads (the old path,
    baseline) against the KG snapshot, after `count` prompts of warm-up each."""
    start, cpu = time.perf_counter(), time.process_time()
    snapshot = pull(store, cache)
    row: dict[str, object] = {"snapshot_s": time.perf_counter() - start,
                              "snapshot_cpu_s": time.process_time() - cpu}
    start = time.perf_counter()
    snapshot = pull(store, cache)
    row["snapshot_cached_s"] = time.perf_counter() - start
    print(f"prompt snapshot: {row['snapshot_s']:.1f} s ({row['snapshot_cpu_s']:.1f} CPU-s), "
          f"{row['snapshot_cached_s']:.1f} s from its file")
    for name in PROMPT_SPECS:
        spec = load_spec_file(data_folder("specs") / "primekg" / f"{name}.yaml")
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, store, cache)
        for setting in ("vanilla", "distractor"):
            figures = {}
            for path, graph in (("reads", PromptGraph(store)),
                                ("snapshot", PromptGraph(store, snapshot=snapshot))):
                builder = PromptBuilder(store, spec, sampler, setting=setting, graph=graph)
                _per_cpu_s(builder, range(count))  # warm-up: caches fill
                figures[path] = _per_cpu_s(builder, range(count, 2 * count))
            row[f"{name}/{setting}"] = figures
            print(f"prompts {name}/{setting}: {figures['reads']:,.1f} per CPU-s with per-entity "
                  f"reads, {figures['snapshot']:,.1f} with the snapshot "
                  f"({figures['snapshot'] / figures['reads']:.1f}x)", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--server", choices=["embedded", "neo4j"], default="embedded")
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prompts", type=int, default=200,
                        help="prompts per spec and setting (warm-up, then timed); 0: skip")
    parser.add_argument("--work", type=Path, default=None,
                        help="working folder (default: a new temporary one); its data/ holds "
                             "the embedded server's KGs")
    parser.add_argument("--loaded", default=None, metavar="KG",
                        help="measure KG, already loaded in --work, instead of synth + load")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/scale.json"))
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-bench-scale-"))
    results: dict[str, object] = {"scale": args.scale, "server": args.server}

    if args.loaded:  # a KG this script (or `kgcert load`) loaded before into --work's data
        server = _server(args.server, work)
        kg = args.loaded
    else:
        start = time.perf_counter()
        rows = SyntheticPrimeKG(args.scale, seed=args.seed).write_kg_csv(work / "kg.csv")
        seconds = time.perf_counter() - start
        results.update(synth_rows=rows, synth_s=seconds, synth_rows_per_s=rows / seconds)
        print(f"synth: {rows:,} rows in {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")

        server = _server(args.server, work)
        start = time.perf_counter()
        kg = "bench_scale"
        load(server, get_loader("primekg"), [work / "kg.csv"], kg, replace=True)
        seconds = time.perf_counter() - start
        results.update(load_s=seconds, load_rows_per_s=rows / seconds)
        print(f"load: {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")
    store = server.open(kg)
    cache = Path(tempfile.mkdtemp(prefix="kgcert-bench-cache-"))  # cold: no table cached

    per_spec: dict[str, dict[str, object]] = {}
    for path in sorted(data_folder("specs").glob("primekg/*.yaml")):
        spec = load_spec_file(path)
        row: dict[str, object] = {}
        per_spec[spec.name] = row
        try:
            start = time.perf_counter()
            sampler = prepare_sampler(spec, store, cache)
            row["prepare_cold_s"] = time.perf_counter() - start
            start = time.perf_counter()
            sampler = prepare_sampler(spec, store, cache)
            row["prepare_cached_s"] = time.perf_counter() - start
            assert isinstance(sampler, RelationSampler)
            count = sampler.count()
            row["matches"] = count.matches if count.matches is not None else \
                count.estimated_matches
            start = time.perf_counter()
            for index in range(args.samples):
                sampler.sample(0, index)
            row["samples_per_s"] = args.samples / (time.perf_counter() - start)
        except KgcertError as error:
            row["error"] = str(error)
            print(f"{spec.name}: {error}")
            continue
        print(f"{spec.name}: prepare {row['prepare_cold_s']:.1f} s cold, "
              f"{row['prepare_cached_s']:.2f} s cached; {row['matches']:,.0f} matches; "
              f"{row['samples_per_s']:,.0f} samples/s")
    results["specs"] = per_spec
    if args.prompts:
        results["prompts"] = bench_prompts(store, cache, args.prompts)
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if not args.loaded:
        server.drop(kg)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(f"peak RSS (kgcert process) {results['peak_rss_mb']:,.0f} MB; wrote {args.out}")


if __name__ == "__main__":
    main()
