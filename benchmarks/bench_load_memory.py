"""Peak memory and time of `kgcert load` on a synthetic KG (Wikidata5m or PrimeKG), against a
baseline.

    python benchmarks/bench_load_memory.py --scales 0.02 0.1 --baseline /work/main
    python benchmarks/bench_load_memory.py --scales 1.0 --no-baseline --unsupported-edges drop
    python benchmarks/bench_load_memory.py --layout primekg --scales 0.05 0.2 --compare

Each load is `python -m kgcert load` in a fresh process with a fresh data directory, run on
the checkout named (this one, and --baseline's), with default settings (KGCERT_JVM_HEAP is
left unset unless --heap). Its resident memory is the sum over the whole process tree (the
embedded server's JVM lives in the load's process; forked text workers count too), read from
/proc every 0.2 s: the peak is reported, with the wall time. Two scales give the growth of
the peak per unit of scale (issue target: at most 6 GB per unit; at scale 1.0 at most 8 GB and
15 minutes). With --compare, each load's content (every node and edge with its properties,
the manifest less its clock times) is hashed, so that loads by both checkouts can be checked
byte for byte. With --live, one more load of each reports the Java heap it holds live (after
a full collection, less the page cache) once its nodes are written and around each edge batch's
close: the figures store/jvm_heap.py sizes the heap from. Results go to --out as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
GB = 1e9
PAGE = os.sysconf("SC_PAGE_SIZE")

# Hashes a loaded KG's content: runs on this checkout against the data directory of a load.
DIGEST = """
import hashlib, json, sys
from pathlib import Path
from kgcert.store.embedded import exit_now, start_embedded
server = start_embedded(Path(sys.argv[1]))
store = server.store(sys.argv[2])
clock = {"started_at", "finished_at", "kgcert_version"}
def digest(rows):
    lines = sorted(json.dumps(r, sort_keys=True, default=str) for r in rows)
    return hashlib.sha256("\\n".join(lines).encode()).hexdigest(), len(lines)
nodes = [{"l": sorted(r["l"]), "p": {k: v for k, v in r["p"].items() if k not in clock}}
         for r in store.query("MATCH (n) RETURN labels(n) AS l, properties(n) AS p")]
edges = store.query("MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS s, b.id AS d, "
                    "properties(r) AS p")
out = {"nodes": digest(nodes), "edges": digest(edges)}
print(json.dumps(out))
exit_now(0)
"""


READ = """
import sys
from pathlib import Path
from kgcert.loaders import LoadOptions, get_loader
settings = {"unsupported_edges": sys.argv[2]} if sys.argv[3] == "wikidata5m" else {}
loader = get_loader(sys.argv[3], LoadOptions(settings=settings))
loader.read(loader.source_files([Path(sys.argv[1])]))
"""


# The Java heap a load holds live (store/jvm_heap.py's figures): a full collection once the
# nodes are written and before and after each edge batch's close, then the heap used less
# ArcadeDB's page cache. Runs on the checkout named, in one process, heap sized as a load's.
LIVE = """
import json, sys
from pathlib import Path
import jpype
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import parsed_kg_frozen, read_source, store_source
from kgcert.store import arcade_bulk
from kgcert.store.embedded import exit_now, start_embedded
from kgcert.store.jvm_heap import KGSize, plan_for_kg
points = []
def point(tag):
    jpype.JClass("java.lang.System").gc()
    used = jpype.JClass("java.lang.management.ManagementFactory").getMemoryMXBean()\
        .getHeapMemoryUsage().getUsed()
    cache = jpype.JClass("com.arcadedb.engine.PageManager").INSTANCE.getStats().readCacheRAM
    points.append({"at": tag, "used_mb": int(used) >> 20, "page_cache_mb": int(cache) >> 20})
def around(name, before, after):
    inner = getattr(arcade_bulk.ArcadeBulkWriter, name)
    def wrapper(*args, **kwargs):
        before and point(before)
        result = inner(*args, **kwargs)
        point(after)
        return result
    setattr(arcade_bulk.ArcadeBulkWriter, name, wrapper)
around("write_node_parts", "", "nodes written")
around("_close_edge_batch", "before a close", "after a close")
loader = get_loader("wikidata5m", LoadOptions(settings={"unsupported_edges": sys.argv[3]}))
source = read_source(loader, [Path(sys.argv[1])], "w5m")
plan_for_kg(KGSize(source.data.node_count, source.data.edge_count))
server = start_embedded(Path(sys.argv[2]))
with parsed_kg_frozen():
    store_source(server, source, replace=True)
