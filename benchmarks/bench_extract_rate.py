"""Prompts per CPU-second on PrimeKG's Alzheimer extract, this checkout against an older one,
in alternating rounds (issue 48 item 1: the renovation's loss, which a synthetic KG hid).

    git worktree add --detach /tmp/old 2b9b19d            # the pre-renovation main
    python benchmarks/bench_extract_rate.py --baseline /tmp/old [--rounds 12] [--n 200]

Each checkout loads the extract (../shared/data/primekg/kg_alzheimer_neighbourhood.csv) with
its own kgcert into a data dir of its own under --work (kept, so a later call with the same
--work skips the load), behind a warm server of its own. Then each round starts one process
per checkout, in alternating order (the first side of each round swaps), which builds the
jobs as `kgcert run` does (`build_jobs`: one prompt graph over the snapshot, a builder per
spec and setting) and times its prompt source (`build(i)`) for i < N of every pair, in CPU
seconds of that process, --repeat times over jobs built afresh (each pair's fastest pass
kept); the prompts' sha256 shows both sides built the same text. Reported per pair: each
side's median rate, and the median, lowest and highest of the rounds' ratios (this /
baseline; above 1 is faster), with the machine's load average.

`--callgrind`: instead of CPU seconds, the instructions each side executes per prompt under
valgrind's callgrind (the same process run with N prompts a pair and with 1, the difference
over the 4 x (N - 1) prompts; PYTHONHASHSEED fixed): a count a loaded machine does not
change, where CPU seconds of the same work vary by tens of percent from round to round. It
counts instructions, not their cost (cache misses and numpy's vector loops weigh differently).

Both sides share the Python environment (the venv): only kgcert differs (PYTHONPATH).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
DATA = next((up / "shared" / "data" for up in HERE.parents if (up / "shared" / "data").is_dir()),
            HERE.parent / "shared" / "data")
EXTRACT = Path("primekg") / "kg_alzheimer_neighbourhood.csv"
KG = "alz"
SPECS = "primekg.dual_indication,primekg.drug_contraindication"
SETTINGS = ("vanilla", "distractor")


def measure(n: int, specs: str, repeat: int, digest: bool = True,
            settings: str = ",".join(SETTINGS)) -> dict[str, Any]:
    """This process's kgcert: the run's jobs, then N prompts of each, timed one pair at a time;
    `repeat` times, each over jobs built afresh (a new prompt graph over a snapshot read
    again), each pair's fastest kept: a loaded machine's preemptions only slow a pass."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_common import moved, pace_as_the_commands_do, run_settings

    import kgcert
    from kgcert.run.jobs import build_jobs
    from kgcert.store import connect

    store_target = moved("StoreTarget", "kgcert.util.locations", "kgcert.config")
    data_dir = moved("data_dir", "kgcert.util.locations", "kgcert.config")
    pace_as_the_commands_do()
    folder = os.environ["KGCERT_DATA_DIR"]
    store = connect(store_target.resolve(None, folder)).open(KG)
    cache = data_dir(folder) / "cache" / "specs"
    config = run_settings(kg=KG, specs=tuple(specs.split(",")), models=("oracle",),
                          settings=tuple(settings.split(",")), n=n, cache=False)
    found: dict[str, Any] = {"kgcert": str(Path(kgcert.__file__).resolve().parent),
                             "pairs": {}}
    for _ in range(repeat):
        jobs = build_jobs(store, config, [], cache)
        for job in jobs:
            built = []
            start = time.process_time()
            for index in range(n):
                built.append(job.prompts(index))
            cpu = time.process_time() - start
            texts = hashlib.sha256()
            for prompt in built if digest else ():  # callgrind: no hashing counted
                texts.update(prompt.text.encode("utf-8"))
            key = f"{job.spec}/{job.setting}"
            best = found["pairs"].get(key)
            if best is None or cpu < best["cpu_s"]:
                found["pairs"][key] = {
                    "per_cpu_s": n / cpu, "cpu_s": cpu, "sha256": texts.hexdigest()[:16],
                    "chars": sum(len(prompt.text) for prompt in built)}
    return found


