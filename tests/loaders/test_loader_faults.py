"""Faults in KG files that once changed or lost data silently (issue 9): control characters,
unbalanced quotes, colliding identifiers and overlong fields. Parse only, no graph server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kgcert.errors import InputError
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loaders.fields import MAX_KEY_BYTES
from kgcert.specs.schema import KGSchema
from kgcert.store.cypher import distinct_identifiers, hashed_identifier, sanitize_identifier
from kgcert.store.kg_data import KGData

KG_HEADER = ("relation,display_relation,x_index,x_id,x_type,x_name,x_source,"
             "y_index,y_id,y_type,y_name,y_source\n")


def kg_row(x: int, y: int, *, x_type: str = "drug", x_name: str = "") -> str:
    return (f"indication,indication,{x},DB{x},{x_type},{x_name or f'Drug {x}'},DrugBank,"
            f"{y},M{y},disease,Disease {y},MONDO\n")


def read(fmt: str, *paths: Path, **options: Any) -> KGData:
    loader = get_loader(fmt, LoadOptions(**options))
    return loader.read(loader.source_files(list(paths)))


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- 1. control characters ------------------------------------------------------------------

def test_nul_in_a_type_is_a_malformed_row_not_a_junk_label(tmp_path: Path) -> None:
    path = write(tmp_path / "kg.csv", KG_HEADER + kg_row(1, 2) + kg_row(3, 4, x_type="dr\x00ug")
                 + kg_row(5, 6))
    data = read("primekg", path)
    assert sorted(data.nodes) == ["disease", "drug"]
    assert data.node_count == 4
    assert data.problems.examples == ["kg.csv:3 (control character U+0000 in x_type)"]
    with pytest.raises(InputError, match=r"^kg.csv:3: malformed row \(control character "
                                         r"U\+0000 in x_type\)$"):
        read("primekg", path, strict=True)


def test_control_characters_in_triples_and_wikidata5m(tmp_path: Path) -> None:
    triples = write(tmp_path / "kg.csv", "head,relation,tail,head_type\n"
                    "a,knows,b,Person\nc,kn\x1bows,d,Person\ne,knows,f,Per\x00son\n")
    data = read("triples", triples)
    assert sorted(data.edges) == ["knows"] and sorted(data.nodes) == ["Person", "Thing"]
    assert data.problems.examples == ["kg.csv:3 (control character U+001B in relation)",
                                      "kg.csv:4 (control character U+0000 in head_type)"]
    folder = tmp_path / "wd5m"
    folder.mkdir()
    write(folder / "wikidata5m_all_triplet.txt", "Q1\tP17\tQ2\nQ3\tP1\x007\tQ4\nQ5\tP17\tQ6\n")
    write(folder / "wikidata5m_entity.txt", "Q1\tone\nQ2\ttw\x00o\n")
    write(folder / "wikidata5m_relation.txt", "P17\tcountry\n")
    data = read("wikidata5m", folder)
    assert sorted(data.edges) == ["P17"] and data.edge_count == 2
    assert data.problems.examples == [
        "wikidata5m_all_triplet.txt:2 (control character U+0000 in relation)",
        "wikidata5m_entity.txt:2 (control character U+0000 in alias)"]


def test_sanitize_identifier_refuses_control_characters() -> None:
    with pytest.raises(ValueError, match="control character"):
        sanitize_identifier("dr\x00ug")


# --- 2. unbalanced quotes -------------------------------------------------------------------

def test_an_unbalanced_quote_is_reported_at_its_line_and_loses_no_later_row(
        tmp_path: Path) -> None:
    rows = [kg_row(i, i + 100) for i in range(1, 80)]
    rows[9] = kg_row(10, 110, x_name='"Aspirin')  # line 11: the quote never closes
    path = write(tmp_path / "kg.csv", KG_HEADER + "".join(rows))
    data = read("primekg", path)
    assert data.problems.count == 1
    assert data.problems.examples[0].startswith("kg.csv:11 (")
    assert "unbalanced quote" in data.problems.examples[0]
    assert data.node_count == 2 * 78  # every row but the one with the quote
    with pytest.raises(InputError, match=r"^kg.csv:11: malformed row .*unbalanced quote"):
        read("primekg", path, strict=True)


def test_a_quote_closed_lines_later_and_one_in_a_tsv(tmp_path: Path) -> None:
    # The quote opened on line 3 closes on line 6: lines 4-6 are rows of their own again.
    text = (KG_HEADER + kg_row(1, 2) + kg_row(3, 4, x_name='"Asp') + kg_row(5, 6)
            + kg_row(7, 8) + kg_row(9, 10, x_name='x"') + kg_row(11, 12))
    data = read("primekg", write(tmp_path / "kg.csv", text))
    assert [e.split(" ")[0] for e in data.problems.examples] == ["kg.csv:3"]
    assert data.node_count == 10
    folder = tmp_path / "wds"
    folder.mkdir()
    write(folder / "entities.tsv", "entityID\twikidataID\tlabel\n0\tQ0\tzero\n1\tQ1\t\"one\n"
          "2\tQ2\ttwo\n3\tQ3\tthree\n")
    write(folder / "relations.tsv", "relationID\twikidataID\tlabel\n0\tP1\tlinks\n")
    write(folder / "edges.tsv", "headEntity\ttailEntity\trelation\n0\t2\t0\n2\t3\t0\n")
    data = read("wikidatasets", folder)
    assert data.edge_count == 2
    assert [e.split(" ")[0] for e in data.problems.examples] == ["entities.tsv:3"]


def test_feature_texts_may_span_lines(tmp_path: Path) -> None:
    kg = write(tmp_path / "kg.csv", KG_HEADER + kg_row(1, 2))
    features = write(tmp_path / "drug_features.csv",
                     'node_index,description\n1,"Line one.\nLine two, ' + "x" * 100_000 + '"\n')
    data = read("primekg", kg, features)
    assert data.problems.count == 0
    row = next(r for r in data.nodes["drug"].rows if r["id"] == "1")
    assert row["description"].startswith("Line one.\nLine two")


# --- 3. colliding identifiers ---------------------------------------------------------------

def test_relations_and_types_that_sanitize_alike_stay_apart(tmp_path: Path) -> None:
    path = write(tmp_path / "kg.csv", "head,relation,tail,head_type,tail_type\n"
                 "a,likes-x,b,Per-son,Thing\nc,likes x,d,Per son,Thing\ne,likes_x,f,Per son,"
                 "Thing\n")
    data = read("triples", path)
    assert len(data.edges) == 3 and len(data.nodes) == 3
    by_original = {r.original: r for r in data.relations}
    assert sorted(by_original) == ["likes x", "likes-x", "likes_x"]
    assert by_original["likes_x"].type == "likes_x"  # unchanged by sanitizing: keeps its name
    assert by_original["likes-x"].type == hashed_identifier("likes-x")
    assert by_original["likes x"].name == "likes x" and by_original["likes-x"].name == "likes-x"
    for relation in data.relations:
        assert data.edges[relation.type].sources  # each names its own edges
    assert {r.source_type for r in data.relations} == {hashed_identifier("Per-son"),
                                                      hashed_identifier("Per son")}
    # a spec naming either relation finds its own type
    schema = KGSchema(labels=sorted(data.nodes), rel_types=sorted(data.edges))
    assert schema.rel_type("likes-x", "spec") == hashed_identifier("likes-x")
    assert schema.rel_type("likes x", "spec") == hashed_identifier("likes x")
    assert schema.rel_type("likes_x", "spec") == "likes_x"
    assert schema.label("Per son", "spec") == hashed_identifier("Per son")


def test_distinct_identifiers() -> None:
    names = ["gene/protein", "off-label use", "a b", "a-b", "Entity", "x"]
    found = distinct_identifiers(names, taken={"Entity", "x"})
    assert found["gene/protein"] == "gene__protein" and found["off-label use"] == "off_label_use"
    assert found["a b"] != found["a-b"] and found["a b"].startswith("a_b_")
    assert found["Entity"].startswith("Entity_") and found["x"].startswith("x_")
    assert len(set(found.values())) == len(names)
    assert distinct_identifiers(reversed(names), taken={"Entity", "x"}) == found


def test_a_type_named_like_a_kgcert_label_gets_its_own(tmp_path: Path) -> None:
    path = write(tmp_path / "kg.tsv", "head\trelation\ttail\thead_type\n"
                 "a\tEntity\tb\tKgcertManifest\n")
    data = read("triples", path)
    assert "KgcertManifest" not in data.nodes and "Entity" not in data.edges


# --- 4. overlong fields ---------------------------------------------------------------------

def test_an_overlong_name_is_a_malformed_row(tmp_path: Path) -> None:
    huge = "n" * 10_000_000
    path = write(tmp_path / "kg.csv", KG_HEADER + kg_row(1, 2) + kg_row(3, 4, x_name=huge)
                 + kg_row(5, 6, x_name="é" * (MAX_KEY_BYTES // 2)))
    data = read("primekg", path)
    assert data.node_count == 4
    assert data.problems.examples == ["kg.csv:3 (x_name is 10,000,000 bytes, over the limit of "
                                      "4,096)"]
    long_type = write(tmp_path / "t.tsv", "head\trelation\ttail\n"
                      f"a\t{'r' * 101}\tb\nc\tr\td\n")
    data = read("triples", long_type)
    assert data.problems.examples == ["t.tsv:2 (relation is 101 characters, over the limit of "
                                      "100)"]


def test_a_quoted_name_may_span_lines_but_not_swallow_rows(tmp_path: Path) -> None:
    two_line = kg_row(3, 4, x_name='"Line\nbreak"')
    swallowing = kg_row(5, 6, x_name='"Open') + kg_row(7, 8) + kg_row(9, 10, x_name='x"')
    data = read("primekg", write(tmp_path / "kg.csv",
                                 KG_HEADER + kg_row(1, 2) + two_line + swallowing))
    names = {row["id"]: row["name"] for row in data.nodes["drug"].rows}
    assert names["3"] == "Line\nbreak"
    assert [e.split(" (")[0] for e in data.problems.examples] == ["kg.csv:5"]
    assert set(names) == {"1", "3", "7", "9"}


# --- 5. repeated ids ------------------------------------------------------------------------

def test_a_repeated_node_id_in_an_import_file_is_a_malformed_row(tmp_path: Path) -> None:
    """The second row once replaced the first's label, whose rows then had none (KeyError)."""
    write(tmp_path / "nodes.csv", "id:ID,name,:LABEL\n1,one,Gene\n1,uno,Drug\n2,two,Drug\n")
    write(tmp_path / "edges.csv", ":START_ID,:END_ID,:TYPE\n1,2,targets\n")
    data = read("neo4j-import", tmp_path)
    assert {label: [r["name"] for r in table.rows] for label, table in data.nodes.items()} == {
        "Gene": ["one"], "Drug": ["two"]}
    assert data.edge_count == 1
    assert data.problems.examples == ["nodes.csv:3 (node id '1' again)"]
    with pytest.raises(InputError, match=r"^nodes.csv:3: malformed row \(node id '1' again\)$"):
        read("neo4j-import", tmp_path, strict=True)
