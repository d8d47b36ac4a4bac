"""`kgcert prompts --json` against the run's prompt path, first prompt against warm (issue 34 §3).

    python benchmarks/bench_prompt_path.py --kg alz                       # KGCERT_DATA_DIR's KG
    python benchmarks/bench_prompt_path.py --kg alz --baseline ../main    # and another checkout
    python benchmarks/bench_prompt_path.py --data DIR --kg full --n 250 --specs primekg.indication

For each spec and setting (vanilla, distractor), in one process per checkout (the checkout's
kgcert on PYTHONPATH, the KG's server reached as the commands reach it: the warm server of the
data dir, or KGCERT_NEO4J_URI):
- `prompts`: the `kgcert prompts --json --n N` command itself, invoked in the process (click),
  its wall and CPU time (opening the KG and the builder included) per prompt, and each `build`
  call's CPU time: the first prompt and the median of the others (json writing aside);
- `run`: prompts built as `kgcert run` builds them (one snapshot graph for the process, a
  builder per spec and setting, as run/jobs.py does), the same two figures and the builder's
  opening (preparation).
The first prompt of the process is the first spec's vanilla one. First and warm prompts are
CPU milliseconds of this process (a busy machine's wall clock says more about its neighbours;
the per-entity reads' server work is in the server's process, so their wall time per prompt
is the figure to compare); compare checkouts measured in the same call (`--rounds K`
alternates them and keeps each figure's best).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SPECS = "primekg.dual_indication,primekg.contraindication_indication,primekg.exposure_drug"
SETTINGS = ("vanilla", "distractor")


def _timed_builds(record: list[float]) -> Any:
    """Wraps PromptBuilder.build to append each call's CPU milliseconds to `record`."""
    from kgcert.prompts import PromptBuilder

    original = PromptBuilder.build

    def build(self: Any, index: int) -> Any:
        start = time.process_time()
        try:
            return original(self, index)
        finally:
            record.append(1000 * (time.process_time() - start))

    PromptBuilder.build = build  # type: ignore[method-assign]
    return original


def _figures(builds: list[float]) -> dict[str, float]:
    return {"first_ms": builds[0], "warm_ms": statistics.median(builds[1:]),
            "warm_mean_ms": statistics.fmean(builds[1:])}


def _command(kg: str, spec: str, setting: str, count: int, seed: int) -> dict[str, float]:
    from click.testing import CliRunner

    from kgcert.cli.common import Context
    from kgcert.cli.prompts import prompts_command

    builds: list[float] = []
    original = _timed_builds(builds)
    ctx = Context(db=None, data_dir=os.environ.get("KGCERT_DATA_DIR"))
    start, cpu = time.perf_counter(), time.process_time()
    try:
        done = CliRunner().invoke(prompts_command, ["--kg", kg, "--spec", spec, "--n", str(count),
                                                    "--seed", str(seed), "--setting", setting,
                                                    "--json"], obj=ctx)
    finally:
        from kgcert.prompts import PromptBuilder

        PromptBuilder.build = original  # type: ignore[method-assign]
    wall = 1000 * (time.perf_counter() - start)
    cpu = 1000 * (time.process_time() - cpu)
    if done.exit_code != 0:
        raise SystemExit(f"kgcert prompts failed: {done.output.strip()} {done.exception!r}")
    return {"per_prompt_ms": wall / count, "per_prompt_cpu_ms": cpu / count, "command_ms": wall,
            **_figures(builds)}