def _env(checkout: Path, folder: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(checkout), "KGCERT_DATA_DIR": str(folder),
            "OMP_NUM_THREADS": "1"}


def _kgcert(checkout: Path, folder: Path, args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "kgcert", *args], env=_env(checkout, folder),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: kgcert {' '.join(args)}: "
                         f"{(done.stderr or done.stdout).strip()[-1500:]}")


def _prepare(checkout: Path, folder: Path, data: Path) -> None:
    """The extract loaded into `folder` by `checkout`'s kgcert (once), its server started."""
    if not (folder / "loaded").exists():
        folder.mkdir(parents=True, exist_ok=True)
        _kgcert(checkout, folder, ["load", "primekg", str(data / EXTRACT), "--kg", KG])
        (folder / "loaded").write_text("ok\n")
    _kgcert(checkout, folder, ["server", "start"])


def _measure_with(checkout: Path, folder: Path, args: argparse.Namespace) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--measure", "--n", str(args.n),
                           "--repeat", str(args.repeat), "--specs", args.specs,
                           "--settings", args.settings],
                          env=_env(checkout, folder), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip()[-2000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(found["kgcert"]).is_relative_to(checkout):
        raise SystemExit(f"{checkout}: the process imported kgcert from {found['kgcert']}")
    return found


def _instructions(checkout: Path, folder: Path, n: int, specs: str, settings: str,
                  keep: Path | None = None) -> int:
    """Instructions callgrind counts in a measuring process of `n` prompts a pair; its
    callgrind file copied to `keep` when given (for callgrind_annotate)."""
    with tempfile.TemporaryDirectory(prefix="kgcert-callgrind-") as work:
        out = Path(work) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
             __file__, "--measure", "--no-digest", "--n", str(n), "--repeat", "1", "--specs",
             specs, "--settings", settings],
            env={**_env(checkout, folder), "PYTHONHASHSEED": "0"}, capture_output=True,
            text=True)
        if done.returncode != 0:
            raise SystemExit(f"{checkout}: callgrind: {done.stderr.strip()[-1500:]}")
        if keep is not None:
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out, keep)
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        return int(totals[0].split()[1])


