"""Every bad input gets one clear line naming the problem and a non-zero exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from kg_helpers import kg_name

from kgcert.errors import InputError, StoreError
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import load

KG_HEADER = ("relation,display_relation,x_index,x_id,x_type,x_name,x_source,"
             "y_index,y_id,y_type,y_name,y_source\n")
GOOD_ROW = "indication,indication,1,DB1,drug,Aspirin,DrugBank,2,M2,disease,pain,MONDO\n"


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_unknown_format_lists_the_known_ones():
    with pytest.raises(InputError, match="unknown KG format 'csvish'; known formats: neo4j-import"):
        get_loader("csvish")


def test_missing_file(tmp_path):
    loader = get_loader("primekg")
    with pytest.raises(InputError, match="file not found: .*nope.csv"):
        loader.source_files([tmp_path / "nope.csv"])


def test_misnamed_columns_are_named(tmp_path):
    path = _write(tmp_path / "kg.csv", KG_HEADER.replace("x_name", "x_label") + GOOD_ROW)
    with pytest.raises(InputError, match=r"missing column\(s\) x_name; found .*x_label"):
        get_loader("primekg").read([path])


def test_malformed_rows_are_counted_with_line_numbers(tmp_path):
    path = _write(tmp_path / "kg.csv", KG_HEADER + GOOD_ROW + "indication,broken,row\n"
                  + GOOD_ROW.replace("1,DB1", "3,DB3") + "x,y\n")
    data = get_loader("primekg").read([path])
    assert data.problems.count == 2
    assert data.problems.examples == ["kg.csv:3 (3 fields, expected 12)",
                                      "kg.csv:5 (2 fields, expected 12)"]
    assert data.node_count == 3
    with pytest.raises(InputError, match=r"kg.csv:3: malformed row \(3 fields, expected 12\)"):
        get_loader("primekg", LoadOptions(strict=True)).read([path])


def test_edge_endpoints_absent_from_the_node_file(tmp_path):
    _write(tmp_path / "nodes.csv", "node_index:ID,node_name,:LABEL,node_source\n1,A,drug,X\n"
           "2,B,disease,Y\n")
    _write(tmp_path / "edges.csv", ":START_ID,:END_ID,:TYPE,display_relation\n"
           "1,2,indication,indication\n1,99,indication,indication\n")
    data = get_loader("primekg").read(get_loader("primekg").source_files([tmp_path]))
    assert data.problems.examples == ["edges.csv:3 (endpoint 99 not in the node file)"]
    assert data.edge_count == 2  # the good fact, both directions
    with pytest.raises(InputError, match="endpoint 99 not in the node file"):
        get_loader("primekg", LoadOptions(strict=True)).read([tmp_path / "nodes.csv",
                                                               tmp_path / "edges.csv"])


def test_non_utf8_bytes(tmp_path):
    path = _write(tmp_path / "kg.csv", KG_HEADER.encode() + GOOD_ROW.encode()
                  + GOOD_ROW.replace("Aspirin", "Asp\xefrin").encode("latin-1"))
    with pytest.raises(InputError, match=r"kg.csv: not valid UTF-8 at line 3 \(byte 0xef\)"):
        get_loader("primekg").read([path])


def test_not_a_primekg_file(tmp_path):
    path = _write(tmp_path / "other.csv", "a,b,c\n1,2,3\n")
    with pytest.raises(InputError, match="not a PrimeKG file"):
        get_loader("primekg").read([path])


def test_empty_input_creates_no_kg(graph_server, tmp_path):
    path = _write(tmp_path / "kg.csv", KG_HEADER)
    name = kg_name(graph_server, "emptykg")
    with pytest.raises(InputError, match="no entities found"):
        load(graph_server, get_loader("primekg"), [path], name, replace=True)


def test_a_different_load_under_the_same_name_is_refused(graph_server, tmp_path):
    first = _write(tmp_path / "kg.csv", KG_HEADER + GOOD_ROW)
    second = _write(tmp_path / "kg2.csv", KG_HEADER + GOOD_ROW.replace("pain", "ache"))
    name = kg_name(graph_server, "twice")
    load(graph_server, get_loader("primekg"), [first], name, replace=True)
    with pytest.raises(InputError, match="already holds a different load .*--replace"):
        load(graph_server, get_loader("primekg"), [second], name)


def test_unreachable_neo4j():
    from kgcert.store.neo4j_server import Neo4jServer

    os.environ.setdefault("KGCERT_NEO4J_PASSWORD", "irrelevant")
    with pytest.raises(StoreError, match="cannot reach Neo4j at bolt://127.0.0.1:1"):
        Neo4jServer("bolt://127.0.0.1:1")


def test_wrong_credentials(embedded_server, monkeypatch):
    from kgcert.store.neo4j_server import Neo4jServer

    monkeypatch.setenv("KGCERT_NEO4J_USER", "root")
    monkeypatch.setenv("KGCERT_NEO4J_PASSWORD", "not-the-password")
    with pytest.raises(StoreError, match="refused the credentials of 'root'"):
        Neo4jServer(embedded_server.uri)


def test_missing_neo4j_password(monkeypatch):
    from kgcert.store.neo4j_server import Neo4jServer

    monkeypatch.delenv("KGCERT_NEO4J_PASSWORD", raising=False)
    with pytest.raises(StoreError, match="set KGCERT_NEO4J_PASSWORD"):
        Neo4jServer("bolt://127.0.0.1:7687")


def _cli(*args: str, data_dir: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "kgcert", *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, "KGCERT_DATA_DIR": str(data_dir), **(env or {})},
    )


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        (("load", "nosuch", "x.csv"), "error: unknown KG format 'nosuch'", 2),
        (("load", "primekg", "/no/such/file.csv"), "error: file not found: /no/such/file.csv", 2),
        (("--db", "bolt://127.0.0.1:1", "info"), "error: cannot reach Neo4j at bolt://127.0.0.1:1",
         3),
        (("load", "primekg", "x.csv", "--kg", "bad name!"),
         "error: invalid KG name 'bad name!'", 2),
    ],
)
def test_cli_errors_are_one_line(tmp_path, args, message, code):
    done = _cli(*args, data_dir=tmp_path, env={"KGCERT_NEO4J_PASSWORD": "x"})
    assert done.returncode == code
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(message)
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(("text", "message"), [
    ("", "not a PrimeKG file"),
    (KG_HEADER, "no entities found in"),
], ids=["empty", "header-only"])
def test_load_reports_unloadable_files_before_any_server_starts(tmp_path, text, message):
    """Parse errors come first: no JVM start to wait for, no data directory made."""
    path = _write(tmp_path / "kg.csv", text)
    data_dir = tmp_path / "data"
    done = _cli("load", "primekg", str(path), data_dir=data_dir)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and message in lines[0]
    assert not data_dir.exists()
