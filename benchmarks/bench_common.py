"""What the benchmark scripts share: the shipped PrimeKG specs, the prompt-rate and call timers, the
graph server and prompt graph of a benchmark KG, the commands' garbage-collector pace.

These run with the kgcert of this checkout or, for a `--baseline`, of an older one whose
modules had other homes (before kgcert/util/, kgcert/loading/, kgcert/synth/), so moved names
are found with `moved`, newest home first.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SETTINGS = ("vanilla", "distractor")


def moved(attr: str, *modules: str) -> Any:
    """`attr` from the first of `modules` that exists in the kgcert imported."""
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if hasattr(module, attr):
            return getattr(module, attr)
    raise ImportError(f"{attr} is in none of {', '.join(modules)}")


def run_settings(**keys: Any) -> Any:
    """A run's settings as the imported kgcert's layers take them: a RunSpec from the flat
    run-file keys, or, in a checkout older than RunSpec's layers, the flat RunConfig."""
    try:
        from kgcert.rundir.run_spec import RunSpec
    except ModuleNotFoundError:
        RunSpec = None  # noqa: N806
    if RunSpec is not None and hasattr(RunSpec, "of"):
        return RunSpec.of(**keys)
    return moved("RunConfig", "kgcert.run.config")(**keys)


def prompt_builder(store: Any, spec: Any, sampler: Any, graph: Any, **knobs: Any) -> Any:
    """The imported kgcert's PromptBuilder with these prompt knobs: as PromptSettings where
    it has them, else (an older checkout) as keywords."""
    from kgcert.prompts import PromptBuilder

    try:
        from kgcert.prompts import PromptSettings
    except ImportError:
        return PromptBuilder(store, spec, sampler, graph=graph, **knobs)
    return PromptBuilder(store, spec, sampler, graph=graph, settings=PromptSettings(**knobs))


def timed(total: list[float], function: Callable[..., Any]) -> Callable[..., Any]:
    """`function`, adding its wall seconds to total[0] and its CPU seconds (this process's,
    the embedded server's threads included) to total[1]."""
    def call(*args: Any, **kwargs: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += time.perf_counter() - start
            total[1] += time.process_time() - cpu
    return call


def data_folder(name: str) -> Path:
    return moved("data_folder", "kgcert.util.resources", "kgcert.resources")(name)


def is_suite_file(path: Path) -> bool:
    try:
        found = moved("is_suite_file", "kgcert.specs.folders", "kgcert.spec_listing")
    except ImportError:  # a checkout from before suites: no spec file is one
        return False
    return bool(found(path))


def snapshot_graph(store: Any, cache: Path) -> tuple[Any, Any]:
    """The KG's snapshot and a prompt graph over it, with the kgcert this process imports:
    this checkout's, or a --baseline's from before kgcert.graphview (the old names)."""
    try:
        from kgcert.graphview import open_graph, pull
    except ImportError:
        from kgcert.prompts.snapshot import pull  # type: ignore[import-not-found,no-redef]

        from kgcert.prompts import PromptGraph  # type: ignore[attr-defined]

        snapshot = pull(store, cache)
        return snapshot, lambda: PromptGraph(store, snapshot=snapshot)
    snapshot = pull(store, cache)
    return snapshot, lambda: open_graph(store, snapshot)


def start_server(kind: str, work: Path) -> Any:
    """The benchmark's graph server: embedded in this process (its CPU counts), or the Neo4j
    of KGCERT_NEO4J_URI."""
    if kind == "embedded":
        from kgcert.store.embedded import start_embedded

        return start_embedded(work / "data")
    from kgcert.store import connect

    store_target = moved("StoreTarget", "kgcert.util.locations", "kgcert.config")
    if not os.environ.get("KGCERT_NEO4J_URI"):
        raise SystemExit("--server neo4j needs KGCERT_NEO4J_URI (and its credentials)")
    return connect(store_target.resolve(os.environ["KGCERT_NEO4J_URI"], str(work / "data")))


def per_cpu_s(builder: Any, indices: range) -> float:
    cpu = time.process_time()  # the embedded server runs in this process: its CPU counts too
    for index in indices:
        builder.build(index)
    return len(indices) / (time.process_time() - cpu)


def prompt_specs(only: str | None = None) -> list[Path]:
    """The shipped PrimeKG specs, or those of `only` (names with or without "primekg.",
    comma-separated)."""
    paths = sorted(p for p in data_folder("specs").glob("primekg/*.yaml")
                   if not is_suite_file(p))  # table1.yaml is a suite
    if only is None:
        return paths
    wanted = {name.strip().removeprefix("primekg.") for name in only.split(",") if name.strip()}
    unknown = wanted - {path.stem for path in paths}
    if unknown:
        raise SystemExit(f"--specs: no shipped PrimeKG spec {', '.join(sorted(unknown))}")
    return [path for path in paths if path.stem in wanted]


def pace_as_the_commands_do() -> None:
    """The collector's pace of `kgcert run` and `kgcert prompts` (a checkout from before
    kgcert's heap module ran at Python's default pace)."""
    try:
        pace = moved("pace_for_prompts", "kgcert.cli.heap", "kgcert.heap")
    except ImportError:
        return
    pace()
