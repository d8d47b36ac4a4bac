"""A relation spec's match count from the server's own Cypher, to check the sampler's count
on big KGs.

One DISTINCT over every match exceeds the embedded server's in-heap limit (2,097,152 rows)
once a spec has millions of matches, so the count runs in pages of answer ids. A page holds
answers whose tree-shaped candidates (the sampler's per-answer counts, an upper bound on
their matches) sum to at most `limit`; an answer with more candidates than that alone cannot
be counted this way, and the spec is refused rather than counted wrong.
"""

from __future__ import annotations

import numpy as np

from kgcert.errors import InputError
from kgcert.specs.relation_sampler import RelationSampler
from kgcert.store.graph import GraphStore

PAGE_CANDIDATES = 1_000_000  # half the embedded server's in-heap DISTINCT limit


def answer_pages(sampler: RelationSampler, limit: int = PAGE_CANDIDATES) -> list[tuple[str, str]]:
    """[low, high] answer-id ranges, each with at most `limit` tree-shaped candidates."""
    weights = sampler.answer_candidates()
    answers = np.flatnonzero(weights)
    if not len(answers):
        return []
    heaviest = int(weights[answers].max())
    if heaviest > limit:
        raise InputError(f"spec {sampler.compiled.spec.name}: one answer has {heaviest:,} "
                         f"candidate matches, over {limit:,}: too many to count on the server")
    ids = sampler.ids[answers]
    if np.ascontiguousarray(ids).view(np.uint32).max() >= 0xE000:  # see tables._source_pages
        if int(weights.sum()) > limit:
            raise InputError(f"spec {sampler.compiled.spec.name}: its ids do not page on the "
                             "server and its candidates exceed one page")
        return [(str(ids[0]), str(ids[-1]))]
    pages: list[tuple[str, str]] = []
    first, total = 0, 0
    for i, weight in enumerate(weights[answers].tolist()):
        if total + weight > limit:
            pages.append((str(ids[first]), str(ids[i - 1])))
            first, total = i, 0
        total += weight
    pages.append((str(ids[first]), str(ids[-1])))
    return pages


def count_on_server(store: GraphStore, sampler: RelationSampler,
                    limit: int = PAGE_CANDIDATES) -> int:
    """The spec's injective matches, counted by the server page by page."""
    cypher = sampler.compiled.count_cypher(paged=True)
    return sum(int(store.value(cypher, low=low, high=high) or 0)
               for low, high in answer_pages(sampler, limit))
