"""The store: values as parameters, escaped identifiers, KG databases, the synthetic graph."""

from __future__ import annotations

import contextlib
from collections import Counter

import pytest
from kg_helpers import kg_name, load_kg

from kgcert.cli.kg_counts import kg_info
from kgcert.store.cypher import escape_identifier, named, render, sanitize_identifier
from kgcert.synth.primekg import NODE_COUNTS, RELATIONS, SyntheticPrimeKG


def test_identifiers_are_escaped_not_interpolated():
    hostile = "drug`) DETACH DELETE n //"
    assert escape_identifier(hostile) == "`drug``) DETACH DELETE n //`"
    assert render("MATCH (n:{{label}}) RETURN n", label=hostile) == (
        "MATCH (n:`drug``) DETACH DELETE n //`) RETURN n")
    with pytest.raises(KeyError, match="no identifier given"):
        render("MATCH (n:{{label}})")


def test_edge_properties_are_set_by_escaped_name():
    """The Bolt load's edge statement names each property key, escaped like an identifier;
    a key holding the KG scope marker keeps the map form, which the store cannot rewrite."""
    from kgcert.store.bulk import edge_statement

    assert edge_statement("indication", []) == named("load", "create_edges",
                                                     rel_type="indication")
    hostile = edge_statement("indication", ["display", "x` = 1 DETACH DELETE a //"])
    assert hostile.endswith("\nSET e.`display` = row.p.`display`, "
                            "e.`x`` = 1 DETACH DELETE a //` = row.p.`x`` = 1 DETACH DELETE a //`")
    assert edge_statement("indication", ["{{:kg}}"]).endswith("\nSET e = row.p")


def test_a_shared_database_names_the_kg_id_index_for_both_ends() -> None:
    """Where KGs share a database the edge statement names the KG's own index in a hint, so
    its plan does not hang on the index statistics of the moment it is made."""
    from kgcert.store.bulk import edge_statement
    from kgcert.store.graph import GraphStore

    store = GraphStore(None, "neo4j", "test", kg="drugs", shared=True)  # type: ignore[arg-type]
    query = store.scoped(edge_statement("indication", ["display"], by_kg_index=True))
    for end, key in (("a", "s"), ("b", "t")):
        assert (f"MATCH ({end}:Entity:`KgcertKG_drugs` {{id: row.{key}}}) "
                f"USING INDEX {end}:`KgcertKG_drugs`(id)") in query
    assert query.endswith("\nSET e.`display` = row.p.`display`")


def test_sanitized_labels_follow_primekg_exports():
    assert sanitize_identifier("gene/protein") == "gene__protein"
    assert sanitize_identifier("off-label use") == "off_label_use"
    assert sanitize_identifier("3d structure") == "_3d_structure"


def test_hostile_label_matches_nothing_and_deletes_nothing(graph_server, shared_data):
    store, _ = load_kg(graph_server, "primekg",
                       [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "alzheimer",
                       replace=False)
    before = kg_info(store)["nodes"]
    query = named("info", "count_label", label="drug`) DETACH DELETE (n")
    with contextlib.suppress(Exception):  # an unknown type may be an error; never a deletion
        store.value(query)
    assert kg_info(store)["nodes"] == before


def test_values_travel_as_parameters(graph_server, shared_data):
    store, _ = load_kg(graph_server, "primekg",
                       [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "alzheimer",
                       replace=False)
    assert store.query("MATCH (n:Entity{{:kg}} {name: $name}) RETURN n.id AS id",
                       name="x' OR 1=1 //") == []


def test_synthetic_graph_has_primekg_shape(graph_server, tmp_path):
    generator = SyntheticPrimeKG(scale=0.004, seed=3)
    rows = generator.write_kg_csv(tmp_path / "kg.csv")
    store, result = load_kg(graph_server, "primekg", [tmp_path / "kg.csv"], "synthetic")
    info = kg_info(store)
    assert info["relationships"] == rows == result.manifest.counts["edges"]
    expected_labels = {sanitize_identifier(t): max(2, round(c * 0.004))
                       for t, c in NODE_COUNTS.items()}
    assert info["labels"] == expected_labels
    assert set(info["relationship_types"]) == {sanitize_identifier(r) for r in RELATIONS}
    assert info["relationship_types"] == result.manifest.counts["relationship_types"]
    # power-law degrees: the busiest gene has far more diseases than the median one
    degrees = Counter(r["id"] for r in store.query(
        "MATCH (g:gene__protein{{:kg}})-[:disease_protein]->(:disease{{:kg}}) RETURN g.id AS id"))
    ordered = sorted(degrees.values())
    assert ordered[-1] >= 4 * ordered[len(ordered) // 2]


def test_kgs_are_separate_databases(embedded_server):
    first, second = kg_name(embedded_server, "sep_a"), kg_name(embedded_server, "sep_b")
    for name in (first, second):
        embedded_server.create(name)
    embedded_server.create(first).execute("CREATE (:Entity{{:kg}} {id: 'only-in-a'})")
    assert embedded_server.open(second).value("MATCH (n:Entity{{:kg}}) RETURN count(n)") == 0
    embedded_server.drop(first)
    assert first not in embedded_server.list_kgs()
    assert second in embedded_server.list_kgs()


def test_a_failed_write_leaves_no_half_made_kg(graph_server, shared_data, monkeypatch):
    """A write the server refuses midway (a full disk, say) removes what it wrote, on both
    servers; the next load starts clean."""
    from kgcert.errors import StoreError

    real = graph_server.bulk_writer

    def failing_after_first_edges(store):
        writer = real(store)
        write_edges = writer.write_edges

        def then_fail(*args, **kwargs):
            write_edges(*args, **kwargs)
            raise StoreError("simulated: No space left on device")

        writer.write_edges = then_fail
        return writer

    kg = "failed_write"
    monkeypatch.setattr(graph_server, "bulk_writer", failing_after_first_edges)
    with pytest.raises(StoreError, match="No space left"):
        load_kg(graph_server, "primekg",
                [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], kg)
    assert not graph_server.exists(kg)
    monkeypatch.undo()
    store, result = load_kg(graph_server, "primekg",
                            [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], kg)
    assert store.value("MATCH (n:Entity{{:kg}}) RETURN count(n)") == result.manifest.counts["nodes"]
