"""Wall time of kgcert commands as a user runs them, each in a fresh process (run on demand).

    python benchmarks/bench_cli.py                      # graph-free, then graph commands
    python benchmarks/bench_cli.py --only graph-free --baseline /path/to/older/checkout

Graph-free: `--help`, `specs list`, `formats`, `plan --half-width 0.05`. Graph commands (when
the shared data is present): `info`, `specs count`, `prompts --n 1` and `specs sample --n 100`
on the PrimeKG Alzheimer extract, loaded first into a temporary data directory (the load is
not timed), each timed twice: cold (`--no-server`: the graph server starts in the command's own
process, as before issue 10) and warm (the warm background server already up, and one untimed
run first so the spec caches are filled), with the warm/cold ratio. Each command runs --runs
times; the table gives the median, min and max wall time, and with --baseline the same commands
from another checkout of kgcert (always in-process there) and the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
KG = "alzheimer"
SPEC = "primekg.dual_indication"
GRAPH_FREE = {
    "--help": ["--help"],
    "specs list": ["specs", "list"],
    "formats": ["formats"],
    "plan --half-width 0.05": ["plan", "--half-width", "0.05"],
}
GRAPH = {
    "info": ["info", "--kg", KG],
    f"specs count {SPEC}": ["specs", "count", SPEC, "--kg", KG],
    "prompts --n 1": ["prompts", "--kg", KG, "--spec", SPEC, "--n", "1"],
    "specs sample --n 100": ["specs", "sample", SPEC, "--kg", KG, "--n", "100"],
}


def _alzheimer_csv() -> Path | None:
    root = Path(os.environ.get("KGCERT_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")
    path = root / "primekg" / "kg_alzheimer_neighbourhood.csv"
    return path if path.is_file() else None


def kgcert(repo: Path, data_dir: Path, args: list[str], *, warm: bool = False) -> float:
    """Seconds `python -m kgcert ARGS` takes with `repo` first on the path; fails loudly.

    Not `warm`: KGCERT_NO_SERVER=1, the graph server runs in the command's process.
    """
    env = {k: v for k, v in os.environ.items()
           if k not in ("KGCERT_NEO4J_URI", "KGCERT_NO_SERVER")}
    env |= {"PYTHONPATH": str(repo), "KGCERT_DATA_DIR": str(data_dir)}
    if not warm:
        env["KGCERT_NO_SERVER"] = "1"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kgcert", *args], env=env, cwd=repo,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"kgcert {' '.join(args)} failed ({repo}): {done.stderr.strip()}")
    return elapsed


def measure(repo: Path, data_dir: Path, args: list[str], runs: int, *,
            warm: bool = False) -> list[float]:
    return [kgcert(repo, data_dir, args, warm=warm) for _ in range(runs)]


def row(label: str, times: list[float], baseline: list[float] | None,
        cold: list[float] | None = None) -> str:
    median = statistics.median(times)
    line = f"{label:44} {median:8.2f} {min(times):7.2f} {max(times):7.2f}"
    if baseline:
        before = statistics.median(baseline)
        line += f" {before:10.2f} {median / before:7.2f}"
    if cold:
        line += f"   warm/cold {median / statistics.median(cold):.2f}"
    return line


def time_graph_commands(data_dir: Path, commands: dict[str, list[str]], runs: int,
                        baseline: Path | None) -> None:
    """Each graph command cold, then all of them warm against one warm server."""
    cold: dict[str, list[float]] = {}
    for label, args in commands.items():
        cold[label] = measure(REPO_ROOT, data_dir, args, runs)
        before = measure(baseline, data_dir, args, runs) if baseline else None
        print(row(f"{label} (cold)", cold[label], before), flush=True)
    kgcert(REPO_ROOT, data_dir, ["server", "start"], warm=True)
    try:
        for label, args in commands.items():
            kgcert(REPO_ROOT, data_dir, args, warm=True)  # fills the caches, untimed
            times = measure(REPO_ROOT, data_dir, args, runs, warm=True)
            print(row(f"{label} (warm)", times, None, cold[label]), flush=True)
    finally:
        kgcert(REPO_ROOT, data_dir, ["server", "stop"], warm=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["all", "graph-free", "graph"], default="all")
    parser.add_argument("--runs", type=int, default=5, help="Runs per command (default 5).")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="Another kgcert checkout to time the same commands from.")
    options = parser.parse_args()
    if options.runs < 1:
        parser.error("--runs must be at least 1")
    commands = {} if options.only == "graph" else dict(GRAPH_FREE)
    csv = _alzheimer_csv()
    if options.only != "graph-free":
        if csv is None:
            print("graph commands skipped: the shared PrimeKG Alzheimer extract is absent "
                  "(set KGCERT_SHARED_DATA)", file=sys.stderr)
        else:
            commands |= GRAPH
    header = f"{'command':44} {'median s':>8} {'min':>7} {'max':>7}"
    if options.baseline:
        header += f" {'baseline s':>10} {'ratio':>7}"
    print(f"{options.runs} runs per command, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}")
    print(header)
    with tempfile.TemporaryDirectory(prefix="kgcert-bench-cli-") as tmp:
        data_dir = Path(tmp)
        if csv is not None and GRAPH.keys() & commands.keys():
            kgcert(REPO_ROOT, data_dir, ["load", "primekg", str(csv), "--kg", KG])
        baseline = options.baseline.resolve() if options.baseline else None
        for label, args in commands.items():
            if label in GRAPH:
                continue
            times = measure(REPO_ROOT, data_dir, args, options.runs)
            before = measure(baseline, data_dir, args, options.runs) if baseline else None
            print(row(label, times, before), flush=True)
        graph = {label: args for label, args in commands.items() if label in GRAPH}
        if graph:
            time_graph_commands(data_dir, graph, options.runs, baseline)


if __name__ == "__main__":
    main()
