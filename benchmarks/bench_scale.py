"""The whole path on a synthetic PrimeKG at a chosen scale (issue 12; run on demand).

    python benchmarks/bench_scale.py --scale 0.1 [--server embedded|neo4j] [--samples 2000]
    python benchmarks/bench_scale.py --work DIR --loaded KG   # a KG loaded before, in DIR/data
    python benchmarks/bench_scale.py --scale 0 --entity-scale 0.05   # entity specs only

Times `synth` (rows/s), the load, and for each of the 10 shipped PrimeKG specs: preparation
with an empty table cache (edge tables pulled over Bolt), preparation again (cached tables),
the memory that preparation allocates at its peak (tracemalloc, cached tables), the match
count and samples/s; with `--cypher-counts`, each count against the server's own Cypher
count (benchmarks/scale_counts.py); with `--entity-scale S`, `specs generate` on a synthetic
Wikidata5m at scale S, preparation per pivot and samples/s (benchmarks/scale_entity.py);
prompts per CPU-second (sampling included, warm) with the
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
import tracemalloc
from pathlib import Path

from scale_counts import check_count
from scale_entity import bench_entity, load_wikidata5m

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
    parser.add_argument("--scale", type=float, default=0.1,
                        help="synthetic PrimeKG scale; 0: skip the relation specs")
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
    parser.add_argument("--pivots", type=int, default=50)
    parser.add_argument("--rho", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the loaded KGs in --work")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/scale.json"))
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-bench-scale-"))
    results: dict[str, object] = {"scale": args.scale, "server": args.server}

    server = _server(args.server, work)
    if args.scale > 0 or args.loaded:
        bench_relation(server, work, args, results)
    if args.entity_scale > 0 or args.entity_loaded:
        if args.entity_loaded:
            kg = args.entity_loaded
        else:
            kg, results["wikidata5m"] = load_wikidata5m(server, work, args.entity_scale,
                                                        args.unsupported_edges, args.seed)
        results["entity_specs"] = bench_entity(server.open(kg), kg, work, pivots=args.pivots,
                                               rho=args.rho, samples=args.samples)
        if not (args.entity_loaded or args.keep):
            server.drop(kg)
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    print(f"peak RSS (kgcert process) {results['peak_rss_mb']:,.0f} MB; wrote {args.out}")


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
        rows = SyntheticPrimeKG(args.scale, seed=args.seed).write_kg_csv(work / "kg.csv")
        seconds = time.perf_counter() - start
        results.update(synth_rows=rows, synth_s=seconds, synth_rows_per_s=rows / seconds)
        print(f"synth: {rows:,} rows in {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")

        start = time.perf_counter()
        kg = "bench_scale"
        load(server, get_loader("primekg"), [work / "kg.csv"], kg, replace=True)
        seconds = time.perf_counter() - start
        results.update(load_s=seconds, load_rows_per_s=rows / seconds)
        print(f"load: {seconds:.1f} s ({rows / seconds:,.0f} rows/s)")
    store = server.open(kg)
    per_spec: dict[str, dict[str, object]] = {}
    for path in sorted(data_folder("specs").glob("primekg/*.yaml")):
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
        results["prompts"] = bench_prompts(
            store, Path(tempfile.mkdtemp(prefix="kgcert-bench-cache-")), args.prompts)
    if not (args.loaded or args.keep):
        server.drop(kg)


if __name__ == "__main__":
    main()
