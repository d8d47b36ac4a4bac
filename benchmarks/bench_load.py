"""Load throughput on a synthetic PrimeKG-shaped graph (run on demand, not in the tests).

    python benchmarks/bench_load.py --edges 1000000

Measures, in one run on one embedded server: parsing kg.csv, writing with the embedded
server's bulk API, and the baseline, batched UNWIND over Bolt (what a remote Neo4j gets),
reported as edges/s and as a ratio. With KGCERT_NEO4J_URI set (credentials from the
environment), also Neo4j: the whole graph over Bolt (UNWIND batches); with --neo4j-admin HOME,
the neo4j-admin route: kgcert's export files, then `neo4j-admin database import full` run
offline by HOME/bin/neo4j-admin (it rebuilds HOME's `neo4j` database: use a scratch home).

    ../shared/neo4j/with-neo4j.sh python benchmarks/bench_load.py --neo4j-admin /tmp/scratch-neo4j
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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
    parser.add_argument("--neo4j-admin", type=Path, default=None, metavar="HOME",
                        help="a scratch Neo4j home whose bin/neo4j-admin imports the export")
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
        seconds = _timed_write(neo4j, "bench_neo4j", data, manifest)
        results["neo4j_unwind_s"] = seconds
        results["neo4j_unwind_edges_per_s"] = data.edge_count / seconds
        results["neo4j_unwind_vs_embedded_bulk"] = bulk_s / seconds
        neo4j.close()
    if args.neo4j_admin:
        from kgcert.export import write_neo4j_admin

        start = time.perf_counter()
        files = write_neo4j_admin(data, manifest, work / "import", overwrite=True)
        results["neo4j_admin_export_s"] = time.perf_counter() - start
        start = time.perf_counter()
        subprocess.run(["bash", str(files.script)], check=True, capture_output=True,
                       env={**os.environ, "NEO4J_HOME": str(args.neo4j_admin),
                            "NEO4J_ADMIN": str(args.neo4j_admin / "bin" / "neo4j-admin")})
        results["neo4j_admin_import_s"] = time.perf_counter() - start
        results["neo4j_admin_edges_per_s"] = data.edge_count / (
            float(results["neo4j_admin_export_s"]) + float(results["neo4j_admin_import_s"]))
    results["kg_csv_rows"] = rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    for key, value in results.items():
        print(f"{key:32} {value:,.1f}" if isinstance(value, float) else f"{key:32} {value}")


if __name__ == "__main__":
    main()
