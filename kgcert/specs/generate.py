"""Entity-centric spec generation: pick pivots by the paper's rule and write one spec each.

LLMCert-C picks pivots with a high out-degree (among the top 2,000) or a dense neighbourhood
(more than 2,000 entities within rho-1 hops). Candidates are shuffled with the seed and taken
in that order; a candidate is kept only if every path length has a unique-answer path from it
(otherwise its spec would state a distribution with empty parts), and, where paths have more
than one hop, only if its paths offer distractors: among its first DISTRACTOR_DRAWS samples
(drawn with the generation seed, so the choice is deterministic), at least MIN_WRONG_TURNS of
them have a Definition 2.3 distractor candidate. `kgcert run` refuses a distractor setting
whose first PROBE (30) prompts hold no distractor: at this share that happens to fewer than 1%
of runs (a pivot of the synthetic Wikidata5m at scale 0.02 with 3.5% was refused in about one
run of three, and one with none in every run).
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

PROBE = 30  # the prompts kgcert/run/preflight.py probes for a distractor (a test keeps them equal)
DISTRACTOR_DRAWS = 200
# The share of paths with a distractor at which a run's probe of its first PROBE prompts
# finds none with probability 1%: (1 - share) ** PROBE = 0.01, a share of about 14%.
MIN_WRONG_TURNS = 1 - 0.01 ** (1 / PROBE)


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


def _offers_distractors(sampler: EntitySampler, seed: int) -> bool:
    try:
        return sampler.wrong_turn_share(seed, DISTRACTOR_DRAWS) >= MIN_WRONG_TURNS
    except InputError:  # a length whose unique-answer paths are too rare to draw
        return False


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
        if rho > 2 and not _offers_distractors(sampler, seed):
            continue  # its distractor setting would be refused by some runs
        path = out_dir / f"{kg}.entity.{pivot}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                        encoding="utf-8")
        written.append(path)
    if not written:
        raise InputError(f"no pivot in KG {kg} passed the {rule} rule with a unique-answer path "
                         "for every length and distractors on its paths; lower --rho or "
                         "--threshold")
    return written
