"""Wikidata5m text preprocessing: its time and its share of the parse (run on demand).

    python benchmarks/bench_wikidata5m_text.py --scale 0.02 --baseline /work/main
    python benchmarks/bench_wikidata5m_text.py --dir path/to/wikidata5m --workers 1 4

Parses a synthetic Wikidata5m (`kgcert synth --layout wikidata5m`), or the release files in
--dir, with `Wikidata5mLoader.read`, each time in a fresh process, and splits the wall time
into the text steps (reading and folding the texts, splitting sentences, matching aliases,
naming entities, picking each edge's sentences, building the tables: everything after the
alias files) and the rest (triples and aliases). It reports both, the text steps per 1M
triples, their share of the parse, the CPU seconds of the parent and of its workers, and the
peak RSS of each. --workers runs kgcert once per count (KGCERT_LOAD_WORKERS); --baseline DIR
runs an older checkout on the same files in the same run, for ratios: the machine may be busy.

Why fewer than MIN_CORES cores parse in-process: workers cost about 20% more CPU in all, and on
2 busy cores the parse with workers ran at 0.64x the in-process speed (scale 0.05, measured
when the workers came in; rerun with --workers 1 2 to see today's figure).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
TEXT_STEPS = ("_texts", "_read_texts", "_supported", "_build")  # those the version has

# Runs in a fresh process on the kgcert found on PYTHONPATH (this one or --baseline).
CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from kgcert.loaders import LoadOptions, get_loader

loader = get_loader("wikidata5m", LoadOptions())
spent = {}

def timed(name, method):
    def run(*args, **kwargs):
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - started
    return run

for name in STEPS:
    if hasattr(loader, name):
        setattr(loader, name, timed(name, getattr(loader, name)))
files = loader.source_files([Path(sys.argv[1])])
started, cpu = time.perf_counter(), time.process_time()
data = loader.read(files)
wall = time.perf_counter() - started
cpu = time.process_time() - cpu
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "wall": wall, "text": sum(spent.values()), "cpu": cpu,
    "workers_cpu": children.ru_utime + children.ru_stime,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "workers_rss_mb": children.ru_maxrss / 1024,
    "edges": data.edge_count, "nodes": data.node_count,
    "kgcert": __import__("kgcert").__file__,
}))
""".replace("STEPS", repr(TEXT_STEPS))


def measure(repo: Path, folder: Path, workers: int | None) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(repo), "OMP_NUM_THREADS": "1"}
    if workers is not None:
        env["KGCERT_LOAD_WORKERS"] = str(workers)
    # cwd=repo: `python -c` puts the working directory first on sys.path
    done = subprocess.run([sys.executable, "-c", CHILD, str(folder.resolve())], env=env,
                          cwd=repo, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{repo}: the parse failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def triples_in(folder: Path) -> int:
    files = sorted(folder.glob("wikidata5m_*triplet*.txt")) or sorted(
        folder.glob("wikidata5m_transductive_*.txt"))
    with_lines = 0
    for path in files:
        with path.open("rb") as handle:
            with_lines += sum(1 for _ in handle)
    return with_lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.02,
                        help="synthetic Wikidata5m size (1.0 = full); keep it small")
    parser.add_argument("--dir", type=Path, help="release files to parse instead")
    parser.add_argument("--workers", type=int, nargs="*", default=[],
                        help="worker counts to run (default: kgcert's own choice)")
    parser.add_argument("--baseline", type=Path, help="an older kgcert checkout")
    parser.add_argument("--runs", type=int, default=1, help="runs of each, alternated")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-wd5m-") as scratch:
        folder = args.dir
        if folder is None:
            folder = Path(scratch) / "wd5m"
            subprocess.run([sys.executable, "-m", "kgcert", "synth", "--layout", "wikidata5m",
                            "--scale", str(args.scale), "--out", str(folder)], check=True,
                           env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
        triples = triples_in(folder)
        runs: list[tuple[str, Path, int | None]] = [
            (f"kgcert, {n} workers" if n else "kgcert", REPO_ROOT, n or None)
            for n in (args.workers or [0])]
        if args.baseline:
            runs.insert(0, ("baseline", args.baseline.resolve(), None))
        results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in runs}
        for _ in range(args.runs):
            for name, repo, workers in runs:
                results[name].append(measure(repo, folder, workers))
    print(f"{triples:,} triples in {folder}")
    print(f"{'':22} {'parse s':>8} {'text s':>8} {'share':>6} {'s/1M':>6} {'cpu s':>7} "
          f"{'wk cpu':>7} {'RSS MB':>7} {'wk RSS':>7}")
    best: dict[str, dict[str, float]] = {}
    for name, measured in results.items():
        best[name] = run = min(measured, key=lambda r: r["text"])
        print(f"{name:22} {run['wall']:8.2f} {run['text']:8.2f} {run['text'] / run['wall']:6.0%} "
              f"{run['text'] / triples * 1e6:6.1f} {run['cpu']:7.2f} {run['workers_cpu']:7.2f} "
              f"{run['rss_mb']:7.0f} {run['workers_rss_mb']:7.0f}")
    if "baseline" in best:
        base = best["baseline"]["text"]
        for name, run in best.items():
            if name != "baseline":
                print(f"{name}: text steps {base / run['text']:.2f}x the baseline's speed")


if __name__ == "__main__":
    main()
