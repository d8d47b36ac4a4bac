"""Entity-spec figures for bench_scale.py (`--entity-scale`): `specs generate` with the
paper's pivot rule on a synthetic Wikidata5m, then per generated spec its preparation (the
pivot's neighbourhood fetched over Bolt, its unique-answer relation sequences counted) and
samples/s. Issue 12's targets: generate <= 10 min for 50 pivots, <= 30 s preparation per
pivot, >= 500 samples/s at rho = 5.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import load
from kgcert.specs import EntitySampler, load_spec_file, prepare_sampler
from kgcert.specs.generate import generate_entity_specs
from kgcert.store.graph import GraphStore
from kgcert.synth.wikidata5m import DROPPED, SyntheticWikidata5m


def load_wikidata5m(server, work: Path, scale: float, unsupported: str,
                    seed: int) -> tuple[str, dict[str, object]]:
    """Synthesise and load a Wikidata5m-layout KG; `unsupported`: the loader's
    unsupported_edges (drop, the paper's preprocessing, or template: every edge kept)."""
    start = time.perf_counter()
    counts = SyntheticWikidata5m(scale, seed).write(work / "wikidata5m")
    row: dict[str, object] = {"scale": scale, "unsupported_edges": unsupported,
                              "synth_s": time.perf_counter() - start, **counts}
    kg = "bench_scale_wd5m"
    loader = get_loader("wikidata5m", LoadOptions(settings={"unsupported_edges": unsupported}))
    start = time.perf_counter()
    load(server, loader, [work / "wikidata5m"], kg, replace=True)
    row["load_s"] = time.perf_counter() - start
    print(f"wikidata5m synth {scale}: {counts['triples']:,} triples, loaded in "
          f"{row['load_s']:.1f} s (unsupported_edges={unsupported})", flush=True)
    return kg, row


def bench_entity(store: GraphStore, kg: str, work: Path, *, pivots: int, rho: int,
                 samples: int) -> dict[str, object]:
    out = work / "entity_specs"
    start, cpu = time.perf_counter(), time.process_time()
    written = generate_entity_specs(store, kg, out, count=pivots, rho=rho, rule="degree",
                                    threshold=2000, exclude=list(DROPPED), seed=0)
    row: dict[str, object] = {"rho": rho, "pivots": len(written),
                              "generate_s": time.perf_counter() - start,
                              "generate_cpu_s": time.process_time() - cpu}
    print(f"specs generate: {len(written)} pivots (top 2,000 by out-degree), rho {rho}: "
          f"{row['generate_s']:.1f} s ({row['generate_cpu_s']:.1f} CPU-s)", flush=True)
    per_pivot: list[dict[str, object]] = []
    for path in sorted(written):
        spec = load_spec_file(path)
        start, cpu = time.perf_counter(), time.process_time()
        sampler = prepare_sampler(spec, store)
        figures: dict[str, object] = {"prepare_s": time.perf_counter() - start,
                                      "prepare_cpu_s": time.process_time() - cpu}
        assert isinstance(sampler, EntitySampler)
        area = sampler.areas[sampler.pivots[0]]
        figures.update(pivot=sampler.pivots[0], entities=len(area.ids), edges=len(area.dst))
        start, cpu = time.perf_counter(), time.process_time()
        for index in range(samples):
            sampler.sample(0, index)
        figures["samples_per_s"] = samples / (time.perf_counter() - start)
        figures["samples_per_cpu_s"] = samples / (time.process_time() - cpu)
        per_pivot.append(figures)
    prepare = [float(f["prepare_s"]) for f in per_pivot]  # type: ignore[arg-type]
    rates = [float(f["samples_per_s"]) for f in per_pivot]  # type: ignore[arg-type]
    per_cpu = [float(f["samples_per_cpu_s"]) for f in per_pivot]  # type: ignore[arg-type]
    largest = max(per_pivot, key=lambda f: int(f["entities"]))  # type: ignore[arg-type]
    row.update(per_pivot=per_pivot, prepare_median_s=statistics.median(prepare),
               prepare_max_s=max(prepare), samples_per_s_median=statistics.median(rates),
               samples_per_s_min=min(rates), samples_per_cpu_s_min=min(per_cpu),
               largest_neighbourhood=largest)
    print(f"entity specs: prepare median {row['prepare_median_s']:.2f} s, max "
          f"{row['prepare_max_s']:.2f} s; samples/s median {row['samples_per_s_median']:,.0f}, "
          f"min {row['samples_per_s_min']:,.0f} (per CPU-s: min "
          f"{row['samples_per_cpu_s_min']:,.0f}); largest neighbourhood {largest['entities']:,} "
          f"entities, {largest['edges']:,} edges ({largest['pivot']}: prepare "
          f"{largest['prepare_s']:.2f} s, {largest['samples_per_s']:,.0f} samples/s)",
          flush=True)
    return row
