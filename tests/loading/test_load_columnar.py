"""PrimeKG, triples, WikiDataSets and neo4j-import files held as columns (loaders/columnar.py):
rows made one part at a time, and the same KG whatever the part or block size (figures:
benchmarks/bench_load_memory.py --layout primekg)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from part_checks import check_edge_parts

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loaders.columnar import ColumnEdges, ColumnNodes, stripped
from kgcert.loading.pipeline import load
from kgcert.store.kg_data import KGData
from kgcert.synth.primekg import SyntheticPrimeKG


def read(layout: str, *paths: Path, **settings: Any) -> KGData:
    loader = get_loader(layout, LoadOptions(settings=settings))
    return loader.read(loader.source_files(list(paths)))


def canonical(data: KGData) -> dict[str, Any]:
    return {
        "nodes": [(label, table.rows) for label, table in data.nodes.items()],
        "edges": [(rel, table.sources, table.targets, table.properties)
                  for rel, table in data.edges.items()],
        "relations": data.relations, "notes": data.notes,
        "problems": (data.problems.count, data.problems.examples),
    }


def check_parts(data: KGData) -> None:
    """Small parts give the rows of the whole; edge parts name their endpoints by id, each
    a node of the KG."""
    position: dict[str, int] = {}
    for label in sorted(data.nodes):
        table = data.nodes[label]
        assert isinstance(table, ColumnNodes)  # no list of rows held
        parts = list(table.parts(7))
        assert all(len(p) <= 7 for p in parts) and [r for p in parts for r in p] == table.rows
        for row in table.rows:
            position[row["id"]] = len(position)
    assert len(position) == data.node_count
    for edges in data.edges.values():
        assert isinstance(edges, ColumnEdges)
        for part in check_edge_parts(edges):  # by id: see loaders/columnar.py
            assert part.source_positions is None and part.target_positions is None
            assert all(s in position for s in part.sources)
            assert all(t in position for t in part.targets)


@pytest.fixture(scope="module")
def primekg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("primekg") / "kg.csv"
    SyntheticPrimeKG(0.002, seed=4).write_kg_csv(path)
    return path


def test_primekg_tables_are_columns_made_part_by_part(primekg: Path) -> None:
    data = read("primekg", primekg)
    assert data.edge_count > 5_000
    check_parts(data)


def test_real_primekg_extracts_as_columns(shared_data: Path) -> None:
    folder = shared_data / "primekg"
    data = read("primekg", folder / "diabetes_export")  # with descriptions, import layout
    check_parts(data)
    rows = [row for table in data.nodes.values() for row in table.rows]
    described = [row for row in rows if "description" in row]
    assert described and len(described) < len(rows)  # absent, not empty, where none
    assert all(row["description"] for row in described)
    check_parts(read("primekg", folder / "kg_drug_protein_a.csv", folder / "kg_drug_protein_b.csv"))


def write_triples(path: Path, rows: int, seed: int) -> Path:
    """Triples with the corners a reader must keep: duplicates, type conflicts, names and
    sentences on some rows only, padding that str.strip() removes, non-ASCII text."""
    rng = random.Random(seed)
    entities = [f"{rng.choice(['ada', ' Émile', 'b', '日本'])}{i}{rng.choice(['', ' '])}"
                for i in range(rows // 3)]
    lines = ["head,relation,tail,head_type,tail_type,head_name,sentence"]
    for _ in range(rows):
        line = ",".join([rng.choice(entities), rng.choice(["works_at", "knows", "Ünï "]),
                         rng.choice(entities), rng.choice(["", "Person", "Place"]),
                         rng.choice(["", "Person", "Thing\u00a0"]),
                         rng.choice(["", "Zoë", "Ada L"]), rng.choice(["", "", "Ça va."])])
        lines += [line] * rng.choice([1, 1, 1, 2])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_triples_are_the_same_whatever_the_block_size(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from kgcert.loaders import fastcsv

    path = write_triples(tmp_path / "kg.csv", 3_000, seed=1)
    mapped = {"head_type": "head_type", "tail_type": "tail_type", "head_name": "head_name",
              "sentence": "sentence"}
    whole = read("triples", path, **mapped)
    check_parts(whole)
    assert any("duplicate" in note for note in whole.notes)
    assert any("type other than its first" in note for note in whole.notes)
    monkeypatch.setattr(fastcsv, "BLOCK_BYTES", 2_000)  # dozens of blocks
    assert canonical(read("triples", path, **mapped)) == canonical(whole)


def test_triples_keep_first_names_types_and_sentences(tmp_path: Path) -> None:
    path = tmp_path / "kg.csv"
    path.write_text("head,relation,tail,head_type,head_name,sentence\n"
                    "a,r,b,,,\n"
                    "a,r,b,T,Ann,later\n"  # a duplicate: the first sentence (none) stays
                    " c ,r,a,U,Cé,C r a.\n"
                    "c,s,a,V,,\n", encoding="utf-8")
    data = read("triples", path, head_type="head_type", head_name="head_name",
                sentence="sentence")
    rows = {row["id"]: row for table in data.nodes.values() for row in table.rows}
    # a: first met unnamed, so named by its id; its first type is T
    assert rows["a"] == {"id": "a", "name": "a", "aliases": ["a"], "type": "T"}
    assert rows["b"]["type"] == "Thing"
    assert rows["c"]["name"] == "Ce" and rows["c"]["type"] == "U"
    edges = {rel: list(zip(t.sources, t.targets, t.properties or [], strict=True))
             for rel, t in data.edges.items()}
    assert edges == {"r": [("a", "b", {}), ("c", "a", {"sentences": ["C r a."]})],
                     "s": [("c", "a", {})]}
    assert any(note.startswith("1 rows give an entity a type") for note in data.notes)


def test_stripping_is_python_strip() -> None:
    import pyarrow as pa

    values = ["a", " b ", "\u00a0c\u3000", "d\u2028", "\u200be", "", "   "]
    assert stripped(pa.array(values)).to_pylist() == [v.strip() for v in values]


def _content(store: Any) -> tuple[list, list]:
    nodes = store.query("MATCH (n:Entity) RETURN labels(n) AS l, properties(n) AS p")
    edges = store.query("MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS s, b.id AS d, "
                        "properties(r) AS p")
    def key(rows: list) -> list:
        return sorted(repr(sorted((k, repr(v)) for k, v in r.items())) for r in rows)
    return key(nodes), key(edges)


def test_parts_of_a_few_rows_write_the_same_kg(embedded_server, primekg: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from kgcert.store import kg_data

    triples = write_triples(tmp_path / "kg.csv", 400, seed=2)
    for layout, path in (("primekg", primekg), ("triples", triples)):
        loader = get_loader(layout, LoadOptions())
        load(embedded_server, loader, [path], f"{layout}-whole", replace=True)
        with monkeypatch.context() as patched:
            patched.setattr(kg_data, "NODE_PART", 7)
            patched.setattr(kg_data, "EDGE_PART", 13)
            load(embedded_server, loader, [path], f"{layout}-parts", replace=True)
        assert _content(embedded_server.open(f"{layout}-parts")) == \
            _content(embedded_server.open(f"{layout}-whole"))


def test_wikidatasets_and_neo4j_import_tables_are_columns(shared_data: Path) -> None:
    countries = read("wikidatasets", shared_data / "countries")
    assert countries.edge_count == 63_313  # every fact, parallel edges and self-loops too
    check_parts(countries)
    exported = read("neo4j-import", shared_data / "primekg" / "diabetes_export")
    assert exported.edge_count == 41_239
    check_parts(exported)


def test_neo4j_import_rows_keep_their_own_properties(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows gathered into columns a few at a time: a property first met in a later part,
    empty values left out, edges to absent nodes reported in file order."""
    from kgcert.loaders import gathered

    monkeypatch.setattr(gathered, "GATHER_PART", 2)
    (tmp_path / "nodes.csv").write_text(
        "id:ID,name,:LABEL,note\n"
        "a,Ann,Person,\n"
        "b,,Place,\n"
        "c,Cé,Person,late\n", encoding="utf-8")
    (tmp_path / "edges.csv").write_text(
        ":START_ID,:END_ID,:TYPE,weight\n"
        "a,b,lives_in,\n"
        "a,x,knows,1\n"
        "c,b,lives_in,2\n", encoding="utf-8")
    data = read("neo4j-import", tmp_path)
    rows = {row["id"]: row for table in data.nodes.values() for row in table.rows}
    assert rows["a"] == {"id": "a", "name": "Ann", "aliases": ["Ann"], "type": "Person"}
    assert rows["b"]["name"] == "b" and "note" not in rows["b"]
    assert rows["c"]["note"] == "late" and rows["c"]["aliases"] == ["Ce"]
    table = data.edges["lives_in"]
    assert list(zip(table.sources, table.targets, table.properties or [], strict=True)) == \
        [("a", "b", {}), ("c", "b", {"weight": "2"})]
    assert data.problems.examples == ["edges.csv:3 (endpoint x not in nodes.csv)"]
    check_parts(data)


def test_edges_with_properties_but_none_set_have_an_empty_dict_each(tmp_path: Path) -> None:
    (tmp_path / "nodes.csv").write_text("id:ID,:LABEL\na,T\nb,T\n", encoding="utf-8")
    (tmp_path / "edges.csv").write_text(":START_ID,:END_ID,:TYPE\na,b,r\nb,a,r\n",
                                        encoding="utf-8")
    table = read("neo4j-import", tmp_path).edges["r"]
    assert table.properties == [{}, {}]
    assert [p.properties for p in table.parts(1)] == [[{}], [{}]]
