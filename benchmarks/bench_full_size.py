"""Issue 48 item 2's full-size figures from one command (run on demand).

    python benchmarks/bench_full_size.py                 # full size: mind the machine's memory
    python benchmarks/bench_full_size.py --scale 0.25    # a quarter of each KG
    python benchmarks/bench_full_size.py --scale 0.002 --run-n 5 --pivot-n 5   # tiny (the test)
    python benchmarks/bench_full_size.py --work W --loaded   # the run loop again, W's PrimeKG

Synthesises the PrimeKG (`kgcert synth --scale S`) and Wikidata5m (`--layout wikidata5m`) into
a work folder, loads both with `kgcert --no-server load` into its data dir, and prints each
figure beside its target:

- PrimeKG, the first `kgcert --no-server specs count SPEC` after the load (with only what the
  load stored in the data dir's cache): its CPU seconds and peak RSS, and the same count again
  (what it left on disk reused);
- PrimeKG, the run loop: `Runner.run` of every shipped PrimeKG spec x vanilla, distractor x
  `--run-n` with bernoulli:0.7 and oracle, CPU-ms per prompt after preparation less the models'
  own (benchmarks/bench_scale.py's bench_run, in a process of its own);
- Wikidata5m, `kgcert specs generate` (50 pivots), then the process that runs the pivot specs
  (`kgcert run` x vanilla, distractor x `--pivot-n`, bernoulli:0.7, in a process of its own):
  its peak RSS, and its peak when preparation ended (the jobs built: snapshot read, samplers
  prepared); the `kgcert load` process's peak beside it.

`--loaded` measures the PrimeKG run loop alone over the KG an earlier call with the same
`--work` loaded (the load and the counts take most of an hour at full size; a change to the
loop is measured again in minutes).

Every kgcert step runs in a child process, measured by wait4 (CPU user + system, peak RSS of
that process alone); `--no-server` runs the embedded server (the JVM) inside each command, so
its CPU and memory count in that command's figures, as they do in a `kgcert --no-server`
user's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# Issue 48 item 2's targets.
RUN_LOOP_CPU_MS = 1.2
FIRST_COUNT_CPU_S = 30.0
FIRST_COUNT_PEAK_MB = 1536.0
PIVOT_RUN_PEAK_MB = 4096.0
PRIMEKG, WIKIDATA5M = "primekg", "wikidata5m"


def child_figures(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Runs `command` and returns its wall seconds, CPU seconds (user + system) and peak RSS
    (MB), that process's alone (wait4); a command that fails stops the benchmark."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "peak_rss_mb": usage.ru_maxrss / 1024}


def kgcert(data: Path, *words: str) -> list[str]:
    return [sys.executable, "-m", "kgcert", "--no-server", "--data-dir", str(data), *words]


def verdict(value: float, target: float) -> str:
    return f"target <= {target:,.1f}: {'meets' if value <= target else 'MISSES'}"


def _run_loop_child(args: argparse.Namespace) -> None:
    """In a process of its own: bench_scale's bench_run on the loaded PrimeKG."""
    sys.path.insert(0, str(HERE))
    from bench_common import pace_as_the_commands_do, start_server
    from bench_scale import bench_run

    pace_as_the_commands_do()
    server = start_server("embedded", args.work)
    try:
        row = bench_run(server.open(PRIMEKG), PRIMEKG, args.work / "data" / "cache" / "specs",
                        args.run_n)
    finally:
        server.close()
    args.child_out.write_text(json.dumps(row), encoding="utf-8")


def _refused_child(args: argparse.Namespace) -> None:
    """In a process of its own (not measured): the pivot specs whose distractor setting
    `kgcert run` refuses, found as the command finds them."""
    sys.path.insert(0, str(HERE))
    from bench_common import start_server
    from scale_entity_run import without_distractors

    spec_dir = args.work / "pivots"
    names = sorted(path.stem for path in spec_dir.glob("*.yaml"))
    server = start_server("embedded", args.work)
    try:
        refused = without_distractors(server.open(WIKIDATA5M), args.work, WIKIDATA5M, spec_dir,
                                      names, args.pivot_n, seed=1)
    finally:
        server.close()
    args.child_out.write_text(json.dumps(refused), encoding="utf-8")


def resident_parts() -> dict[str, float]:
    """This process's resident memory now (MB): anonymous (Python's heap, the JVM's) and
    file-backed (mapped files' pages read), from /proc/self/status; {} where there is none."""
    parts: dict[str, float] = {}
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return parts
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile"):
            parts[key] = int(value.split()[0]) / 1024
    return parts