print(json.dumps(points))
exit_now(0)
"""


def live_heap(checkout: Path, files: Path, data_dir: Path, unsupported: str
              ) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    env.pop("KGCERT_JVM_HEAP", None)
    subprocess.run(["rm", "-rf", str(data_dir)], check=True)
    done = subprocess.run([sys.executable, "-c", LIVE, str(files), str(data_dir), unsupported],
                          env=env, cwd=checkout, capture_output=True, text=True, check=False)
    subprocess.run(["rm", "-rf", str(data_dir)], check=True)
    if done.returncode:
        return [{"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}]
    points: list[dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return points


STOP_BELOW = 1.5 * GB  # memory available on the machine below which a load is stopped


def available() -> int:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 1 << 62


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants, from /proc."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    stack.extend(int(c) for c in handle.read().split())
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return total


def children_cpu() -> float:
    """CPU seconds (user and system) of the children waited for so far: around one load, its
    own, which on a busy machine says more than its wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def settings(layout: str, unsupported: str) -> list[str]:
    """The load's --set options: the edge setting is Wikidata5m's alone."""
    return ["--set", f"unsupported_edges={unsupported}"] if layout == "wikidata5m" else []


def run_load(checkout: Path, files: Path, data_dir: Path, unsupported: str,
             heap: str | None, layout: str = "wikidata5m") -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "KGCERT_DATA_DIR": str(data_dir),
           "KGCERT_CACHE_DIR": str(data_dir / "cache"), "OMP_NUM_THREADS": "1"}
    env.pop("KGCERT_JVM_HEAP", None)
    if heap:
        env["KGCERT_JVM_HEAP"] = heap
    command = [sys.executable, "-m", "kgcert", "load", layout, str(files), "--kg", "w5m",
               *settings(layout, unsupported)]
    start = time.perf_counter()
    cpu_before = children_cpu()
    log = data_dir.parent / f"{data_dir.name}.log"
    with open(log, "w") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   cwd=checkout)
        peak, stopped = 0, ""
        while process.poll() is None:
            peak = max(peak, tree_rss(process.pid))
            if available() < STOP_BELOW and not stopped:  # the machine is shared: give way
                stopped = f"stopped: {available() / GB:.1f} GB left available"
                process.kill()
            time.sleep(0.2)
    wall = time.perf_counter() - start
    cpu = children_cpu() - cpu_before
    text = log.read_text(errors="replace")
    lines = [line for line in text.splitlines() if line.strip() and "━" not in line]
    heap_lines = [line for line in lines if line.startswith("embedded server: Java heap")]
    took = [line for line in lines if "took" in line]
    return {"rc": process.returncode, "stopped": stopped, "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "peak_gb": round(peak / GB, 2),
            "heap_line": heap_lines[0] if heap_lines else "", "phases": took,
            "last_lines": lines[-4:]}


def run_read(checkout: Path, files: Path, unsupported: str,
             layout: str = "wikidata5m") -> dict[str, object]:
    """The loader's read alone (no server): Python's own peak, without the JVM."""
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-c", READ, str(files), unsupported, layout],
                               env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        peak = max(peak, tree_rss(process.pid))
        time.sleep(0.2)
    return {"read_rc": process.returncode, "read_s": round(time.perf_counter() - start, 1),
            "read_peak_gb": round(peak / GB, 2)}


