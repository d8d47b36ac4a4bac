"""Where a Wikidata5m load's time goes, phase by phase, on this checkout and a baseline.

    python benchmarks/bench_load_phases.py --scale 0.02 --baseline /work/wt/base-4425dba

Each checkout loads the synthetic Wikidata5m (`kgcert synth --layout wikidata5m`, made once
in --work) into a fresh embedded server in its own process, with the writer's steps timed:
the read (parsing, text matching, pairing), the server's start, node writes, edge writes,
the edge batch closes (all of them; one past each EDGE_BATCH_EDGES edges is counted in the edge
writes too) and the schema statements. Each phase gets its wall time and the CPU time of the
whole process (every JVM thread included): on a busy shared machine the wall time swings with
the load, the CPU time much less, so compare checkouts by CPU time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_load_memory import synth

TIMED = r"""
import collections, json, sys, time
from pathlib import Path
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import parsed_kg_frozen, read_source, store_source
from kgcert.store import arcade_bulk
from kgcert.store.embedded import exit_now, start_embedded

files, data, unsupported = sys.argv[1:4]
wall, cpu = collections.Counter(), collections.Counter()

def timed(cls, name, phase):
    inner = getattr(cls, name, None)
    if inner is None:
        return
    def wrapper(*args, **kwargs):
        started, used = time.perf_counter(), time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            wall[phase] += time.perf_counter() - started
            cpu[phase] += time.process_time() - used
    setattr(cls, name, wrapper)

writer = arcade_bulk.ArcadeBulkWriter
timed(writer, "prepare", "schema statements")
timed(writer, "write_node_parts", "node writes")
timed(writer, "write_edge_part", "edge writes")
closes = "_close_edge_batch" if hasattr(writer, "_close_edge_batch") else "finish"
timed(writer, closes, "edge batch closes (all)")

def phase(name, run):
    started, used = time.perf_counter(), time.process_time()
    result = run()
    wall[name] += time.perf_counter() - started
    cpu[name] += time.process_time() - used
    return result

loader = get_loader("wikidata5m", LoadOptions(settings={"unsupported_edges": unsupported}))
source = phase("read (parse, match, pair)", lambda: read_source(loader, [Path(files)], "w5m"))
server = phase("server start", lambda: start_embedded(Path(data)))
with parsed_kg_frozen():
    phase("store (all writes)", lambda: store_source(server, source, replace=True))
print(json.dumps({name: [round(wall[name], 1), round(cpu[name], 1)] for name in wall}))
exit_now(0)
"""


def run(checkout: Path, files: Path, data: Path, unsupported: str) -> dict[str, list[float]]:
    subprocess.run(["rm", "-rf", str(data)], check=True)
    done = subprocess.run([sys.executable, "-c", TIMED, str(files), str(data), unsupported],
                          cwd=checkout, env={"PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1",
                                             "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, check=False)
    subprocess.run(["rm", "-rf", str(data)], check=True)
    if done.returncode:
        raise SystemExit(f"{checkout}: the load failed: {done.stderr.strip().splitlines()[-1:]}")
    result: dict[str, list[float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _cell(times: list[float] | None) -> str:
    return "-" if times is None else f"{times[0]:.1f} / {times[1]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=0.02)
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--unsupported-edges", choices=["drop", "template"], default="drop")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-loadphases-"))
    files = synth(args.scale, work)
    here = Path(__file__).resolve().parent.parent
    checkouts = {"this": here, **({"baseline": args.baseline} if args.baseline else {})}
    found = {name: run(path, files, work / f"data-{name}", args.unsupported_edges)
             for name, path in checkouts.items()}
    phases = list(dict.fromkeys(p for result in found.values() for p in result))
    print(f"{'phase':32}" + "".join(f"{name + ' wall/cpu s':>24}" for name in found))
    for phase in phases:
        cells = "".join(f"{_cell(found[name].get(phase)):>24}" for name in found)
        print(f"{phase:32}{cells}")


if __name__ == "__main__":
    main()
