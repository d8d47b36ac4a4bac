"""`--weights matches`: each spec of a suite weighted by its share of the specs' matches in the
KG (the subgraph-isomorphism matches its sampler draws from, as `kgcert specs count` reports).

The counts need the graph, so a new run counts them once the graph is open and before its
first answer; run.yaml records the weights with the counts, and a resume keeps those rather
than counting again (the KG may have been reloaded since: the run certifies the mixture it
fixed at its start).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kgcert.errors import InputError
from kgcert.run.suite import MatchCount
from kgcert.rundir.run_spec import RunSpec

if TYPE_CHECKING:
    from kgcert.specs import RelationSpec
    from kgcert.store.graph import GraphStore


def count_match_weights(spec: RunSpec, store: GraphStore, spec_dirs: Iterable[Path],
                        cache_dir: Path | None) -> RunSpec:
    """The run with its suite's weights by matches counted (unchanged when it has none to
    count)."""
    suite = spec.specs.suite
    if suite is None or not suite.pending:
        return spec
    from kgcert.specs import find_spec
    from kgcert.specs.kind import relation_spec

    folders = list(spec_dirs)
    specs: list[RelationSpec] = []
    for name in suite.specs:  # every spec checked before the graph is read
        found = find_spec(name, folders).spec
        relation = relation_spec(found)
        if relation is None:
            raise InputError(f"suite {suite.name}: --weights matches counts the matches of "
                             f"relation specs, and {found.name} is a {found.kind} spec; give "
                             "the weights (--weights a=0.3,b=0.7) or equal")
        specs.append(relation)
    counts = [_matches(suite.name, relation, store, cache_dir) for relation in specs]
    return spec.with_suite(suite.weighted_by(counts))


def _matches(suite: str, spec: RelationSpec, store: GraphStore,
             cache_dir: Path | None) -> MatchCount:
    from kgcert.specs import RelationSampler, prepare_sampler

    try:
        sampler = prepare_sampler(spec, store, cache_dir)
    except InputError as error:  # no matches in this KG: refused at start, as any suite
        raise InputError(f"suite {suite}: {error}") from None
    assert isinstance(sampler, RelationSampler)
    counted = sampler.count()
    if counted.matches is not None:
        return MatchCount(count=counted.matches, exact=True)
    if counted.estimated_matches <= 0:
        raise InputError(f"suite {suite}: no probe draw of {spec.name} was a match, so its "
                         "matches cannot be estimated for --weights matches; give the weights")
    return MatchCount(count=counted.estimated_matches, exact=False)


def keep_counted_weights(spec: RunSpec, saved: RunSpec | None) -> RunSpec:
    """A resume of a suite weighted by matches: the weights run.yaml recorded at the run's
    start (the same suite, the same specs), not a new count."""
    suite, before = spec.specs.suite, saved.specs.suite if saved is not None else None
    if suite is None or not suite.pending or before is None or before.pending:
        return spec
    if (before.weighting, before.name, before.specs) != ("matches", suite.name, suite.specs):
        return spec
    return spec.with_suite(before)
