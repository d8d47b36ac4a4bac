"""Parsing of a user's own triples (CSV/TSV + column mapping) into KGData (no graph server)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kgcert.errors import InputError
from kgcert.loaders import LoadOptions, get_loader
from kgcert.store.kg_data import KGData
from kgcert.util.resources import data_folder


def load(*paths: Path, **options: Any) -> KGData:
    loader = get_loader("triples", LoadOptions(**options))
    return loader.read(loader.source_files(list(paths)))


def triples(data: KGData) -> list[tuple[str, str, str]]:
    return sorted((s, rel, t) for rel, table in data.edges.items()
                  for s, t in zip(table.sources, table.targets, strict=True))


def rows(data: KGData) -> dict[str, dict[str, Any]]:
    return {row["id"]: {**row, "label": label}
            for label, table in data.nodes.items() for row in table.rows}


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_tsv_with_default_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "kg.tsv", "head\trelation\ttail\n"
                 "ada\tworks_at\tengines\n"
                 "ada\tknows\tcharles\n"
                 "ada\tworks_at\tengines\n"      # exact duplicate
                 "ada\tadmires\tcharles\n"       # parallel edge
                 "ada\tknows\tada\n")            # self-loop
    data = load(path)
    assert triples(data) == [("ada", "admires", "charles"), ("ada", "knows", "ada"),
                             ("ada", "knows", "charles"), ("ada", "works_at", "engines")]
    assert set(data.nodes) == {"Thing"}
    assert rows(data)["ada"] == {"id": "ada", "name": "ada", "aliases": ["ada"],
                                 "type": "Thing", "label": "Thing"}
    relation = {r.type: r for r in data.relations}
    assert relation["works_at"].name == "works at"
    assert relation["works_at"].sentence("Ada", "Engines") == "Ada works at Engines."
    assert relation["knows"].sentence("Ada", "Charles") == "Ada knows Charles."
    assert any("collapsed 1 exact duplicate" in n for n in data.notes)
    assert not data.problems.count


def test_csv_subject_predicate_object_with_types(tmp_path: Path) -> None:
    path = write(tmp_path / "kg.csv", "Subject,Predicate,Object,subject_type,object_type\n"
                 "aspirin,treats,headache,drug,disease\n"
                 'brca1,"associated with, strongly",cancer,gene/protein,disease\n'
                 "aspirin,interacts with,brca1,drug,\n"
                 "cancer,is a,disease class,,\n")
    data = load(path)
    assert set(data.nodes) == {"drug", "disease", "gene__protein", "Thing"}
    got = rows(data)
    assert got["brca1"]["label"] == "gene__protein" and got["brca1"]["type"] == "gene/protein"
    assert got["disease class"]["label"] == "Thing"
    assert got["cancer"]["label"] == "disease"  # the first non-empty type seen
    assert ("brca1", "associated_with__strongly", "cancer") in triples(data)
    kinds = {(r.type, r.source_type, r.target_type) for r in data.relations}
    assert ("interacts_with", "drug", "gene__protein") in kinds


def test_custom_mapping_names_and_sentences(tmp_path: Path) -> None:
    path = write(tmp_path / "facts.txt", "a|b|c|who|what|why\n"
                 "p1|born in|c1|Ada Lovelace|London|Ada Lovelace was born in London.\n"
                 "p1|lives in|c1|Ada|London|\n")
    data = load(path, settings={
        "delimiter": "|", "head": "a", "relation": "b", "tail": "c", "head_name": "who",
        "tail_name": "what", "sentence": "why", "templates": {"lives in": "{source} lives in "
                                                              "{target}."}})
    got = rows(data)
    assert got["p1"]["name"] == "Ada Lovelace" and got["c1"]["name"] == "London"
    born = data.edges["born_in"].properties
    assert born == [{"sentences": ["Ada Lovelace was born in London."]}]
    assert data.edges["lives_in"].properties == [{}]
    relation = {r.type: r for r in data.relations}
    assert relation["lives_in"].sentence("Ada", "Paris") == "Ada lives in Paris."
    assert relation["born_in"].sentence("Ada", "Paris") == "Ada born in Paris."


def test_no_header(tmp_path: Path) -> None:
    three = write(tmp_path / "kg.tsv", "x\tr\ty\ny\tr\tz\n")
    data = load(three, settings={"header": False})
    assert triples(data) == [("x", "r", "y"), ("y", "r", "z")]
    # With a header row read as data, "head" would be an entity; here it is not.
    assert "head" not in rows(data)
    five = write(tmp_path / "typed.csv", "x,r,y,A,B\ny,r,z,B,\n")
    with pytest.raises(InputError, match="5 columns and no header.*columns="):
        load(five, settings={"header": "false"})
    data = load(five, settings={"header": "false",
                                "columns": ["s", "p", "o", "head_type", "tail_type"],
                                "head": "s", "relation": "p", "tail": "o"})
    assert {k: v["label"] for k, v in rows(data).items()} == {"x": "A", "y": "B", "z": "Thing"}


def test_mapping_yaml(tmp_path: Path) -> None:
    example = data_folder("loaders") / "triples_example.yaml"
    assert example.is_file()
    mapping = tmp_path / "mapping.yaml"
    shutil.copy(example, mapping)
    with mapping.open("a", encoding="utf-8") as handle:
        handle.write("files: [people.tsv]\n")
    write(tmp_path / "people.tsv",
          "person\tlink\tother\tperson_kind\tother_kind\tperson_name\tother_name\n"
          "p1\tworks_at\to1\tPerson\tOrganization\tAda Lovelace\tAnalytical Engines\n"
          "p1\tborn_in\tc1\tPerson\tCity\tAda Lovelace\tLondon\n"
          "p2\tknows\tp1\tPerson\tPerson\tCharles Babbage\t\n")
    loader = get_loader("triples")
    files = loader.source_files([mapping])
    assert [f.name for f in files] == ["people.tsv", "mapping.yaml"]  # the mapping is a source
    data = loader.read(files)
    assert data.counts()["labels"] == {"City": 1, "Organization": 1, "Person": 2}
    relation = {r.type: r for r in data.relations}
    assert relation["born_in"].name == "was born in"
    assert relation["works_at"].sentence("Ada", "AE") == "Ada works at AE."
    # A setting on the command line overrides the YAML.
    data = load(mapping, settings={"default_type": "Entity_", "head_type": "",
                                   "tail_type": "", "tail_name": "person_name"})
    assert set(data.nodes) == {"Entity_"}
    assert rows(data)["c1"]["name"] == "Ada Lovelace"  # first name given for c1 now


def test_triples_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load(tmp_path / "absent.tsv")
    wrong = write(tmp_path / "wrong.tsv", "head\tpredicate_x\ttail\na\tr\tb\n")
    with pytest.raises(InputError, match=r"missing relation column.*found head, predicate_x"):
        load(wrong)
    with pytest.raises(InputError, match="missing column 'rel' .mapped to relation"):
        load(wrong, settings={"relation": "rel"})
    bad = write(tmp_path / "bad.csv", "head,relation,tail\na,r,b\na,r\n,r,c\nb,r,c,extra\n"
                "c,r,a\n")
    data = load(bad)
    assert triples(data) == [("a", "r", "b"), ("c", "r", "a")]
    assert data.problems.count == 3
    assert data.problems.examples == ["bad.csv:3 (2 fields, expected 3)", "bad.csv:4 (empty head)",
                                      "bad.csv:5 (4 fields, expected 3)"]
    with pytest.raises(InputError, match=r"bad.csv:3: malformed row"):
        load(bad, strict=True)
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"head,relation,tail\na,r,b\nb,r,caf\xe9\n")
    with pytest.raises(InputError, match="not valid UTF-8 (near|at) line 3"):
        load(latin)
    with pytest.raises(InputError, match="unknown setting.*heda"):
        load(bad, settings={"heda": "x"})
    with pytest.raises(InputError, match="must contain"):
        load(bad, settings={"templates": {"r": "{source} r"}})
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(InputError, match="no .csv or .tsv"):
        load(tmp_path / "empty_dir")


def test_directory_of_tables(tmp_path: Path) -> None:
    write(tmp_path / "a.tsv", "head\trelation\ttail\nx\tr\ty\n")
    write(tmp_path / "b.csv", "subject,predicate,object\ny,s,x\n")
    write(tmp_path / "notes.md", "not a table")
    data = load(tmp_path)
    assert triples(data) == [("x", "r", "y"), ("y", "s", "x")]
