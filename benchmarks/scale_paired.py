"""Prompts/CPU-s of two checkouts measured at the same time, for bench_scale.py (`--paired`).

A machine whose speed drifts by tens of percent within minutes credits whichever checkout ran
in its fast minutes. Here both run together, one core each, and time each spec and setting
behind a barrier, so both see the same minutes; each round swaps their cores, and the ratio
reported is the median of the rounds' ratios. Both sides are this script, each importing the
kgcert of its own checkout. The embedded server is one process's at a time: the baseline
side opens it, reads the snapshot and tables, warms its builders up and closes it, then this
checkout's side does the same; the timed prompts need no server. The prompts' digests are
compared too: whether a change left the prompts as they were.

    python benchmarks/scale_paired.py --side new --sync DIR --core 1 --work W --loaded KG \
        --prompts 200 [--specs NAMES]      # one side; bench_scale.py --paired starts the two
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIDES = ("base", "new")
BATCHES = 3  # timed batches per spec and setting: the best counts


def paired(args: argparse.Namespace) -> dict[str, object]:
    """Both checkouts' prompt rates, `args.rounds` rounds at the same time; per spec and
    setting the best rate of each, and the median and range of the rounds' ratios."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        raise SystemExit("--paired needs two cores, one for each checkout")
    here = Path(__file__).resolve().parents[1]
    checkouts = {"base": args.baseline.resolve(), "new": here}
    rounds: list[dict[str, dict[str, Any]]] = []
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="kgcert-bench-paired-") as folder:
            sync = Path(folder)
            running = {side: _start(side, checkouts[side], cores[(round_ + i) % 2], sync, args)
                       for i, side in enumerate(SIDES)}
            try:
                _wait_all(dict(running))
            finally:  # one failed, or this process was stopped: the other would wait on
                for process in running.values():
                    if process.poll() is None:
                        process.kill()
            rounds.append({side: json.loads((sync / f"{side}.json").read_text(encoding="utf-8"))
                           for side in SIDES})
        for side in SIDES:
            found = Path(str(rounds[-1][side]["kgcert"])).resolve()
            if not found.is_relative_to(checkouts[side]):
                raise SystemExit(f"the {side} side imported kgcert from {found}, not from "
                                 f"{checkouts[side]}")
        print(f"paired round {round_ + 1} of {args.rounds} done", flush=True)
    return _summary(rounds, checkouts["base"])


def _start(side: str, checkout: Path, core: int, sync: Path,
           args: argparse.Namespace) -> subprocess.Popen[bytes]:
    command = [sys.executable, __file__, "--side", side, "--sync", str(sync), "--core",
               str(core), "--work", str(args.work), "--loaded", args.loaded, "--prompts",
               str(args.prompts), "--server", args.server,
               *(["--specs", args.specs] if args.specs is not None else [])]
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(command, env=env)


def _wait_all(running: dict[str, subprocess.Popen[bytes]]) -> None:
    """Both sides to their end, or the first failure."""
    while running:
        for side, process in list(running.items()):
            code = process.poll()
            if code is None:
                continue
            del running[side]
            if code != 0:
                raise SystemExit(f"the {side} side of the paired measurement failed "
                                 f"(exit {code})")
        time.sleep(0.2)


def _summary(rounds: list[dict[str, dict[str, Any]]], baseline: Path) -> dict[str, object]:
    print(f"\nthis checkout against {baseline}, measured at the same time "
          f"({len(rounds)} rounds, one core each)")
    table: dict[str, object] = {}
    for key in rounds[0]["new"]["rates"]:
        base = [float(r["base"]["rates"][key]) for r in rounds]
        new = [float(r["new"]["rates"][key]) for r in rounds]
        ratios = [n / b for b, n in zip(base, new, strict=True)]
        same = all(r["base"]["digests"][key] == r["new"]["digests"][key] for r in rounds)
        table[key] = {"base": max(base), "new": max(new), "ratio": statistics.median(ratios),
                      "ratio_min": min(ratios), "ratio_max": max(ratios), "same_prompts": same}
        print(f"  {key:<48} {max(base):>8,.1f} -> {max(new):>8,.1f} prompts/CPU-s, ratio "
              f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}), "
              f"prompts {'the same' if same else 'DIFFER'}")
    return {"baseline": str(baseline), "rounds": len(rounds), "prompts": table}


# -- one side ---------------------------------------------------------------------------------


def _side(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", choices=SIDES, required=True)
    parser.add_argument("--sync", type=Path, required=True)
    parser.add_argument("--core", type=int, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--loaded", required=True)
    parser.add_argument("--prompts", type=int, required=True)
    parser.add_argument("--server", choices=["embedded", "neo4j"], default="embedded")
    parser.add_argument("--specs", default=None)
    args = parser.parse_args(argv)
    os.sched_setaffinity(0, {args.core})

    from bench_common import (
        SETTINGS,
        pace_as_the_commands_do,
        per_cpu_s,
        prompt_builder,
        prompt_specs,
        snapshot_graph,
        start_server,
    )

    import kgcert
    from kgcert.specs import RelationSpec, load_spec_file, prepare_sampler

    pace_as_the_commands_do()
    other = "new" if args.side == "base" else "base"
    if args.side == "new":  # the server is the baseline side's until it is set up
        _await(args.sync / "base-setup")
    server = start_server(args.server, args.work)
    store = server.open(args.loaded)
    cache = args.work / "bench-cache"
    graph = snapshot_graph(store, cache)[1]()
    count = args.prompts
    builders, digests = {}, {}
    for path in prompt_specs(args.specs):
        spec = load_spec_file(path)
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, store, cache)
        for setting in SETTINGS:
            key = f"{spec.name}/{setting}"
            builders[key] = builder = prompt_builder(store, spec, sampler, graph,
                                                     setting=setting)
            digest = hashlib.sha256()
            for index in range(count):  # warm-up: caches fill
                digest.update(builder.build(index).text.encode("utf-8"))
            digests[key] = digest.hexdigest()
    server.close()
    (args.sync / f"{args.side}-setup").touch()
    _await(args.sync / f"{other}-setup")
    rates = {}
    for step, (key, builder) in enumerate(builders.items()):
        (args.sync / f"{args.side}-{step}").touch()
        _await(args.sync / f"{other}-{step}")
        rates[key] = max(per_cpu_s(builder, range(batch * count, (batch + 1) * count))
                         for batch in range(1, BATCHES + 1))
    result = {"kgcert": kgcert.__file__, "rates": rates, "digests": digests}
    (args.sync / f"{args.side}.json").write_text(json.dumps(result), encoding="utf-8")


def _await(path: Path) -> None:
    while not path.exists():
        time.sleep(0.01)


if __name__ == "__main__":
    _side(sys.argv[1:])
