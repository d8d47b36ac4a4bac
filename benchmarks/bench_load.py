"""Load throughput on a synthetic PrimeKG-shaped graph (run on demand, not in the tests).

    python benchmarks/bench_load.py --edges 1000000
    python benchmarks/bench_load.py --kg-csv /tmp/full/p25/kg.csv --baseline /work/main --no-unwind

Parse and bulk write are measured apart, in a fresh process per kgcert (its peak RSS, JVM
included, is reported): kg.csv rows parsed per second, directed edges written per second
with the embedded server's bulk API. With --baseline DIR (a checkout of an older kgcert),
the same measurement runs on that code, on the same file, in the same run, and the ratios
new/old are reported: the machine may be busy, so only same-run ratios mean much.
Then, in this process and unless --no-unwind: the bulk API against the baseline of batched
UNWIND over Bolt (what a remote Neo4j gets), reported as edges/s and as a ratio. With
KGCERT_NEO4J_URI set (credentials from the environment), also Neo4j: the whole graph over
Bolt (UNWIND batches); with --neo4j-admin HOME, the neo4j-admin route: kgcert's export
files, then `neo4j-admin database import full` run offline by HOME/bin/neo4j-admin (it
rebuilds HOME's `neo4j` database: use a scratch home), with its time, peak RSS and the
database's size on disk (store and transaction logs).

    ../shared/neo4j/with-neo4j.sh python benchmarks/bench_load.py --neo4j-admin /tmp/scratch-neo4j
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgcert.loaders import get_loader
from kgcert.loading.manifest import Manifest
from kgcert.loading.pipeline import write_kg
from kgcert.store.bulk import BoltBulkWriter
from kgcert.store.embedded import start_embedded
from kgcert.synth.primekg import SyntheticPrimeKG, scale_for_edges

# Runs in a fresh process on the kgcert found on PYTHONPATH (this one or --baseline), with only
# the APIs both have: parse kg.csv, then bulk-write it into a new embedded server.
MEASURE = """
import json, resource, sys, time
from pathlib import Path
from kgcert.loaders import get_loader
from kgcert.store.embedded import exit_now, start_embedded
try:  # this checkout's homes, else an older --baseline's
    from kgcert.loading.pipeline import write_kg
    from kgcert.loading.manifest import Manifest
except ImportError:
    from kgcert.loading import write_kg
    from kgcert.manifest import Manifest
kg_csv, data_dir, out = map(Path, sys.argv[1:4])
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
loader = get_loader("primekg")
files = loader.source_files([kg_csv])
start = time.perf_counter()
data = loader.read(files)
parse_s = time.perf_counter() - start
parse_rss = peak()
manifest = Manifest.for_files("bench", "primekg", loader.version, {}, files)
server = start_embedded(data_dir)
start = time.perf_counter()
write_kg(server, "bench", data, manifest)
write_s = time.perf_counter() - start
out.write_text(json.dumps({"parse_s": parse_s, "write_s": write_s, "edges": data.edge_count,
                           "nodes": data.node_count, "parse_peak_rss_bytes": parse_rss,
                           "peak_rss_bytes": peak()}))
