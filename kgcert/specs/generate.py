"""Entity-centric spec generation: pick pivots by the paper's rule and write one spec each.

LLMCert-C picks pivots with a high out-degree (among the top 2,000) or a dense neighbourhood
(more than 2,000 entities within rho-1 hops). Candidates are shuffled with the seed and taken
in that order; a candidate is kept only if every path length has a unique-answer path from it
(otherwise its spec would state a distribution with empty parts).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from kgcert.errors import InputError
from kgcert.specs.entity_sampler import EntitySampler
from kgcert.specs.model import parse_spec
from kgcert.specs.schema import KGSchema
from kgcert.store.cypher import named
from kgcert.store.graph import GraphStore


def _spec_data(kg: str, pivot: str, name: str, rho: int, exclude: list[str]) -> dict[str, object]:
    return {
        "kind": "entity",
        "name": f"{kg}.entity.{pivot}",
        "kg": kg,
        "description": (f"Paths from {name} ({pivot}): 1 to {rho - 1} hops, uniform; then "
                        "uniform over the simple paths of that length whose relation sequence "
                        "leads from the pivot to exactly one entity."),
        "pivots": [pivot],
        "rho": rho,
        "relations": {"exclude": exclude},
    }


def generate_entity_specs(store: GraphStore, kg: str, out_dir: Path, *, count: int, rho: int,
                          rule: str, threshold: int, exclude: list[str], seed: int) -> list[Path]:
    if count < 1:
        raise InputError("--count must be at least 1")
    schema = KGSchema.read(store)
    exclude = [r for r in exclude if r in schema.rel_types]  # absent relations exclude nothing
    pool_size = threshold if rule == "degree" else max(10 * count, 100)
    rows = store.query(named("specs", "out_degrees"), include=[], exclude=exclude, min_degree=1,
                       limit=pool_size)
    candidates = [str(row["id"]) for row in rows]
    order = np.random.default_rng(seed).permutation(len(candidates))
    names = {row["id"]: row["name"]
             for row in store.query(named("specs", "entities"), ids=candidates)}
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for position in order:
        if len(written) == count:
            break
        pivot = candidates[int(position)]
        data = _spec_data(kg, pivot, names.get(pivot, pivot), rho, exclude)
        spec = parse_spec(data, f"generated spec for {pivot}")
        try:
            sampler = EntitySampler(spec, store, schema)  # type: ignore[arg-type]
        except InputError:
            continue  # some path length has no unique-answer path from this pivot
        if rule == "density" and len(sampler.areas[pivot].ids) <= threshold:
            continue
        path = out_dir / f"{kg}.entity.{pivot}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                        encoding="utf-8")
        written.append(path)
    if not written:
        raise InputError(f"no pivot in KG {kg} passed the {rule} rule with a unique-answer path "
                         "for every length; lower --rho or --threshold")
    return written