def _pivot_run_child(args: argparse.Namespace) -> None:
    """In a process of its own: `kgcert run` of the pivot specs, its peak RSS overall and
    when its jobs were built (preparation ended)."""
    sys.path.insert(0, str(HERE))
    from scale_entity_run import SETTINGS, _run, _summed, _wrapped

    import kgcert.run.jobs as jobs_module

    prepared_peak = [0.0]
    prepared_parts: dict[str, float] = {}

    def peak_after(build: Any) -> Any:
        def call(*words: Any, **options: Any) -> Any:
            jobs = build(*words, **options)
            prepared_peak[0] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            prepared_parts.update(resident_parts())
            return jobs
        return call

    os.environ["KGCERT_NO_SERVER"] = "1"  # the command's own embedded server, as measured
    spec_dir = args.work / "pivots"
    names = sorted(path.stem for path in spec_dir.glob("*.yaml"))
    refused = json.loads((args.work / "refused.json").read_text(encoding="utf-8"))
    both = [name for name in names if name not in refused]
    with _wrapped(jobs_module, "build_jobs", peak_after):
        parts = [_run(args.work, WIKIDATA5M, spec_dir, both, SETTINGS, args.pivot_n, seed=1)]
        if refused:  # a second command in the same process: its peak is the larger
            parts.append(_run(args.work, WIKIDATA5M, spec_dir, refused, ("vanilla",),
                              args.pivot_n, seed=1))
    row = _summed(parts)
    row.update(specs=len(names), without_distractors=refused,
               prompts_sha256=[part["prompts_sha256"] for part in parts],  # to compare
               prepared_peak_rss_mb=prepared_peak[0], prepared_resident_mb=prepared_parts,
               end_resident_mb=resident_parts(),
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    args.child_out.write_text(json.dumps(row), encoding="utf-8")


def _child(mode: str, args: argparse.Namespace) -> Any:
    """This script in `mode`, in a process of its own: what it wrote, and (a dict) the
    figures of its process."""
    out = args.work / f"{mode}.json"  # refused.json: read by the pivot-run child
    command = [sys.executable, __file__, "--child", mode, "--work", str(args.work),
               "--run-n", str(args.run_n), "--pivot-n", str(args.pivot_n),
               "--child-out", str(out)]
    process = child_figures(command)
    written = json.loads(out.read_text(encoding="utf-8"))
    return {**written, "process": process} if isinstance(written, dict) else written


def once(args: argparse.Namespace, step: str, command: list[str]) -> dict[str, Any]:
    """`command`'s figures; with --reuse, a step that finished in this work folder before is
    not run again and its recorded figures come back (synthesise and load once, measure many
    times)."""
    record = args.work / f"done-{step}.json"
    if args.reuse and record.exists():
        return dict(json.loads(record.read_text(encoding="utf-8")), reused=True)
    figures = child_figures(command)
    record.write_text(json.dumps(figures), encoding="utf-8")
    return figures


def check_pivot_n(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A work folder's pivot run is measured again only at its first --pivot-n: kgcert's
    record of looks (in the data dir) refuses the same prompts at another n as an
    undeclared extension, so that is said before anything runs."""
    record = args.work / "pivot-n.json"
    if args.reuse and record.exists():
        first = json.loads(record.read_text(encoding="utf-8"))
        if first != args.pivot_n:
            parser.error(f"--reuse: the pivot run in {args.work} was measured at --pivot-n "
                         f"{first}, and kgcert refuses the same prompts at another n (its "
                         f"record of looks); give --pivot-n {first} or a new --work")
    record.write_text(json.dumps(args.pivot_n), encoding="utf-8")


def bench_run_loop(args: argparse.Namespace, results: dict[str, Any]) -> None:
    run = _child("run-loop", args)
    per_prompt = run["overhead_cpu_ms_per_prompt"]
    print(f"run loop: {run['prompts']:,} prompts, {per_prompt:.2f} CPU-ms per prompt after "
          f"preparation ({verdict(per_prompt, RUN_LOOP_CPU_MS)}), "
          f"{run['overhead_ms_per_prompt']:.2f} ms wall", flush=True)
    results.setdefault(PRIMEKG, {})["run_loop"] = run


def bench_primekg(args: argparse.Namespace, results: dict[str, Any]) -> None:
    data, source = args.work / "data", args.work / "primekg"
    synth = once(args, "primekg-synth", [sys.executable, "-m", "kgcert", "synth", "--out",
                                         str(source), "--scale", str(args.scale)])
    load = once(args, "primekg-load", kgcert(data, "load", "primekg", str(source / "kg.csv"),
                                             "--kg", PRIMEKG))
    print(f"PrimeKG scale {args.scale}: synth {synth['wall_s']:.0f} s, load {load['wall_s']:.0f} s "
          f"({load['cpu_s']:.0f} CPU-s, peak {load['peak_rss_mb']:,.0f} MB)", flush=True)
    count = kgcert(data, "specs", "count", args.count_spec, "--kg", PRIMEKG)
    first = child_figures(count)
    later = child_figures(count)
    print(f"first `specs count {args.count_spec}`: {first['cpu_s']:.1f} CPU-s "
          f"({verdict(first['cpu_s'], FIRST_COUNT_CPU_S)}), peak {first['peak_rss_mb']:,.0f} MB "
          f"({verdict(first['peak_rss_mb'], FIRST_COUNT_PEAK_MB)}), {first['wall_s']:.1f} s",
          flush=True)
    print(f"later count: {later['cpu_s']:.1f} CPU-s, peak {later['peak_rss_mb']:,.0f} MB, "
          f"{later['wall_s']:.1f} s", flush=True)
    results[PRIMEKG] = {"synth": synth, "load": load, "first_count": first,
                        "later_count": later}
    bench_run_loop(args, results)


def _parts(resident: dict[str, float]) -> str:
    return ", ".join(f"{key} {value:,.0f} MB" for key, value in resident.items()) or "-"


def bench_wikidata5m(args: argparse.Namespace, results: dict[str, Any]) -> None:
    data, source = args.work / "data", args.work / "wikidata5m"
    synth = once(args, "wikidata5m-synth", [sys.executable, "-m", "kgcert", "synth", "--layout",
                                            "wikidata5m", "--out", str(source), "--scale",
                                            str(args.scale)])
    load = once(args, "wikidata5m-load", kgcert(data, "load", "wikidata5m", str(source),
                                                "--kg", WIKIDATA5M))
    print(f"Wikidata5m scale {args.scale}: synth {synth['wall_s']:.0f} s, load "
          f"{load['wall_s']:.0f} s ({load['cpu_s']:.0f} CPU-s, peak {load['peak_rss_mb']:,.0f} "
          "MB)", flush=True)
    generate = once(args, "wikidata5m-generate",
                    kgcert(data, "specs", "generate", "--kg", WIKIDATA5M, "--out",
                           str(args.work / "pivots"), "--count", str(args.pivots)))
    print(f"specs generate ({args.pivots} pivots): {generate['wall_s']:.0f} s", flush=True)
    _child("refused", args)
    run = _child("pivot-run", args)
    peak = run["process"]["peak_rss_mb"]
    print(f"pivot run ({run['specs']} specs x vanilla, distractor x {args.pivot_n}; "
          f"{len(run['without_distractors'])} vanilla only): peak "
          f"{peak:,.0f} MB ({verdict(peak, PIVOT_RUN_PEAK_MB)}), "
          f"{run['prepared_peak_rss_mb']:,.0f} MB when its preparation ended "
          f"({_parts(run['prepared_resident_mb'])}; at its end {_parts(run['end_resident_mb'])}"
          "); the load's peak "
          f"{load['peak_rss_mb']:,.0f} MB; {run['overhead_cpu_ms_per_prompt']:.2f} CPU-ms per "
          "prompt after preparation", flush=True)
    results[WIKIDATA5M] = {"synth": synth, "load": load, "generate": generate,
                           "pivot_run": run}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the full PrimeKG and Wikidata5m (1.0: full size)")
    parser.add_argument("--run-n", type=int, default=250,
                        help="prompts per PrimeKG spec and setting in the run loop")
    parser.add_argument("--pivot-n", type=int, default=250,
                        help="prompts per pivot spec and setting in the Wikidata5m run")
    parser.add_argument("--pivots", type=int, default=50)
    parser.add_argument("--count-spec", default="primekg.dual_indication")
    parser.add_argument("--only", choices=[PRIMEKG, WIKIDATA5M], default=None)
    parser.add_argument("--work", type=Path, default=None,
                        help="working folder (default: a new temporary one)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --work: steps that finished there before (synthesis, load, "
                        "specs generate) are not run again; their recorded figures are shown")
    parser.add_argument("--out", type=Path, default=None, help="the figures as JSON")
    parser.add_argument("--loaded", action="store_true",
                        help="only the PrimeKG run loop, over the KG an earlier call with the "
                             "same --work loaded")
    parser.add_argument("--child", choices=["run-loop", "refused", "pivot-run"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "run-loop":
        return _run_loop_child(args)
    if args.child == "pivot-run":
        return _pivot_run_child(args)
    if args.child == "refused":
        return _refused_child(args)
    if not 0 < args.scale <= 1.0:
        parser.error("--scale takes a fraction in (0, 1]")
    if args.reuse and args.work is None:
        parser.error("--reuse needs --work (the folder of an earlier run)")
    if args.loaded:
        if args.work is None or not (args.work / "data" / "cache").is_dir():
            parser.error("--loaded takes the --work folder of an earlier call that loaded "
                         "PrimeKG")
        if args.only == WIKIDATA5M:
            parser.error("--loaded measures the PrimeKG run loop alone")
        results: dict[str, Any] = {"loaded": str(args.work)}
        bench_run_loop(args, results)
        if args.out:
            args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
            print(f"wrote {args.out}")
        return
    args.work = args.work or Path(tempfile.mkdtemp(prefix="kgcert-bench-full-"))
    args.work.mkdir(parents=True, exist_ok=True)
    if args.only != PRIMEKG:
        check_pivot_n(parser, args)
    results = {"scale": args.scale}
    if args.only != WIKIDATA5M:
        bench_primekg(args, results)
    if args.only != PRIMEKG:
        bench_wikidata5m(args, results)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