def content_digest(data_dir: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(HERE), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", DIGEST, str(data_dir), "w5m"], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def synth(scale: float, work: Path, layout: str = "wikidata5m") -> Path:
    out = work / (f"synth-{scale}" if layout == "wikidata5m" else f"synth-{layout}-{scale}")
    last = "wikidata5m_text.txt" if layout == "wikidata5m" else "kg.csv"
    if not (out / last).exists():
        env = {**os.environ, "PYTHONPATH": str(HERE)}
        subprocess.run([sys.executable, "-m", "kgcert", "synth", "--layout", layout,
                        "--scale", str(scale), "--out", str(out)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
    return out


def growth(rows: list[dict[str, object]], key: str = "peak_gb") -> float | None:
    """Peak growth per unit of scale between the smallest and largest scale measured."""
    ok = sorted((float(r["scale"]), float(r[key])) for r in rows  # type: ignore[arg-type]
                if r["rc"] == 0 and key in r)
    if len(ok) < 2 or ok[-1][0] == ok[0][0]:
        return None
    return round((ok[-1][1] - ok[0][1]) / (ok[-1][0] - ok[0][0]), 2)


def growths(rows: list[dict[str, object]], key: str = "peak_gb") -> dict[str, object]:
    """The growth of each repeat (its own pair of loads, measured in the same minutes), with
    their median and spread: one pair is only good to about 2 GB a unit on a busy machine."""
    repeats = sorted({int(r.get("repeat", 0)) for r in rows})  # type: ignore[call-overload]
    each = [growth([r for r in rows if r.get("repeat", 0) == n], key) for n in repeats]
    found = [g for g in each if g is not None]
    if not found:
        return {"each": each, "median": None, "min": None, "max": None}
    return {"each": each, "median": round(statistics.median(found), 2),
            "min": min(found), "max": max(found)}


def measure(args: argparse.Namespace, work: Path, name: str, checkout: Path, scale: float,
            repeat: int) -> dict[str, object]:
    """One load by one checkout, with what the options ask measured beside it."""
    files = synth(scale, work, args.layout)
    data_dir = work / f"data-{name}-{scale}"
    subprocess.run(["rm", "-rf", str(data_dir)], check=True)
    row: dict[str, object] = {"scale": scale, "repeat": repeat, "layout": args.layout,
                              "unsupported_edges": args.unsupported_edges,
                              **run_load(checkout, files, data_dir, args.unsupported_edges,
                                         args.heap, args.layout)}
    if args.compare and row["rc"] == 0:
        row["content"] = content_digest(data_dir)
    if args.read_only:
        row.update(run_read(checkout, files, args.unsupported_edges, args.layout))
    if args.live and args.layout == "wikidata5m":
        row["live_heap"] = live_heap(checkout, files, data_dir, args.unsupported_edges)
    subprocess.run(["rm", "-rf", str(data_dir)], check=True)
    print(f"{name:8} scale {scale:<5} rc {row['rc']} peak {row['peak_gb']:.2f} GB "
          f"wall {row['wall_s']:.0f} s cpu {row['cpu_s']:.0f} s  {row['heap_line']}",
          flush=True)
    if args.read_only:
        print(f"         read alone: peak {row['read_peak_gb']} GB, {row['read_s']} s",
              flush=True)
    for found in row.get("live_heap", ()):  # type: ignore[attr-defined]
        print(f"         live heap {found}", flush=True)
    if "content" in row:
        print(f"         content {row['content']}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", type=float, nargs="+", default=[0.02, 0.1])
    parser.add_argument("--baseline", type=Path, default=Path("/work/main"))
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--baseline-only", action="store_true")
    parser.add_argument("--layout", choices=["wikidata5m", "primekg"], default="wikidata5m")
    parser.add_argument("--unsupported-edges", choices=["drop", "template"], default="drop")
    parser.add_argument("--heap", default=None, help="KGCERT_JVM_HEAP for every load")
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure every scale and checkout this many times, interleaved "
                             "(the growth is reported per repeat, with median and spread)")
    parser.add_argument("--compare", action="store_true", help="hash each load's content")
    parser.add_argument("--read-only", action="store_true",
                        help="also measure the loader's read alone (Python without the JVM)")
    parser.add_argument("--live", action="store_true",
                        help="also measure the Java heap held live (Wikidata5m; one more load)")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--out", type=Path,
                        default=HERE / "benchmarks" / "results" / "load_memory.json")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-loadmem-"))
    checkouts = {"this": HERE} if args.no_baseline else {"baseline": args.baseline, "this": HERE}
    if args.baseline_only:
        checkouts = {"baseline": args.baseline}
    results: dict[str, list[dict[str, object]]] = {name: [] for name in checkouts}
    for repeat in range(max(1, args.repeat)):
        for scale in args.scales:
            for name, checkout in checkouts.items():
                results[name].append(measure(args, work, name, checkout, scale, repeat))
    summary: dict[str, dict[str, object]] = {}
    for name, rows in results.items():
        grown, read = growths(rows), growths(rows, "read_peak_gb")
        summary[name] = {"rows": rows, "growth_gb_per_scale": grown,
                         "read_growth_gb_per_scale": read}
        print(f"{name}: peak growth {grown['median']} GB per unit of scale, median of "
              f"{grown['each']} (target <= 6); the read alone {read['median']}")
        for scale in args.scales:
            ran = [r for r in rows if r["scale"] == scale and r["rc"] == 0]
            if ran:
                print(f"  scale {scale}: peak GB {[r['peak_gb'] for r in ran]}, "
                      f"cpu s {[r['cpu_s'] for r in ran]}, wall s {[r['wall_s'] for r in ran]}")
    if args.compare and set(checkouts) == {"this", "baseline"}:
        for mine, theirs in zip(results["this"], results["baseline"], strict=True):
            same = mine.get("content") == theirs.get("content")
            print(f"scale {mine['scale']} repeat {mine['repeat']}: content "
                  f"{'identical' if same else 'DIFFERS'}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