def callgrind(checkouts: dict[str, Path], folders: dict[str, Path],
              args: argparse.Namespace) -> dict[str, float]:
    """Instructions per prompt of each side: N prompts a pair less 1, over the difference."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--callgrind needs valgrind on the PATH")
    pairs = len(args.specs.split(",")) * len(args.settings.split(","))
    found = {}
    for side, checkout in checkouts.items():
        # Once without counting: a fresh data dir's first process reads the snapshot and the
        # specs' tables from the server and stores them, which no later run repeats.
        _measure_with(checkout, folders[side], argparse.Namespace(**{**vars(args), "n": 1,
                                                                      "repeat": 1}))
        keep = args.keep_callgrind
        many = _instructions(checkout, folders[side], args.n, args.specs, args.settings,
                             keep and keep / f"{side}-n{args.n}.callgrind")
        one = _instructions(checkout, folders[side], 1, args.specs, args.settings,
                            keep and keep / f"{side}-n1.callgrind")
        found[side] = (many - one) / (pairs * (args.n - 1))
        print(f"{side}: {found[side] / 1e6:.3f}M instructions per prompt", flush=True)
    return found


def compare(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Per pair: each side's median rate and the rounds' ratios (this / baseline)."""
    summary: dict[str, Any] = {}
    for pair in rounds[0]["this"]["pairs"]:
        ratios = [r["this"]["pairs"][pair]["per_cpu_s"] / r["baseline"]["pairs"][pair]["per_cpu_s"]
                  for r in rounds]
        same = all(r["this"]["pairs"][pair]["sha256"] == r["baseline"]["pairs"][pair]["sha256"]
                   for r in rounds)
        summary[pair] = {
            "this_per_cpu_s": statistics.median(r["this"]["pairs"][pair]["per_cpu_s"]
                                                for r in rounds),
            "baseline_per_cpu_s": statistics.median(r["baseline"]["pairs"][pair]["per_cpu_s"]
                                                    for r in rounds),
            "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "same_prompts": same}
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="the older checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--n", type=int, default=200, help="prompts per spec and setting")
    parser.add_argument("--repeat", type=int, default=3,
                        help="passes per process over fresh jobs, each pair's fastest kept")
    parser.add_argument("--specs", default=SPECS, help="comma-separated relation spec names")
    parser.add_argument("--settings", default=",".join(SETTINGS),
                        help="comma-separated settings (a spec's builders of one run share "
                             "answer sets across settings, so one alone can cost more)")
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    parser.add_argument("--work", type=Path, default=None,
                        help="where each side's data dir lives (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--callgrind", action="store_true",
                        help="instructions per prompt under valgrind, not CPU seconds")
    parser.add_argument("--keep-callgrind", type=Path, default=None, metavar="DIR",
                        help="with --callgrind: keep each side's callgrind files in DIR "
                             "(SIDE-nN.callgrind, for callgrind_annotate)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-digest", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if min(args.n, args.rounds, args.repeat) < 1:
        raise SystemExit("--n, --rounds and --repeat must be at least 1")
    if args.measure:
        print(json.dumps(measure(args.n, args.specs, args.repeat, not args.no_digest,
                                 args.settings)))
        return
    if args.baseline is None or not (args.baseline / "kgcert").is_dir():
        raise SystemExit("--baseline: a checkout of kgcert (a folder with kgcert/ in it)")
    if not (args.data / EXTRACT).is_file():
        raise SystemExit(f"no {EXTRACT} under {args.data} (--data)")
    work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-bench-extract-"))
    checkouts = {"this": HERE, "baseline": args.baseline.resolve()}
    folders = {side: (work / side).resolve() for side in checkouts}
    for side, checkout in checkouts.items():
        _prepare(checkout, folders[side], args.data)
    rounds: list[dict[str, dict[str, Any]]] = []
    try:
        if args.callgrind:
            if args.n < 2:
                raise SystemExit("--callgrind needs --n of at least 2")
            counts = callgrind(checkouts, folders, args)
            print(f"== instructions per prompt, this / baseline: "
                  f"{counts['this'] / counts['baseline']:.3f} (below 1: fewer)")
            if args.out is not None:
                args.out.write_text(json.dumps({"instructions_per_prompt": counts}) + "\n",
                                    encoding="utf-8")
            return
        for round_ in range(args.rounds):
            order = list(checkouts) if round_ % 2 == 0 else list(reversed(checkouts))
            found = {side: _measure_with(checkouts[side], folders[side], args) for side in order}
            rounds.append(found)
            print(f"round {round_ + 1}: " + ", ".join(
                f"{pair} {found['this']['pairs'][pair]['per_cpu_s'] / row['per_cpu_s']:.2f}x"
                for pair, row in found["baseline"]["pairs"].items()), flush=True)
    finally:
        for side, checkout in checkouts.items():
            _kgcert(checkout, folders[side], ["server", "stop"])
    summary = compare(rounds)
    load = os.getloadavg()
    print(f"== {args.rounds} rounds of {args.n} prompts per pair, load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; this {HERE}, baseline {args.baseline}")
    for pair, row in summary.items():
        print(f"{pair:44s} this {row['this_per_cpu_s']:7.0f}/CPU-s, baseline "
              f"{row['baseline_per_cpu_s']:7.0f}/CPU-s: {row['ratio_median']:.2f}x "
              f"(rounds {row['ratio_min']:.2f}-{row['ratio_max']:.2f})"
              f"{'' if row['same_prompts'] else ', PROMPTS DIFFER'}")
    if args.out is not None:
        args.out.write_text(json.dumps({"summary": summary, "rounds": rounds,
                                        "load": load}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
