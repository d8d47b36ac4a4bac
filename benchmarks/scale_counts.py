"""Match counts checked against the server's own Cypher count, for bench_scale.py
(`--cypher-counts`): an enumerated spec's count must equal it; a rejection-mode spec's
estimate (tree-shaped candidates x acceptance in probe draws) must hold it inside the
acceptance's 99.9% Clopper-Pearson interval. primekg.phenotype_diagnosis (about a billion
matches at full size: no server enumerates them in a benchmark's time) is counted on the
server in closed form instead: k(k-1)(k-2) ordered phenotype triples per disease with k.
"""

from __future__ import annotations

import time

from kgcert.errors import InputError
from kgcert.specs import RelationSampler
from kgcert.specs.server_count import count_on_server
from kgcert.stats.binomial import clopper_pearson
from kgcert.store.cypher import KG_SCOPE, escape_identifier
from kgcert.store.graph import GraphStore

PROBES = 20_000
CLOSED_FORM = "primekg.phenotype_diagnosis"


def _triples_cypher(sampler: RelationSampler) -> str:
    """Ordered triples of distinct sources of the spec's one relation into each answer."""
    edge, labels = sampler.compiled.edges[0], sampler.compiled.labels
    return (f"MATCH (p:{escape_identifier(labels[edge.source])}{KG_SCOPE})"
            f"-[:{escape_identifier(edge.rel_type)}]->"
            f"(x:{escape_identifier(labels[edge.target])}{KG_SCOPE}) "
            "WITH x, count(DISTINCT p) AS k RETURN sum(k * (k - 1) * (k - 2))")


def check_count(store: GraphStore, sampler: RelationSampler, limit: float) -> dict[str, object]:
    count = sampler.count(probe_draws=PROBES)
    row: dict[str, object] = {"method": count.method}
    estimate = count.matches if count.matches is not None else count.estimated_matches
    start = time.perf_counter()
    if sampler.compiled.spec.name == CLOSED_FORM:
        server = int(store.value(_triples_cypher(sampler)))
    elif estimate > limit:
        row["cypher_count"] = f"skipped: about {estimate:,.0f} matches, over --count-limit"
        return row
    else:
        try:
            server = count_on_server(store, sampler)
        except InputError as error:
            row["cypher_count"] = f"skipped: {error}"
            return row
    row.update(cypher_count=server, cypher_count_s=time.perf_counter() - start)
    if count.matches is not None:
        row["agrees"] = server == count.matches
    else:
        accepted = round(count.acceptance * PROBES)
        bounds = clopper_pearson(accepted, PROBES, confidence=0.999)
        low = bounds.lower * count.tree_homomorphisms
        high = bounds.upper * count.tree_homomorphisms
        row.update(interval=[low, high], agrees=low <= server <= high)
    return row
