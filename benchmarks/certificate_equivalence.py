"""Are the run files of this tree those of a baseline commit? The same `kgcert run` commands on
both (benchmarks/run_record_cases.py: fixed n, --extendable then extended, a suite with
--weights matches, --until ranked, a resumed run), then every certificate (earlier looks
too), comparison, run.yaml, design.json, certificate_history.json, specs/index.json and
sample record compared field by field.

    python benchmarks/certificate_equivalence.py --baseline 5e25278

The baseline is exported (git archive) to a temporary folder and runs with its own
PYTHONPATH in this virtualenv; each side loads the Alzheimer extract into its own embedded
data dir and starts its own warm server, stopped after its cases. The resumed case's partial
directory is made once (with the baseline) and each side resumes its own copy.

Ignored, as they differ from one run to the next or name the code rather than the numbers:
IGNORED_KEYS at any depth (record_version; created_at and started_at, clock times; libraries,
the versions of the code; latency_s, a sample's response time)
and IGNORED_PATHS (cost.wall_s, cost.gpu_s). Paths into either side's checkout (a certificate's
spec_file) are compared as <checkout>/... . A file that one side has and the other lacks
is a difference. One verdict line per case; exit status 1 if any case differs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from run_record_cases import (
    HERE,
    Case,
    cases,
    env,
    export_commit,
    kgcert,
    killed_part_way,
    load_kg,
    run_case,
)

IGNORED_KEYS = frozenset({"record_version", "created_at", "started_at", "libraries",
                          "latency_s"})
IGNORED_PATHS = frozenset({("cost", "wall_s"), ("cost", "gpu_s")})
COMPARED = ("certificates/*.json", "certificates/earlier/*.json", "comparisons/*.json",
            "comparisons/earlier/*.json", "run.yaml", "design.json", "certificate_history.json",
            "specs/index.json", "samples/**/*.jsonl")


def _read(path: Path, checkout: Path) -> Any:
    # spec_file and the spec index name the spec files where each side's checkout keeps them
    text = path.read_text(encoding="utf-8").replace(str(checkout.resolve()), "<checkout>")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return yaml.safe_load(text) if path.suffix == ".yaml" else json.loads(text)


def differences(mine: Any, theirs: Any, where: tuple[str, ...] = ()) -> Iterator[str]:
    """Each place where the two values differ, as a dotted path, ignored fields skipped."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in sorted(set(mine) | set(theirs), key=str):
            if key in IGNORED_KEYS or (*where, key) in IGNORED_PATHS:
                continue
            if key not in mine or key not in theirs:
                yield ".".join((*where, str(key))) + (" only in baseline" if key in theirs
                                                      else " only in this tree")
            else:
                yield from differences(mine[key], theirs[key], (*where, str(key)))
    elif isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            yield from differences(a, b, (*where, str(index)))
    elif mine != theirs or type(mine) is not type(theirs):
        yield f"{'.'.join(where) or '(whole file)'}: {theirs!r:.80} -> {mine!r:.80}"


def compare_run_dirs(mine: Path, theirs: Path, my_checkout: Path,
                     their_checkout: Path) -> list[str]:
    """Every difference between two run directories' compared files."""
    found = []
    names = sorted({p.relative_to(root).as_posix() for root in (mine, theirs)
                    for pattern in COMPARED for p in root.glob(pattern)})
    for name in names:
        if not (mine / name).is_file() or not (theirs / name).is_file():
            side = "this tree" if (mine / name).is_file() else "baseline"
            found.append(f"{name}: only in {side}")
            continue
        found.extend(f"{name}: {d}" for d in differences(
            _read(mine / name, my_checkout), _read(theirs / name, their_checkout)))
    return found


def run_side(checkout: Path, work: Path, chosen: list[Case], partial: Path) -> float:
    """Load the KG and run every case on one checkout; its wall seconds."""
    start = time.perf_counter()
    data = work / "data"
    loading = env(checkout, data, work / "cache" / "load")
    load_kg(checkout, loading)
    kgcert(checkout, loading, "server", "start")
    try:
        for case in chosen:
            cache = work / "cache" / case.name
            if case.kill_after:
                shutil.copytree(partial / "cache", cache)
            run_case(checkout, env(checkout, data, cache), case, work / "runs" / case.name,
                     partial / "run" if case.kill_after else None)
    finally:
        kgcert(checkout, loading, "server", "stop")
    return time.perf_counter() - start


def make_partial(checkout: Path, work: Path, case: Case) -> Path:
    """The resumed case's run directory killed part-way, with the response cache it left."""
    child = env(checkout, work / "data", work / "cache")
    load_kg(checkout, child)
    kgcert(checkout, child, "server", "start")
    try:
        killed_part_way(checkout, child, case, work / "run")
    finally:
        kgcert(checkout, child, "server", "stop")
    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="A commit of this repository.")
    parser.add_argument("--n", type=int, default=40, help="Samples per certificate.")
    parser.add_argument("--keep", type=Path, default=None,
                        help="Keep the run directories of both sides in this folder.")
    args = parser.parse_args()
    chosen = cases(args.n, 2 * args.n, 250)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="kgcert-equivalence-") as temporary:
        work = args.keep or Path(temporary)
        baseline = export_commit(args.baseline, work / "baseline-tree")
        [resumed] = [case for case in chosen if case.kill_after]
        partial = make_partial(baseline, work / "partial", resumed)
        seconds = {"baseline": run_side(baseline, work / "baseline", chosen, partial),
                   "this tree": run_side(HERE, work / "this-tree", chosen, partial)}
        failed = False
        for case in chosen:
            found = compare_run_dirs(work / "this-tree" / "runs" / case.name,
                                     work / "baseline" / "runs" / case.name, HERE, baseline)
            files = sum(1 for pattern in COMPARED
                        for _ in (work / "this-tree" / "runs" / case.name).glob(pattern))
            print(f"{case.name:11} {'identical' if not found else 'DIFFERENT'} "
                  f"({files} files compared)")
            for line in found[:20]:
                print(f"    {line}")
            failed = failed or bool(found)
    print(f"wall: baseline side {seconds['baseline']:.0f} s, this tree "
          f"{seconds['this tree']:.0f} s, in all {time.perf_counter() - started:.0f} s; "
          f"ignored: {', '.join(sorted(IGNORED_KEYS))} (any depth), "
          f"{', '.join('.'.join(p) for p in sorted(IGNORED_PATHS))}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
