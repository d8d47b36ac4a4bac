"""Consecutive loads of one KG into one Neo4j server, each timed with its edge-rate timeline
(issue 34 item 4: a full-size PrimeKG load took 202 s in one run and 863 s in the next).

    ../shared/neo4j/with-neo4j.sh python benchmarks/bench_neo4j_load.py --scale 0.1 --loads 3
    ../shared/neo4j/with-neo4j.sh python benchmarks/bench_neo4j_load.py --file DIR/kg.csv \
        --layout primekg --loads 3 --explain
    ../shared/neo4j/with-neo4j.sh python benchmarks/bench_neo4j_load.py --scale 1.0 \
        --layout wikidata5m --loads 1 [--setting unsupported_edges=template]

The KG is read once (`--file`, or synthesised at `--scale` in the PrimeKG or Wikidata5m
layout), then written `--loads` times, each under a new KG name, as `kgcert load` writes it,
beside the earlier ones (`--drop`: each dropped after it is timed, so every load starts on an
empty database of a warm server).

Prints per load: the node and edge phases' wall times, the whole load's, the CPU time of the
server and of this client (on a busy machine the wall time also says how much CPU the other
processes left), the edge rate (rows/s) in `--every`-second steps, so a load that crawls for
minutes and then speeds up shows as such, the slowest relationship types with their rates,
and the peak resident memory of this client and of the server. `--explain` prints the plan
Neo4j chooses for the first edge statement, asked once the nodes are written (what the load's
own first edge batch then runs). `--setting KEY=VALUE` passes a loader setting. `--json PATH`
writes the figures. Needs KGCERT_NEO4J_URI and its credentials (with-neo4j.sh sets them). Mind the
machine's memory at full size (the parsed KG plus the server's heap and page cache).
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading import progress as loadprogress
from kgcert.loading.pipeline import (
    WRITING_EDGES,
    WRITING_NODES,
    ParsedSource,
    parsed_kg_frozen,
    read_source,
    store_source,
)
from kgcert.store.bulk import edge_statement
from kgcert.store.neo4j_server import Neo4jServer


@dataclass
class LoadTimeline:
    """When each phase of one load started, and (seconds since the load began, edges done)."""

    started: float = field(default_factory=time.perf_counter)
    phase_starts: dict[str, float] = field(default_factory=dict)
    edge_points: list[tuple[float, int]] = field(default_factory=list)

    def hear(self, tick: loadprogress.Tick) -> None:
        at = time.perf_counter() - self.started
        self.phase_starts.setdefault(tick.phase, at)
        if tick.phase == WRITING_EDGES:
            self.edge_points.append((at, tick.done))

    def rates(self, every_s: float) -> list[int]:
        """Edge rows/s in consecutive steps of `every_s` from the edge phase's start."""
        if not self.edge_points:
            return []
        start = self.edge_points[0][0]
        rates: list[int] = []
        previous_done, step_end = 0, start + every_s
        for at, _ in self.edge_points:
            while at > step_end:  # close every step this point is past (empty ones too)
                last = max((d for a, d in self.edge_points if a <= step_end), default=0)
                rates.append(round((last - previous_done) / every_s))
                previous_done, step_end = last, step_end + every_s
        end, done = self.edge_points[-1]
        partial = end - (step_end - every_s)
        if partial > 0.5:
            rates.append(round((done - previous_done) / partial))
        return rates


def plan_lines(plan: Any, depth: int = 0) -> list[str]:
    """The operators of an EXPLAIN plan, one per line, children indented."""
    arguments = plan.get("args", {}) if isinstance(plan, dict) else {}
    details = arguments.get("Details", "")
    rows = arguments.get("EstimatedRows")
    line = "  " * depth + plan["operatorType"].split("@")[0]
    if details:
        line += f" {details}"
    if rows is not None:
        line += f" (est. {float(rows):,.0f} rows)"
    lines = [line]
    for child in plan.get("children", []):
        lines += plan_lines(child, depth + 1)
    return lines


def explain_first_edges(server: Neo4jServer, source: ParsedSource, kg: str) -> list[str]:
    """The plan of the load's first edge statement (rel types are written in sorted order)."""
    rel_type, table = sorted(source.data.edges.items())[0]
    part = next(iter(table.parts()))
    keys = sorted({key for found in (part.properties or ()) for key in found})
    store = server.store(kg)
    query = store.scoped(edge_statement(rel_type, keys, by_kg_index=store.shared))
    with server.driver.session(database=server.database) as session:
        summary = session.run("EXPLAIN " + query, rows=[]).consume()
    return plan_lines(summary.plan) if summary.plan else ["(no plan returned)"]


def type_rates(timeline: LoadTimeline, source: ParsedSource) -> list[tuple[str, int, float]]:
    """(rel type, rows, seconds) per relationship type, in the order they were written."""
    found: list[tuple[str, int, float]] = []
    offset = 0
    for rel_type, table in sorted(source.data.edges.items()):
        end = offset + len(table)
        began = next((a for a, d in timeline.edge_points if d >= offset), 0.0)
        ended = next((a for a, d in timeline.edge_points if d >= end), began)
        found.append((rel_type, len(table), ended - began))
        offset = end
    return found


def server_proc_file(name: str) -> str | None:
    """/proc/PID/NAME of the Neo4j server, where this machine runs it (with-neo4j.sh leaves
    its pid in $NEO4J_HOME/run/neo4j.pid); None elsewhere."""
    home = os.environ.get("NEO4J_HOME") or f"{os.environ.get('TMPDIR', '/tmp')}/kgcert-neo4j"
    try:
        pid = (Path(home) / "run" / "neo4j.pid").read_text().strip()
        return (Path("/proc") / pid / name).read_text()
    except OSError:
        return None


