"""The shipped Wikidata5m specs: the 50 pivots of the LLMCert-C study, one entity spec each.

The full Wikidata5m is not on this machine; 11 of the pivots occur in the countries KG
rewritten in the Wikidata5m layout, which is loaded with the wikidata5m loader. 7 of them
(countries) have out-edges there: their specs must prepare at rho = 5 and draw real
unique-answer paths (checked hop by hop with Cypher). The other 4 (Hamburg, Warsaw, ...) are
only ever tails in that KG and must be refused saying so; the 39 absent pivots must be
refused naming the missing pivot.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from kg_helpers import load_kg

from kgcert.cli.common import Context
from kgcert.errors import InputError
from kgcert.specs import EntitySampler, EntitySpec, load_spec_file, prepare_sampler
from kgcert.store.graph import GraphStore

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO / "specs" / "wikidata5m").glob("*.yaml"))
IN_COUNTRIES = ["Q38", "Q1055", "Q31", "Q270", "Q36740", "Q33", "Q36", "Q16", "Q96", "Q36687",
                "Q159"]  # ../shared/data/README.md
ONLY_TAILS = ["Q1055", "Q270", "Q36740", "Q36687"]  # no out-edge in the countries KG
PREPARED = sorted(set(IN_COUNTRIES) - set(ONLY_TAILS))
PAPER_EXCLUSIONS = ("P31", "P279", "P361", "P2184", "P2633")
SAMPLES = 10


def _pivot(path: Path) -> str:
    spec = load_spec_file(path)
    assert isinstance(spec, EntitySpec)
    return spec.pivots[0]


def test_one_spec_per_paper_pivot_with_the_papers_settings(shared_data: Path):
    listed = (shared_data / "wikidata5m_paper_pivots.txt").read_text(encoding="utf-8").split()
    assert len(SHIPPED) == len(listed) == 50
    assert sorted(_pivot(p) for p in SHIPPED) == sorted(listed)
    for path in SHIPPED:
        spec = load_spec_file(path)
        assert isinstance(spec, EntitySpec)
        assert path.name == f"{spec.name}.yaml" == f"wikidata5m.entity.{spec.pivots[0]}.yaml"
        assert len(spec.pivots) == 1 and spec.rho == 5 and spec.paths == "uniform"
        assert spec.length_weights() == {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}
        assert spec.relations.exclude == PAPER_EXCLUSIONS and not spec.relations.include


@pytest.fixture(scope="module")
def countries(embedded_server, shared_data: Path) -> GraphStore:
    # replace=False: the other entity-spec tests load the same KG under the same name
    store, _ = load_kg(embedded_server, "wikidata5m", [shared_data / "wikidata5m_countries"],
                       "specs_wd5m", replace=False)
    return store


@pytest.fixture(scope="module")
def samplers(countries: GraphStore) -> dict[str, EntitySampler]:
    return {}  # prepared on first use: each takes about a minute (the whole KG is within 3 hops)


def _sampler(samplers: dict[str, EntitySampler], countries: GraphStore,
             pivot: str) -> EntitySampler:
    if pivot not in samplers:
        spec = load_spec_file(REPO / "specs" / "wikidata5m" / f"wikidata5m.entity.{pivot}.yaml")
        sampler = prepare_sampler(spec, countries)
        assert isinstance(sampler, EntitySampler)
        samplers[pivot] = sampler
    return samplers[pivot]


# Two pivots in the default run; the other five prepare the same way at a minute each.
PIVOT_PARAMS = [pytest.param(p, marks=[] if p in ("Q31", "Q33") else [pytest.mark.slow])
                for p in PREPARED]


@pytest.mark.parametrize("pivot", PIVOT_PARAMS)
def test_samples_are_unique_answer_paths_in_the_kg(countries, samplers, pivot):
    sampler = _sampler(samplers, countries, pivot)
    assert sampler.lengths == [1, 2, 3, 4]  # rho = 5: every length has a unique-answer path

    def reached(rels: tuple[str, ...]) -> set[str]:
        """The entities the relation sequence reaches from the pivot, level by level."""
        level = {pivot}
        for rel in rels:
            level = {str(row["t"]) for row in countries.query(
                "MATCH (s:Entity)-[r]->(t:Entity) WHERE s.id IN $ids AND type(r) = $rel "
                "RETURN DISTINCT t.id AS t", ids=sorted(level), rel=rel)}
        return level

    hops_seen: set[int] = set()
    for index in range(SAMPLES):
        sample = sampler.sample(0, index)
        where = f"{pivot} #{index}: {sample.nodes} {sample.relations}"
        assert sample.nodes[0] == pivot and len(set(sample.nodes)) == len(sample.nodes), where
        assert not set(PAPER_EXCLUSIONS) & set(sample.relations), where
        for source, rel, target in zip(sample.nodes, sample.relations, sample.nodes[1:],
                                       strict=False):
            assert countries.value(
                "MATCH (s:Entity {id: $s})-[r]->(t:Entity {id: $t}) WHERE type(r) = $rel "
                "RETURN count(r)", s=source, t=target, rel=rel) > 0, where
        assert reached(sample.relations) == {sample.nodes[-1]}, where
        hops_seen.add(sample.hops)
    assert len(hops_seen) >= 2, hops_seen  # lengths are drawn, not fixed


@pytest.mark.parametrize("pivot", ONLY_TAILS)
def test_a_pivot_without_out_edges_is_refused_saying_so(countries, pivot):
    assert countries.value("MATCH (n:Entity {id: $id}) RETURN count(n)", id=pivot) == 1
    assert countries.value("MATCH (n:Entity {id: $id})-[r]->() RETURN count(r)", id=pivot) == 0
    spec = load_spec_file(REPO / "specs" / "wikidata5m" / f"wikidata5m.entity.{pivot}.yaml")
    with pytest.raises(InputError) as caught:
        prepare_sampler(spec, countries)
    assert str(caught.value) == (f"spec {spec.name}: pivot '{pivot}' has no out-edges over the "
                                 "allowed relations in the KG, so no path starts there")


def test_a_spec_whose_pivot_is_absent_names_it(countries):
    absent = [p for p in SHIPPED if _pivot(p) not in IN_COUNTRIES]
    assert len(absent) == 39
    for path in absent[:3]:
        spec = load_spec_file(path)
        with pytest.raises(InputError) as caught:
            prepare_sampler(spec, countries)
        assert str(caught.value) == f"spec {spec.name}: pivot '{_pivot(path)}' is not in the KG"


class _SessionServer(Context):
    """The CLI context, pointed at the test session's server (it holds the data dir's lock)."""

    def __init__(self, server: object) -> None:
        super().__init__(None, None)
        self._server = server

    def server(self):  # type: ignore[no-untyped-def]
        return self._server


def test_validate_reports_every_misfit_and_fails(embedded_server, countries):
    """A name and a pattern: Q31 fits; the 16 pivots starting Q2 are absent, or (Q270) a tail
    only; every one is reported, then the command fails with their count."""
    from kgcert.cli.specs import specs_group

    done = CliRunner().invoke(
        specs_group, ["validate", "wikidata5m.entity.Q31", "wikidata5m.entity.Q2*", "--kg",
                      "specs_wd5m"], obj=_SessionServer(embedded_server))
    assert done.exit_code == 2
    lines = done.output.splitlines()
    assert lines[0].startswith("ok  wikidata5m.entity.Q31")
    refused = [line for line in lines if line.startswith("error: spec wikidata5m.entity.Q2")]
    assert len(refused) == 16
    assert "error: spec wikidata5m.entity.Q254: pivot 'Q254' is not in the KG" in refused
    assert ("error: spec wikidata5m.entity.Q270: pivot 'Q270' has no out-edges over the "
            "allowed relations in the KG, so no path starts there") in refused
    assert lines[-1] == "error: 16 of 17 specs failed"


def test_validate_a_pattern_matching_nothing(embedded_server):
    from kgcert.cli.specs import specs_group

    done = CliRunner().invoke(specs_group, ["validate", "wikidata5m.entity.X*"],
                              obj=_SessionServer(embedded_server))
    assert done.exit_code == 2
    assert done.output.splitlines() == ["error: no spec name matches 'wikidata5m.entity.X*'; "
                                        "`kgcert specs list` shows them"]
