"""`kgcert export neo4j-admin`: files neo4j-admin imports, read back with the csv module.

No Neo4j runs here (no Docker), so the files are checked by parsing them back; by loading
them with kgcert's own `neo4j-import` loader into the embedded server and comparing with a
direct load; by rebuilding, over Cypher, the graph neo4j-admin would build from them (typed
columns, arrays, labels) and comparing it whole with the direct load; and by running
import.sh against a stand-in neo4j-admin that records its argv.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from kg_helpers import load_kg

from kgcert.cli.export import export_group
from kgcert.cli.kg_counts import kg_info
from kgcert.errors import InputError
from kgcert.export import ImportFiles, read_source, write_neo4j_admin
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.manifest import COMPLETE, Manifest
from kgcert.loading.pipeline import load
from kgcert.store.bulk import SCHEMA_STATEMENTS, edge_statement
from kgcert.store.cypher import kg_label, statement
from kgcert.store.kg_data import KGData, RelationInfo
from kgcert.synth.primekg import SyntheticPrimeKG

TRICKY_NAMES = ['Comma, "quoted" name', "semi;colon; alias", "two\nlines", "back\\slash 'x'"]


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    opener: Any = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        header_line = handle.readline()
        rows = list(csv.reader(handle))
    assert '"' not in header_line  # kgcert's own reader splits the header on commas
    return header_line.rstrip("\n").split(","), rows


def _raw(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _read(fmt: str, paths: list[Path], kg: str = "exported") -> tuple[KGData, Manifest]:
    return read_source(get_loader(fmt, LoadOptions()), paths, kg)


@pytest.fixture(scope="module")
def synthetic_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("synth") / "kg.csv"
    SyntheticPrimeKG(scale=0.002, seed=3).write_kg_csv(path)
    return path


@pytest.fixture(scope="module")
def tricky_csv(synthetic_csv: Path, tmp_path_factory) -> Path:
    """The synthetic kg.csv with commas, quotes, semicolons and a line break in names."""
    with synthetic_csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    renamed = {}
    for row in rows:
        for side in ("x", "y"):
            node = row[f"{side}_index"]
            if node not in renamed and len(renamed) < len(TRICKY_NAMES):
                renamed[node] = TRICKY_NAMES[len(renamed)]
            if node in renamed:
                row[f"{side}_name"] = renamed[node]
    path = tmp_path_factory.mktemp("tricky") / "kg.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _alzheimer(shared_data: Path) -> Path:
    return shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"


def check_files(files: ImportFiles, data: KGData, manifest: Manifest) -> set[str]:
    """Every file parses back to exactly the KGData; returns the entity ids."""
    delimiter = files.array_delimiter
    ids: set[str] = set()
    for label, path in files.node_files.items():
        header, rows = _rows(path)
        assert header[:4] == ["id:ID(Entity)", "name", "type", "aliases:string[]"]
        assert header[-1] == ":LABEL"
        table = data.nodes[label].rows
        assert len(rows) == len(table)
        for row, original in zip(rows, table, strict=True):
            assert len(row) == len(header)
            assert row[0] == original["id"] and row[1] == original["name"]
            assert row[2] == original["type"]
            assert row[3].split(delimiter) == original["aliases"]
            assert row[-1].split(delimiter) == [label, "Entity", kg_label(manifest.kg)]
            ids.add(row[0])
    assert len(ids) == data.node_count  # unique across files
    for rel_type, path in files.relationship_files.items():
        header, rows = _rows(path)
        assert header[:3] == [":START_ID(Entity)", ":END_ID(Entity)", ":TYPE"]
        table = data.edges[rel_type]
        assert len(rows) == len(table)
        assert [(r[0], r[1]) for r in rows] == list(zip(table.sources, table.targets, strict=True))
        assert {r[2] for r in rows} == {rel_type}
        assert all(r[0] in ids and r[1] in ids for r in rows)
        if table.properties:
            keys = header[3:]
            got = [{k: v for k, v in zip(keys, r[3:], strict=True) if v} for r in rows]
            assert got == table.properties
    *relation_files, manifest_file = files.meta_node_files
    if data.relations:
        header, rows = _rows(relation_files[0])
        assert header[0] == ":ID(KgcertRelation)" and header[-1] == ":LABEL"
        assert len(rows) == len(data.relations)
        assert {r[-1] for r in rows} == {f"KgcertRelation{delimiter}{kg_label(manifest.kg)}"}
    header, rows = _rows(manifest_file)
    assert header[0] == ":ID(KgcertManifest)" and len(rows) == 1
    written = dict(zip(header, rows[0], strict=True))
    assert written[":LABEL"] == f"KgcertManifest{delimiter}{kg_label(manifest.kg)}"
    assert written["status"] == COMPLETE
    assert written["fingerprint"] == manifest.fingerprint
    assert json.loads(written["counts"]) == data.counts()
    assert json.loads(written["files"]) == manifest.files
    return ids


def test_synthetic_export_matches_the_data(synthetic_csv, tmp_path):
    data, manifest = _read("primekg", [synthetic_csv])
    files = write_neo4j_admin(data, manifest, tmp_path / "out")
    check_files(files, data, manifest)
    assert files.array_delimiter == ";" and not files.multiline
    assert manifest.status != COMPLETE  # the caller's manifest is left alone
    assert files.manifest.counts == data.counts()


def test_commas_quotes_semicolons_and_line_breaks_survive(tricky_csv, tmp_path):
    data, manifest = _read("primekg", [tricky_csv])
    files = write_neo4j_admin(data, manifest, tmp_path / "out", compress=True)
    ids = check_files(files, data, manifest)
    # Aliases hold ';' now, so another array delimiter; a name holds a line break.
    assert files.array_delimiter == "|"
    assert files.multiline and "--multiline-fields=true" in files.command
    assert "--array-delimiter=|" in files.command
    names = set()
    for path in files.node_files.values():
        assert path.name.endswith(".csv.gz")
        header, rows = _rows(path)
        names |= {r[1] for r in rows}
    assert set(TRICKY_NAMES) <= names and len(ids) == data.node_count


def test_alzheimer_extract_export_matches_the_data(shared_data, tmp_path):
    data, manifest = _read("primekg", [_alzheimer(shared_data)])
    files = write_neo4j_admin(data, manifest, tmp_path / "out")
    ids = check_files(files, data, manifest)
    assert (len(ids), data.edge_count) == (2446, 7716)
    assert any("," in name for path in files.node_files.values() for name in
               (r[1] for r in _rows(path)[1]))


def test_edge_properties_survive(shared_data, tmp_path):
    """drug_protein edges carry their display relation (target, enzyme, carrier, ...)."""
    data, manifest = _read("primekg", [shared_data / "primekg" / "kg_drug_protein_a.csv"])
    files = write_neo4j_admin(data, manifest, tmp_path / "out")
    check_files(files, data, manifest)
    header, rows = _rows(files.relationship_files["drug_protein"])
    assert header == [":START_ID(Entity)", ":END_ID(Entity)", ":TYPE", "display"]
    assert {r[3] for r in rows} == {"target", "enzyme", "carrier", "transporter"}


def _combined_layout(files: ImportFiles, folder: Path) -> Path:
    """One nodes.csv and one edges.csv, the layout kgcert's `neo4j-import` loader reads."""
    folder.mkdir()
    tables = [_rows(p) for p in files.node_files.values()]
    columns = list(dict.fromkeys(c for header, _ in tables for c in header))
    with (folder / "nodes.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for header, rows in tables:
            for row in rows:
                values = dict(zip(header, row, strict=True))
                values[":LABEL"] = ";".join(values[":LABEL"].split(files.array_delimiter))
                writer.writerow([values.get(c, "") for c in columns])
    edge_tables = [_rows(p) for p in files.relationship_files.values()]
    columns = list(dict.fromkeys(c for header, _ in edge_tables for c in header))
    with (folder / "edges.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for header, rows in edge_tables:
            for row in rows:
                values = dict(zip(header, row, strict=True))
                writer.writerow([values.get(c, "") for c in columns])
    return folder


def _names(store) -> dict[str, str]:
    rows = store.query("MATCH (n:Entity) RETURN n.id AS id, n.name AS name")
    return {r["id"]: r["name"] for r in rows}


def _typed(value: str, kind: str, delimiter: str) -> Any:
    if kind.endswith("[]"):
        return [_typed(v, kind[:-2], delimiter) for v in value.split(delimiter)]
    parse: Any = {"long": int, "double": float, "boolean": lambda v: v == "true"}.get(kind, str)
    return parse(value)


def _parse(path: Path, delimiter: str) -> Iterator[tuple[dict[str, str], dict[str, Any]]]:
    """(roles, properties) per row, read as neo4j-admin reads a file, empty = missing."""
    header, rows = _rows(path)
    for row in rows:
        roles: dict[str, str] = {}
        props: dict[str, Any] = {}
        for column, value in zip(header, row, strict=True):
            name, _, kind = column.partition(":")
            role = kind.split("(")[0]
            if role in ("ID", "START_ID", "END_ID", "TYPE", "LABEL"):
                roles[role] = value
                if role == "ID" and name:
                    props[name] = value
            elif value != "":
                props[name] = _typed(value, kind or "string", delimiter)
        yield roles, props


def _simulated_import(server, files: ImportFiles, kg: str):
    """What neo4j-admin builds from the files, then schema.cypher, redone over Cypher. Each KG
    has its own database on the embedded server, so the KG label every row carries for a
    shared Neo4j database is left out (tests/store/test_neo4j.py imports into a real Neo4j)."""
    store = server.create(kg)
    for name in SCHEMA_STATEMENTS:
        store.execute(statement("schema", name))
    delimiter = files.array_delimiter
    for path in files.all_node_files:
        by_labels: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for roles, props in _parse(path, delimiter):
            labels = [x for x in roles["LABEL"].split(delimiter) if x != kg_label(kg)]
            by_labels.setdefault(tuple(labels), []).append(props)
        for labels, rows in by_labels.items():
            store.execute(f"UNWIND $rows AS row CREATE (n:{':'.join(labels)}) SET n = row",
                          rows=rows)
    for rel_type, path in files.relationship_files.items():
        rows = [{"s": r["START_ID"], "t": r["END_ID"], "p": p} for r, p in _parse(path, delimiter)]
        assert {r["TYPE"] for r, _ in _parse(path, delimiter)} == {rel_type}
        keys = sorted({key for row in rows for key in row["p"]})
        store.execute(edge_statement(rel_type, keys), rows=rows)
    return store


def _graph(store) -> tuple[dict[str, Any], Counter[str], list[str]]:
    """Entities (labels, properties without empty strings), edges, relation nodes."""
    entities = {
        r["id"]: (sorted(r["labels"]), {k: v for k, v in r["p"].items() if v != ""})
        for r in store.query("MATCH (n:Entity) RETURN n.id AS id, labels(n) AS labels, "
                             "properties(n) AS p")
    }
    edges = Counter(json.dumps(r, sort_keys=True) for r in store.query(
        "MATCH (a:Entity)-[e]->(b:Entity) RETURN a.id AS s, b.id AS t, type(e) AS type, "
        "properties(e) AS p"))
    relations = sorted(json.dumps(r["relation"], sort_keys=True)
                       for r in store.query(statement("info", "relations")))
    return entities, edges, relations


def _round_trip(embedded_server, sources: list[Path], tmp_path: Path, tag: str) -> None:
    data, manifest = _read("primekg", sources, kg=f"export_admin_{tag}")
    files = write_neo4j_admin(data, manifest, tmp_path / "out")
    direct, _ = load_kg(embedded_server, "primekg", sources, f"export_direct_{tag}")
    want = kg_info(direct)
    # 1. kgcert's own neo4j-import loader reads the exported rows (one nodes.csv + edges.csv).
    combined = _combined_layout(files, tmp_path / "combined")
    again, _ = load_kg(embedded_server, "neo4j-import", [combined], f"export_rt_{tag}")
    got = kg_info(again)
    assert got["nodes"] == want["nodes"] == data.node_count
    assert got["relationships"] == want["relationships"] == data.edge_count
    assert got["labels"] == want["labels"] == data.counts()["labels"]
    assert got["relationship_types"] == want["relationship_types"]
    assert _names(again) == _names(direct)
    # 2. The whole graph as neo4j-admin would build it equals the direct load: labels,
    # properties, edges with properties, relation nodes and a complete manifest.
    admin = _simulated_import(embedded_server, files, f"export_admin_{tag}")
    entities, edges, relations = _graph(direct)
    assert len(entities) == data.node_count and sum(edges.values()) == data.edge_count
    assert len(relations) == len(data.relations)
    assert _graph(admin) == (entities, edges, relations)
    info = kg_info(admin)
    assert {k: info[k] for k in ("nodes", "relationships", "labels", "relationship_types")} == {
        k: want[k] for k in ("nodes", "relationships", "labels", "relationship_types")}
    assert info["manifest"]["status"] == COMPLETE
    assert info["manifest"]["fingerprint"] == want["manifest"]["fingerprint"]
    assert info["manifest"]["counts"] == want["manifest"]["counts"]
    # `kgcert load` of the same files finds the imported KG already loaded.
    loader = get_loader("primekg", LoadOptions())
    assert load(embedded_server, loader, sources, f"export_admin_{tag}").skipped


def test_round_trip_synthetic_through_the_neo4j_import_loader(embedded_server, tricky_csv,
                                                               tmp_path):
    _round_trip(embedded_server, [tricky_csv], tmp_path, "synth")


def test_round_trip_alzheimer_through_the_neo4j_import_loader(embedded_server, shared_data,
                                                               tmp_path):
    # With drug-protein facts, whose edges carry their display relation as a property.
    sources = [_alzheimer(shared_data), shared_data / "primekg" / "kg_drug_protein_a.csv"]
    _round_trip(embedded_server, sources, tmp_path, "alz")


def _script_files(script: Path) -> Iterator[tuple[str, Path]]:
    for option, relative in re.findall(r'--(nodes|relationships)="\$here/([^"]+)"',
                                       script.read_text(encoding="utf-8")):
        yield option, script.parent / relative


def test_import_script_names_every_file_and_runs_the_command(synthetic_csv, tmp_path):
    data, manifest = _read("primekg", [synthetic_csv], kg="neo4j")
    out = tmp_path / "out"
    files = write_neo4j_admin(data, manifest, out)
    listed = list(_script_files(files.script))
    assert [p for o, p in listed if o == "nodes"] == files.all_node_files
    assert [p for o, p in listed if o == "relationships"] == list(
        files.relationship_files.values())
    on_disk = {p for p in out.rglob("*.csv")}
    assert {p for _, p in listed} == on_disk
    assert len(files.node_files) == len(data.nodes) and len(files.relationship_files) == len(
        data.edges)
    assert files.meta_node_files == [out / "kgcert" / "relations.csv",
                                     out / "kgcert" / "manifest.csv"]
    assert files.script.stat().st_mode & stat.S_IXUSR
    subprocess.run(["bash", "-n", str(files.script)], check=True)
    # A stand-in neo4j-admin records the argv import.sh hands it.
    fake = tmp_path / "neo4j-admin"
    fake.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "$ARGV_FILE"\n')
    fake.chmod(0o755)
    argv_file = tmp_path / "argv.txt"
    env = {**os.environ, "NEO4J_ADMIN": str(fake), "ARGV_FILE": str(argv_file)}
    subprocess.run([str(files.script)], check=True, env=env, cwd=tmp_path)
    argv = argv_file.read_text(encoding="utf-8").splitlines()
    assert argv == files.command[1:]
    assert argv[:5] == ["database", "import", "full", "neo4j", "--overwrite-destination"]
    assert "--array-delimiter=;" in argv and "--multiline-fields=true" not in argv
    steps = _raw(files.next_steps)
    assert "cypher-shell" in steps and "FOR (n:`KgcertKG_neo4j`) ON (n.id)" in steps
    assert "kgcert_entity_name" in _raw(files.schema)
    assert all(line.endswith(";") for line in _raw(files.schema).splitlines()
               if line and not line.startswith("//"))


def _typed_kg() -> tuple[KGData, Manifest]:
    data = KGData()
    data.node_table("Thing").rows.extend([
        {"id": "a", "name": "A", "type": "Thing", "aliases": ["A", "a"], "n": 1, "x": 1.5,
         "flag": True, "nums": [1, 2], "mixed": "text", "empty": ""},
        {"id": "b", "name": "B", "type": "Thing", "aliases": [], "n": 2, "x": 2,
         "flag": False, "mixed": 3},
    ])
    edges = data.edge_table("LINKS", with_properties=True)
    edges.sources += ["a", "b"]
    edges.targets += ["b", "a"]
    assert edges.properties is not None
    edges.properties += [{"sentences": ["one", "two"], "w": 0.5}, {}]
    data.relations.append(RelationInfo("LINKS", "Thing", "Thing", "links", "links (Thing)"))
    manifest = Manifest(kg="typed", format="test", loader_version="1", options={}, files=[])
    return data, manifest


def test_column_types_missing_values_and_empty_strings(tmp_path):
    data, manifest = _typed_kg()
    files = write_neo4j_admin(data, manifest, tmp_path / "out")
    lines = _raw(files.node_files["Thing"]).splitlines()
    assert lines[0] == ("id:ID(Entity),name,type,aliases:string[],empty,flag:boolean,mixed,"
                        "n:long,nums:long[],x:double,:LABEL")
    assert lines[1] == ('"a","A","Thing","A;a","",true,"text",1,"1;2",1.5,'
                        '"Thing;Entity;KgcertKG_typed"')
    # An empty list and absent keys are missing (bare empty); "" stays an empty string.
    assert lines[2] == '"b","B","Thing",,,false,"3",2,,2.0,"Thing;Entity;KgcertKG_typed"'
    edge_lines = _raw(files.relationship_files["LINKS"]).splitlines()
    assert edge_lines == [":START_ID(Entity),:END_ID(Entity),:TYPE,sentences:string[],w:double",
                          '"a","b","LINKS","one;two",0.5', '"b","a","LINKS",,']


def test_refusals(tmp_path):
    data, manifest = _typed_kg()
    out = tmp_path / "out"
    write_neo4j_admin(data, manifest, out)
    with pytest.raises(InputError, match="not empty"):
        write_neo4j_admin(data, manifest, out)
    (out / "nodes" / "Stale.csv").write_text("old")
    write_neo4j_admin(data, manifest, out, overwrite=True, compress=True)
    assert sorted(p.name for p in (out / "nodes").iterdir()) == ["Thing.csv.gz"]

    data.node_table("Thing").rows.append({"id": "a", "name": "again"})
    with pytest.raises(InputError, match="'a' appears twice"):
        write_neo4j_admin(data, manifest, tmp_path / "dup")
    data, manifest = _typed_kg()
    data.edges["LINKS"].targets[1] = "nowhere"
    with pytest.raises(InputError, match="'nowhere' is no entity id"):
        write_neo4j_admin(data, manifest, tmp_path / "dangling")
    data, manifest = _typed_kg()
    data.nodes["Thing"].rows[0]["aliases"] = [";|\x1f\x1e\x1d\x1c"]
    with pytest.raises(InputError, match="array delimiter"):
        write_neo4j_admin(data, manifest, tmp_path / "delimiters")
    data, manifest = _typed_kg()
    data.nodes["Thing"].rows[0]["bad:key"] = "x"
    with pytest.raises(InputError, match="column name"):
        write_neo4j_admin(data, manifest, tmp_path / "key")


def test_cli_writes_the_files(synthetic_csv, tmp_path):
    out = tmp_path / "out"
    runner = CliRunner()
    done = runner.invoke(export_group, ["neo4j-admin", "primekg", str(synthetic_csv), "--out",
                                        str(out), "--kg", "neo4j", "--gzip"])
    assert done.exit_code == 0, done.output
    assert "NEXT_STEPS.txt" in done.output
    assert (out / "nodes" / "drug.csv.gz").is_file() and (out / "import.sh").is_file()
    assert "database import full \\\n    neo4j \\" in _raw(out / "import.sh")
    again = runner.invoke(export_group, ["neo4j-admin", "primekg", str(synthetic_csv), "--out",
                                         str(out)])
    assert isinstance(again.exception, InputError) and "not empty" in str(again.exception)
    unknown = runner.invoke(export_group, ["neo4j-admin", "nosuch", str(synthetic_csv),
                                           "--out", str(tmp_path / "other")])
    assert isinstance(unknown.exception, InputError)
