"""Spec sampling throughput on a synthetic PrimeKG-shaped graph (run on demand).

    python benchmarks/bench_specs.py --edges 1000000

In one run on one embedded server: per shipped PrimeKG spec, preparation time with an empty
table cache (edge tables pulled over Bolt) and with a warm one, then samples/s; an
entity-centric spec with 5-hop paths and the uniqueness check; and the baseline, one
`ORDER BY rand() LIMIT 1` Cypher query per sample (not uniform over matches, only a speed
reference), all reported as samples/s and as ratios to that baseline.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from kgcert.errors import InputError
from kgcert.loaders import get_loader
from kgcert.loading.pipeline import load
from kgcert.specs import RelationSampler, compile_relation_spec, load_spec_file, prepare_sampler
from kgcert.specs.folders import is_suite_file
from kgcert.specs.model import RelationSpec, parse_spec
from kgcert.specs.schema import KGSchema
from kgcert.store.embedded import start_embedded
from kgcert.synth.primekg import SyntheticPrimeKG, scale_for_edges
from kgcert.util.resources import data_folder


def _rate(draw, count: int) -> float:
    start = time.perf_counter()
    for index in range(count):
        draw(index)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/specs.json"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kgcert-bench-specs-"))
    SyntheticPrimeKG(scale_for_edges(args.edges), seed=1).write_kg_csv(work / "kg.csv")
    server = start_embedded(work / "data")
    start = time.perf_counter()
    load(server, get_loader("primekg"), [work / "kg.csv"], "bench")
    store = server.open("bench")
    results: dict[str, object] = {"load_s": time.perf_counter() - start,
                                  "edges": store.value("MATCH ()-[r]->() RETURN count(r)")}
    cache = work / "cache"

    specs = sorted(p for p in data_folder("specs").glob("primekg/*.yaml")
                   if not is_suite_file(p))  # table1.yaml is a suite
    first = load_spec_file(specs[0])
    assert isinstance(first, RelationSpec)
    compiled = compile_relation_spec(first, KGSchema.read(store))
    baseline_cypher = (compiled.enumerate_cypher().replace(" RETURN DISTINCT", " RETURN")
                       .rsplit(" ORDER BY", 1)[0] + " ORDER BY rand() LIMIT 1")
    baseline = _rate(lambda i: store.query(baseline_cypher), 20)
    results["baseline_order_by_rand_samples_per_s"] = baseline
    print(f"baseline ORDER BY rand() LIMIT 1 ({first.name}): {baseline:.2f} samples/s")

    per_spec: dict[str, dict[str, object]] = {}
    for path in specs:
        spec = load_spec_file(path)
        row: dict[str, object] = {}
        try:
            start = time.perf_counter()
            sampler = prepare_sampler(spec, store, cache)
            row["prepare_cold_s"] = time.perf_counter() - start
            start = time.perf_counter()
            sampler = prepare_sampler(spec, store, cache)
            row["prepare_warm_s"] = time.perf_counter() - start
        except InputError as error:
            row["error"] = str(error)
            per_spec[spec.name] = row
            print(f"{spec.name}: {error}")
            continue
        assert isinstance(sampler, RelationSampler)
        row["method"] = "table" if sampler.table is not None else "rejection"
        row["tree_candidates"] = sampler.tree_homomorphisms
        rate = _rate(lambda i, s=sampler: s.sample(0, i), args.samples)
        row["samples_per_s"] = rate
        row["ratio_to_baseline"] = rate / baseline
        per_spec[spec.name] = row
        print(f"{spec.name}: prepare {row['prepare_cold_s']:.1f} s cold, "
              f"{row['prepare_warm_s']:.1f} s warm; {row['method']}; {rate:,.0f} samples/s "
              f"({rate / baseline:,.0f}x baseline)")
    results["relation_specs"] = per_spec

    # Entity-centric: 5-hop paths with the uniqueness check. PrimeKG stores every fact both
    # ways, so unique 5-hop answers exist only around sparse entities: try pivots by degree.
    pivots = [row["id"] for row in store.query(
        "MATCH (d:Entity)-[r]->() WITH d, count(r) AS degree WHERE degree >= 3 "
        "RETURN d.id AS id ORDER BY degree, id LIMIT 60")]
    entity: dict[str, object] = {}
    failed = 0
    for pivot in pivots:
        spec = parse_spec({"kind": "entity", "name": "bench.paths", "description": "bench",
                           "pivots": [pivot], "rho": 6, "lengths": {5: 1.0}}, "bench")
        start = time.perf_counter()
        try:
            sampler5 = prepare_sampler(spec, store, cache)
        except InputError:
            failed += 1  # no unique-answer 5-hop path from this pivot
            continue
        prepare_s = time.perf_counter() - start
        try:
            rate = _rate(lambda i, s=sampler5: s.sample(0, i), 200)
        except InputError:
            failed += 1  # such paths exist but are too rare for rejection from walks
            continue
        entity = {"pivot": pivot, "prepare_s": prepare_s, "samples_per_s": rate,
                  "ratio_to_baseline": rate / baseline, "pivots_tried_first": failed}
        print(f"entity-centric 5-hop from {pivot} (after {failed} pivots without such paths): "
              f"prepare {prepare_s:.1f} s, {rate:,.0f} samples/s ({rate / baseline:,.0f}x)")
        break
    results["entity_5_hops"] = entity
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    server.close()


if __name__ == "__main__":
    main()