def _run_path(store: Any, graph: Any, cache: Path, spec_name: str, setting: str, count: int,
              seed: int) -> dict[str, float]:
    from kgcert.prompts import PromptBuilder, PromptSettings
    from kgcert.specs import EntitySpec, RelationSpec, find_spec, prepare_sampler

    start = time.perf_counter()
    spec = find_spec(spec_name, ()).spec
    if not isinstance(spec, RelationSpec | EntitySpec):
        raise SystemExit(f"{spec_name}: a task spec (this measures multiple-choice prompts)")
    sampler = prepare_sampler(spec, store, cache)
    builder = PromptBuilder(store, spec, sampler, seed=seed, graph=graph, cache_dir=cache,
                            settings=PromptSettings(setting=setting))  # type: ignore[arg-type]
    opened = 1000 * (time.perf_counter() - start)
    builds, walls = [], []
    for index in range(count):
        start, cpu = time.perf_counter(), time.process_time()
        json.dumps(builder.build(index).as_dict(), ensure_ascii=False)  # as the run writes it
        builds.append(1000 * (time.process_time() - cpu))
        walls.append(1000 * (time.perf_counter() - start))
    return {"open_ms": opened, "per_prompt_ms": statistics.fmean(walls),
            "per_prompt_cpu_ms": statistics.fmean(builds), **_figures(builds)}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """This process's kgcert: the command first (its first prompt is the process's), then
    the run path in the same process."""
    from bench_common import moved  # this checkout's homes, else an older --baseline's

    from kgcert.store import connect

    StoreTarget = moved("StoreTarget", "kgcert.util.locations", "kgcert.config")
    data_dir = moved("data_dir", "kgcert.util.locations", "kgcert.config")
    pace_for_prompts = moved("pace_for_prompts", "kgcert.cli.heap", "kgcert.heap")

    pace_for_prompts()
    found: dict[str, Any] = {}
    for spec in args.specs.split(","):
        for setting in SETTINGS:
            found[f"prompts/{spec}/{setting}"] = _command(args.kg, spec, setting, args.n,
                                                          args.seed)
    store = connect(StoreTarget.resolve(None, os.environ.get("KGCERT_DATA_DIR"))).open(args.kg)
    cache = data_dir(os.environ.get("KGCERT_DATA_DIR")) / "cache" / "specs"
    start = time.perf_counter()
    import kgcert.graphview as graphview

    if hasattr(graphview, "prompt_graph"):
        graph = graphview.prompt_graph(store, cache)
    else:  # a checkout from before it: the run's own two calls
        graph = graphview.open_graph(store, graphview.pull(store, cache))
    found["run/graph_open_ms"] = 1000 * (time.perf_counter() - start)
    for spec in args.specs.split(","):
        for setting in SETTINGS:
            found[f"run/{spec}/{setting}"] = _run_path(store, graph, cache, spec, setting,
                                                       args.n, args.seed)
    return found


def _measure_with(checkout: Path, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve()), "OMP_NUM_THREADS": "1"}
    if args.data is not None:
        env["KGCERT_DATA_DIR"] = str(args.data.resolve())
    done = subprocess.run([sys.executable, __file__, "--measure", "--kg", args.kg, "--n",
                           str(args.n), "--seed", str(args.seed), "--specs", args.specs],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _best(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    best: dict[str, Any] = {}
    for key, value in rounds[0].items():
        if isinstance(value, dict):
            best[key] = {k: min(r[key][k] for r in rounds) for k in value}
        else:
            best[key] = min(r[key] for r in rounds)
    return best


def _print(name: str, found: dict[str, Any]) -> None:
    print(f"== {name}: run graph opened in {found['run/graph_open_ms']:.0f} ms")
    for key, row in found.items():
        if not isinstance(row, dict):
            continue
        ratio = row["first_ms"] / row["warm_ms"] if row["warm_ms"] else float("nan")
        opened = f", builder open {row['open_ms']:.0f} ms" if "open_ms" in row else (
            f", command {row['command_ms']:.0f} ms")
        print(f"{key}: {row['per_prompt_ms']:.2f} ms/prompt ({row['per_prompt_cpu_ms']:.2f} "
              f"CPU-ms), build: first {row['first_ms']:.1f}, warm median {row['warm_ms']:.2f} "
              f"CPU-ms (first/warm {ratio:.1f}x){opened}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kg", required=True)
    parser.add_argument("--data", type=Path, default=None, help="data dir (KGCERT_DATA_DIR)")
    parser.add_argument("--n", type=int, default=50, help="prompts per spec and setting")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--specs", default=SPECS, help="comma-separated spec names")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.n < 2:
        raise SystemExit("--n must be at least 2 (a first prompt and a warm one)")
    if args.measure:
        print(json.dumps(measure(args)))
        return
    here = Path(__file__).resolve().parents[1]
    checkouts = {"this": here, **({"baseline": args.baseline} if args.baseline else {})}
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for _ in range(args.rounds):
        for name, checkout in checkouts.items():
            rounds[name].append(_measure_with(checkout, args))
    results = {name: _best(found) for name, found in rounds.items()}
    for name, found in results.items():
        _print(f"{name} ({checkouts[name]})", found)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