def server_cpu_s() -> float | None:
    """CPU seconds the Neo4j server has used so far: on a busy machine the wall time says how
    much CPU the server was given, this says how much work the load made it do."""
    stat = server_proc_file("stat")
    if stat is None:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_gb() -> dict[str, float | None]:
    """The peak resident memory of this client and of the server so far (their sum bounds the
    two processes' peak together from above)."""
    client = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    status = server_proc_file("status") or ""
    server = next((int(line.split()[1]) / 2**20 for line in status.splitlines()
                   if line.startswith("VmHWM:")), None)
    return {"client": round(client, 2), "server": round(server, 2) if server else None}


def load_once(server: Neo4jServer, source: ParsedSource, kg: str, every_s: float,
              explain: bool, drop: bool) -> dict[str, Any]:
    timeline = LoadTimeline()
    plans: list[str] = []

    def hear(tick: loadprogress.Tick) -> None:
        first_edge_tick = tick.phase == WRITING_EDGES and WRITING_EDGES not in timeline.phase_starts
        timeline.hear(tick)
        if explain and first_edge_tick:
            plans.extend(explain_first_edges(server, source, kg))

    named = ParsedSource(kg, source.data, source.manifest)
    cpu_before, client_before = server_cpu_s(), time.process_time()
    with parsed_kg_frozen(), loadprogress.listening(hear):
        store_source(server, named)
    total_s = time.perf_counter() - timeline.started
    cpu_after, client_cpu = server_cpu_s(), time.process_time() - client_before
    server_cpu = (round(cpu_after - cpu_before, 1)
                  if cpu_before is not None and cpu_after is not None else None)
    nodes_at = timeline.phase_starts.get(WRITING_NODES, 0.0)
    edges_at = timeline.phase_starts.get(WRITING_EDGES, total_s)
    dropped = time.perf_counter()
    if drop:
        server.drop(kg)
    slowest = sorted(type_rates(timeline, source), key=lambda found: -found[2])[:5]
    return {"kg": kg, "load_s": round(total_s, 1), "nodes_s": round(edges_at - nodes_at, 1),
            "edges_s": round(total_s - edges_at, 1),
            "edges_per_s": round(source.data.edge_count / max(total_s - edges_at, 1e-9)),
            "server_cpu_s": server_cpu, "client_cpu_s": round(client_cpu, 1),
            "rate_timeline": timeline.rates(every_s),
            "slowest_types": [f"{name} {rows:,} rows {seconds:.0f} s "
                              f"({rows / max(seconds, 1e-9):,.0f}/s)"
                              for name, rows, seconds in slowest],
            "drop_s": round(time.perf_counter() - dropped, 1) if drop else None,
            "peak_rss_gb": peak_rss_gb(), "plan": plans}


def synthesise(layout: str, scale: float, folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "kgcert", "synth", "--layout", layout, "--out",
                    str(folder), "--scale", str(scale)], check=True)
    files = sorted(p for p in folder.iterdir() if p.is_file())
    return files[0] if len(files) == 1 else folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--file", type=Path, help="the KG's file (or folder) to load")
    source.add_argument("--scale", type=float, help="synthesise the KG at this scale")
    parser.add_argument("--layout", default="primekg", help="loader format (and synth layout)")
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--every", type=float, default=10.0, help="timeline step, seconds")
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--drop", action="store_true", help="drop each load once timed")
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="a loader setting, e.g. unsupported_edges=template (Wikidata5m)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = dict(item.split("=", 1) for item in args.setting)
    if not os.environ.get("KGCERT_NEO4J_URI"):
        raise SystemExit("needs KGCERT_NEO4J_URI (run it under ../shared/neo4j/with-neo4j.sh)")
    with tempfile.TemporaryDirectory(prefix="bench-neo4j-load-") as work:
        path = args.file or synthesise(args.layout, args.scale, Path(work) / "kg")
        started = time.perf_counter()
        parsed = read_source(get_loader(args.layout, LoadOptions(settings=settings)), [path],
                             "bench")
        print(f"read {parsed.data.node_count:,} nodes, {parsed.data.edge_count:,} edges "
              f"in {time.perf_counter() - started:.1f} s", flush=True)
        server = Neo4jServer(os.environ["KGCERT_NEO4J_URI"])
        results = []
        try:
            for number in range(args.loads):
                result = load_once(server, parsed, f"bench_load_{number}", args.every,
                                   args.explain, args.drop)
                results.append(result)
                print(json.dumps({k: v for k, v in result.items() if k != "plan"}), flush=True)
                for line in result["plan"]:
                    print("   plan:", line)
        finally:
            server.close()
    times = [r["load_s"] for r in results]
    print(f"loads: {', '.join(f'{t:.1f}' for t in times)} s; slowest/fastest "
          f"{max(times) / min(times):.2f}x")
    cpu = [r["server_cpu_s"] for r in results if r["server_cpu_s"]]
    if len(cpu) == len(results):
        print(f"server CPU: {', '.join(f'{c:.1f}' for c in cpu)} s; most/least "
              f"{max(cpu) / min(cpu):.2f}x")
    peak = results[-1]["peak_rss_gb"] if results else {}
    print(f"peak RSS: client {peak.get('client')} GB, server {peak.get('server')} GB")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