exit_now(0)
"""


def _measure(code: Path, kg_csv: Path, work: Path, rows: int) -> dict[str, float]:
    """Parse and write figures of the kgcert at `code`, in a process of its own."""
    work.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(code), "OMP_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-c", MEASURE, str(kg_csv), str(work / "data"),
                    str(work / "figures.json")], check=True, env=env, cwd=code)
    figures = json.loads((work / "figures.json").read_text())
    figures["parse_rows_per_s"] = rows / figures["parse_s"]
    figures["write_edges_per_s"] = figures["edges"] / figures["write_s"]
    return figures


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
    parser.add_argument("--kg-csv", type=Path, default=None,
                        help="measure this kg.csv instead of a new synthetic one")
    parser.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                        help="a checkout of another kgcert to measure on the same file")
    parser.add_argument("--no-unwind", action="store_true",
                        help="skip the UNWIND-over-Bolt comparison (and Neo4j)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/load.json"))
    parser.add_argument("--neo4j-admin", type=Path, default=None, metavar="HOME",
                        help="a scratch Neo4j home whose bin/neo4j-admin imports the export")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgcert-bench-"))
    results: dict[str, float | int | str] = {"edges_target": args.edges}

    kg_csv = args.kg_csv or work / "kg.csv"
    if args.kg_csv is None:
        start = time.perf_counter()
        rows = SyntheticPrimeKG(scale_for_edges(args.edges), seed=1).write_kg_csv(kg_csv)
        results["synth_s"] = time.perf_counter() - start
    else:
        with kg_csv.open("rb") as handle:
            rows = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(2**24), b"")) - 1
    results["kg_csv_rows"] = rows
    repo = Path(__file__).resolve().parents[1]
    for name, code in (("new", repo), ("baseline", args.baseline)):
        if code is not None:
            figures = _measure(code.resolve(), kg_csv, work / name, rows)
            results |= {f"{name}_{key}": value for key, value in figures.items()}
    if args.baseline is not None:
        for key in ("parse_rows_per_s", "write_edges_per_s"):
            results[f"{key}_new_vs_baseline"] = (float(results[f"new_{key}"])
                                                 / float(results[f"baseline_{key}"]))
        for key in ("parse_s", "write_s"):
            results[f"{key}_baseline_vs_new"] = (float(results[f"baseline_{key}"])
                                                 / float(results[f"new_{key}"]))
    if args.neo4j_admin:
        _neo4j_admin(args.neo4j_admin, kg_csv, work, results)
    if args.no_unwind:
        _report(results, args.out)
        return
    loader = get_loader("primekg")
    files = loader.source_files([kg_csv])
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
    _report(results, args.out)


def _neo4j_admin(home: Path, kg_csv: Path, work: Path, results: dict[str, float | int | str]
                 ) -> None:
    """kgcert's export files of `kg_csv`, imported offline by HOME's neo4j-admin."""
    loader = get_loader("primekg")
    files = loader.source_files([kg_csv])
    data = loader.read(files)
    manifest = Manifest.for_files("bench", "primekg", loader.version, {}, files)
    from kgcert.export import write_neo4j_admin

    start = time.perf_counter()
    exported = write_neo4j_admin(data, manifest, work / "import", overwrite=True)
    results["neo4j_admin_export_s"] = time.perf_counter() - start
    start = time.perf_counter()
    log = work / "neo4j-admin.log"  # a file, not a pipe: nothing blocks on a full pipe
    with log.open("wb") as out:
        process = subprocess.Popen(["bash", str(exported.script)], stdout=out, stderr=out,
                                   env={**os.environ, "NEO4J_HOME": str(home),
                                        "NEO4J_ADMIN": str(home / "bin" / "neo4j-admin")})
        _, status, usage = os.wait4(process.pid, 0)  # this import's own peak RSS (its JVM)
    if status:
        raise SystemExit(f"neo4j-admin import failed:\n{log.read_text()[-2000:]}")
    results["neo4j_admin_import_s"] = time.perf_counter() - start
    results["neo4j_admin_peak_rss_mb"] = round(usage.ru_maxrss / 1024)
    data_dir = home / "data"
    results["neo4j_admin_database_mb"] = round(sum(
        f.stat().st_size for part in ("databases", "transactions")
        for f in (data_dir / part / "neo4j").rglob("*") if f.is_file()) / 2**20)
    results["neo4j_admin_edges_per_s"] = data.edge_count / (
        float(results["neo4j_admin_export_s"]) + float(results["neo4j_admin_import_s"]))


def _report(results: dict[str, float | int | str], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    for key, value in results.items():
        shown = f"{value:,.2f}" if isinstance(value, float) else f"{value:,}" if isinstance(
            value, int) else value
        print(f"{key:40} {shown}")


if __name__ == "__main__":
    main()
