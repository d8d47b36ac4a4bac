"""Load throughput on a synthetic PrimeKG-shaped graph (run on demand, not in the tests).

    python benchmarks/bench_load.py --edges 1000000

Measures, in one run on one embedded server: parsing kg.csv, writing with the embedded
server's bulk API, and the baseline, batched UNWIND over Bolt (what a remote Neo4j gets),
reported as edges/s and as a ratio. With KGCERT_NEO4J_URI set, also the Neo4j figure.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from kgcert.loaders import get_loader
from kgcert.loading import write_kg
from kgcert.manifest import Manifest
from kgcert.store.bulk import BoltBulkWriter
from kgcert.store.embedded import start_embedded
from kgcert.synth import SyntheticPrimeKG, scale_for_edges


def _timed_write(server, kg, data, manifest, factory=None) -> float:
    server.drop(kg) if server.exists(kg) else None
    start = time.perf_counter()
    write_kg(server, kg, data, manifest, writer_factory=factory)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--baseline-edges", type=int, default=200_000,
                        help="size of the UNWIND baseline run (it is slow)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/load.json"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgcert-bench-"))
    results: dict[str, float | int | str] = {"edges_target": args.edges}

    start = time.perf_counter()
    rows = SyntheticPrimeKG(scale_for_edges(args.edges), seed=1).write_kg_csv(work / "kg.csv")
    results["synth_s"] = time.perf_counter() - start
    loader = get_loader("primekg")
    files = loader.source_files([work / "kg.csv"])
    start = time.perf_counter()
    data = loader.read(files)
    results["parse_s"] = time.perf_counter() - start
    results["nodes"], results["edges"] = data.node_count, data.edge_count
    manifest = Manifest.for_files("bench", "primekg", loader.version, {}, files)

    server = start_embedded(work / "data")
    bulk_s = _timed_write(server, "bench_bulk", data, manifest)
    results["bulk_edges_per_s"] = data.edge_count / bulk_s
    results["end_to_end_edges_per_s"] = data.edge_count / (bulk_s + float(results["parse_s"]))

    small_rows = SyntheticPrimeKG(scale_for_edges(args.baseline_edges), seed=1)
    small_rows.write_kg_csv(work / "small" / "kg.csv")
    small = loader.read([work / "small" / "kg.csv"])
    for name, factory in (("bulk_small", None), ("unwind_bolt_small", BoltBulkWriter)):
        seconds = _timed_write(server, name, small, manifest, factory)
        results[f"{name}_edges_per_s"] = small.edge_count / seconds
    results["bulk_vs_unwind_ratio"] = (float(results["bulk_small_edges_per_s"])
                                       / float(results["unwind_bolt_small_edges_per_s"]))
    if os.environ.get("KGCERT_NEO4J_URI"):
        from kgcert.store.neo4j_server import Neo4jServer

        neo4j = Neo4jServer(os.environ["KGCERT_NEO4J_URI"])
        seconds = _timed_write(neo4j, "neo4j", small, manifest)
        results["neo4j_unwind_edges_per_s"] = small.edge_count / seconds
    results["kg_csv_rows"] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    for key, value in results.items():
        print(f"{key:32} {value:,.1f}" if isinstance(value, float) else f"{key:32} {value}")


if __name__ == "__main__":
    main()
