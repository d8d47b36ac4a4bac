"""PrimeKG loads: counts checked against an independent pandas computation from the raw files."""

from __future__ import annotations

import pandas as pd
import pytest
from kg_helpers import load_kg

from kgcert.cli.kg_counts import kg_info


def _expected_from_kg_csv(*paths) -> tuple[int, int, dict[str, int]]:
    rows = pd.concat([pd.read_csv(p, dtype=str) for p in paths])
    forward = set(zip(rows.x_index, rows.relation, rows.display_relation, rows.y_index,
                      strict=True))
    directed = forward | {(y, r, d, x) for x, r, d, y in forward}
    types = pd.concat([
        rows[["x_index", "x_type"]].set_axis(["id", "type"], axis=1),
        rows[["y_index", "y_type"]].set_axis(["id", "type"], axis=1),
    ]).drop_duplicates("id")
    labels = {t.replace("/", "__"): n for t, n in types.type.value_counts().items()}
    return len(types), len(directed), labels


@pytest.fixture(scope="module")
def alzheimer(graph_server, shared_data):
    path = shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"
    store, _ = load_kg(graph_server, "primekg", [path], "alzheimer")
    return store, path


def test_counts_match_the_raw_file(alzheimer):
    store, path = alzheimer
    nodes, edges, labels = _expected_from_kg_csv(path)
    info = kg_info(store)
    assert (info["nodes"], info["relationships"]) == (nodes, edges) == (2446, 7716)
    assert info["labels"] == labels
    assert info["manifest"]["status"] == "complete"
    assert info["manifest"]["counts"]["edges"] == edges


def test_fact_is_queryable_in_both_directions_with_its_sentence(alzheimer):
    store, _ = alzheimer
    rows = store.query(
        "MATCH (d:drug{{:kg}} {name: $drug})-[r:indication]->(x:disease{{:kg}} {name: $disease}) "
        "MATCH (x)-[back:indication]->(d) "
        "RETURN r.display AS display, back.display AS back_display",
        drug="Fosinopril", disease="hypertension",
    )
    # one display for indication between drugs and diseases: its KgcertRelation names it
    assert rows == [{"display": None, "back_display": None}]
    relations = {
        (r["source_type"], r["target_type"]): r
        for r in store.query("MATCH (r:KgcertRelation{{:kg}} {type: 'indication'}) "
                             "RETURN properties(r) AS r")
        for r in [r["r"]]
    }
    forward, backward = relations[("drug", "disease")], relations[("disease", "drug")]
    assert forward["name"] == "indication (disease)"
    assert backward["name"] == "indication (drug)"
    assert forward["template"].format(source="Fosinopril", target="hypertension") == (
        "Fosinopril is an approved treatment for hypertension.")
    assert backward["template"].format(source="hypertension", target="Fosinopril").startswith(
        "hypertension can be treated with Fosinopril")


def test_two_relations_between_one_pair_both_survive(alzheimer, shared_data):
    store, path = alzheimer
    rows = pd.read_csv(path, dtype=str)
    per_pair = rows.groupby(["x_index", "y_index"]).relation.nunique()
    x, y = per_pair[per_pair > 1].index[0]
    expected = sorted(rows[(rows.x_index == x) & (rows.y_index == y)].relation.unique())
    found = store.query("MATCH (a:Entity{{:kg}} {id: $x})-[r]->(b:Entity{{:kg}} {id: $y}) "
                        "RETURN type(r) AS t ORDER BY t", x=x, y=y)
    assert sorted(r["t"] for r in found) == sorted(e.replace(" ", "_").replace("-", "_")
                                                   for e in expected)
    assert len(found) >= 2


def test_aliases_carry_the_type(alzheimer):
    store, _ = alzheimer
    row = store.query("MATCH (n:drug{{:kg}} {name: 'Fosinopril'}) "
                      "RETURN n.aliases AS a, n.type AS t")
    assert row == [{"a": ["(drug) Fosinopril"], "t": "drug"}]
    gene = store.query("MATCH (n:gene__protein{{:kg}}) RETURN n.aliases AS a LIMIT 1")[0]["a"][0]
    assert gene.startswith("(gene/protein) ")


def test_reloading_the_same_files_changes_nothing(graph_server, alzheimer):
    store, path = alzheimer
    before = kg_info(store)
    _, result = load_kg(graph_server, "primekg", [path], "alzheimer", replace=False)
    assert result.skipped
    assert kg_info(store) == before


def test_diabetes_export_with_descriptions(graph_server, shared_data):
    folder = shared_data / "primekg" / "diabetes_export"
    store, result = load_kg(graph_server, "primekg", [folder], "diabetes")
    nodes = pd.read_csv(folder / "nodes.csv", dtype=str)
    edges = pd.read_csv(folder / "edges.csv", dtype=str)
    facts = set(zip(edges[":START_ID"], edges[":TYPE"], edges.display_relation, edges[":END_ID"],
                    strict=True))
    directed = facts | {(y, r, d, x) for x, r, d, y in facts}
    info = kg_info(store)
    assert info["nodes"] == len(nodes) == 1381
    assert info["relationships"] == len(directed)
    assert info["labels"] == nodes[":LABEL"].value_counts().to_dict()
    drugs = pd.read_csv(folder / "drug_features.csv", dtype=str)
    drug_id = next(i for i in drugs.node_index if i in set(nodes["node_index:ID"]))
    text = store.value("MATCH (n:Entity{{:kg}} {id: $id}) RETURN n.description", id=drug_id)
    assert text and text[:40] == drugs.set_index("node_index").description[drug_id][:40]
    # one-direction edges gain their reverse, with the target type in the relation name
    names = {r["n"] for r in store.query("MATCH (r:KgcertRelation{{:kg}} {type: 'drug_effect'}) "
                                         "RETURN r.name AS n")}
    assert names == {"side effect (effect/phenotype)", "side effect (drug)"}


def test_drug_protein_extracts_load_together(graph_server, shared_data):
    paths = [shared_data / "primekg" / f"kg_drug_protein_{s}.csv" for s in "ab"]
    store, _ = load_kg(graph_server, "primekg", paths, "drugprotein")
    nodes, edges, _ = _expected_from_kg_csv(*paths)
    info = kg_info(store)
    assert (info["nodes"], info["relationships"]) == (nodes, edges)
    displays = {r["d"] for r in store.query(
        "MATCH (:drug{{:kg}})-[r:drug_protein]->(:gene__protein{{:kg}}) "
        "RETURN DISTINCT r.display AS d")}
    assert displays == {"target", "enzyme", "carrier", "transporter"}
