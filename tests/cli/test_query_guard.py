"""`kgcert query` only reads and is bounded (issue 46), on both servers.

A write in any form (a clause hidden between comments, inside a subquery, a write procedure,
schema) is refused in one line with exit 2 and changes nothing, on Neo4j the user's own nodes
beside kgcert's included; LOAD CSV reads no file; rows stream, the table stops at its cap and
says so, --limit and --timeout stop the query, Ctrl-C ends it and the server stops computing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kg_helpers import cli_context, load_kg

from kgcert.errors import KgcertError
from kgcert.store.neo4j_server import Neo4jServer

KG = "q_guard"
# Never finishes: 440^4 rows of string concatenation on the small KG (more on Neo4j, whose
# database holds other tests' KGs too). The marker finds it among the server's transactions.
ENDLESS = ("MATCH (a), (b), (c), (d) WHERE a.name + b.name + c.name + d.name = 'endless-46' "
           "RETURN count(*) AS n")
WRITES = [
    "MATCH (n) DETACH DELETE n",
    "MATCH (n:Person) DETACH DELETE n",
    "match (n) /* a comment */ detach // another\n delete n",
    "MATCH (n) WHERE n.name = '/*' DETACH DELETE n //*/ RETURN n",
    "MATCH (n) CALL { WITH n DETACH DELETE n } RETURN count(*) AS c",
    "MATCH (n) SET n.name = 'changed'",
    "MATCH (n) REMOVE n.name",
    "MERGE (n:Person {name: 'new'})",
    "UNWIND [1, 2] AS x CREATE (:Person {x: x})",
    "FOREACH (x IN [1] | CREATE (:Person {x: x}))",
    "CREATE INDEX kgcert_46 FOR (n:Person) ON (n.name)",
]


@pytest.fixture(scope="module")
def guarded(graph_server, tmp_path_factory) -> Iterator[tuple[object, dict[str, str]]]:
    """A small KG on the server, and on Neo4j a node of the user's own beside it; yields the
    server and the environment a `kgcert` process needs to reach it."""
    from kgcert.synth.primekg import SyntheticPrimeKG

    root = tmp_path_factory.mktemp("q-guard")
    SyntheticPrimeKG(scale=0.003, seed=5).write_kg_csv(root / "kg.csv")
    load_kg(graph_server, "primekg", [root / "kg.csv"], KG)
    if isinstance(graph_server, Neo4jServer):
        graph_server._shared().execute("MERGE (:Person {name: 'not written by kgcert 46'})")
    yield graph_server
    if isinstance(graph_server, Neo4jServer):
        graph_server._shared().execute(
            "MATCH (n:Person {name: 'not written by kgcert 46'}) DELETE n")
    graph_server.drop(KG)


@pytest.fixture
def query(guarded, embedded_data_dir, request, monkeypatch):
    """`kgcert query ARGS --kg q_guard` in this process: (exit code, stdout + stderr)."""
    from click.testing import CliRunner

    from kgcert.cli.query import query_command

    obj = cli_context(guarded, embedded_data_dir, request, monkeypatch)

    def call(*args: str) -> tuple[int, str]:
        """As the CLI's main would: a KgcertError is its exit code and its one line."""
        done = CliRunner().invoke(query_command, [*args, "--kg", KG], obj=obj)
        if isinstance(done.exception, KgcertError):
            return done.exception.exit_code, done.output + f"error: {done.exception}\n"
        raised = "" if isinstance(done.exception, SystemExit | None) else repr(done.exception)
        return done.exit_code, done.output + raised

    return call


def _state(server) -> tuple[int, int, int, list[str]]:
    """All the database holds, whoever wrote it: nodes, edges, names, indexes."""
    store = server._shared() if isinstance(server, Neo4jServer) else server.store(KG)
    [(nodes, names)] = store.rows("MATCH (n) RETURN count(n), count(n.name)")
    [(edges,)] = store.rows("MATCH ()-[r]->() RETURN count(r)")
    if isinstance(server, Neo4jServer):
        indexes = sorted(row["name"] for row in store.query("SHOW INDEXES YIELD name"))
    else:
        indexes = sorted(str(index.getName()) for index in
                         server._server._java_server.getDatabase(KG).getSchema().getIndexes())
    return nodes, edges, names, indexes


@pytest.mark.parametrize("cypher", WRITES)
def test_a_write_is_refused_and_changes_nothing(guarded, query, cypher):
    before = _state(guarded)
    code, out = query(cypher)
    assert code == 2, out
    assert "kgcert query is read-only" in out and len(out.strip().splitlines()) == 1, out
    assert _state(guarded) == before


def test_reads_still_run(guarded, query):
    code, out = query("MATCH (n:Entity) RETURN count(n) AS n", "--json")
    assert code == 0, out
    # on Neo4j a query sees the whole database, other tests' KGs included
    assert json.loads(out) == {"n": guarded.store(KG).value("MATCH (n:Entity) RETURN count(n)")}
    code, out = query("CALL db.labels() YIELD label RETURN label", "--json")
    assert code == 0 and "Entity" in out, out


def test_every_guide_query_counts_as_a_read(guarded):
    """The embedded server's parser passes the named queries (they run there too)."""
    from kgcert.cli.query import guide_queries

    if isinstance(guarded, Neo4jServer):
        pytest.skip("Neo4j itself refuses writes in a read transaction: nothing to ask")

    for name, text in guide_queries().items():
        assert guarded.write_refusal(KG, text) is None, name


def test_load_csv_reads_no_file(guarded, query, embedded_data_dir):
    if isinstance(guarded, Neo4jServer):
        pytest.skip("Neo4j reads only its own import folder (its setting, not kgcert's)")
    secret = embedded_data_dir / "embedded" / "credentials.json"
    password = json.loads(secret.read_text())["password"]
    for url in (f"file://{secret}", str(secret)):
        code, out = query(f"LOAD CSV FROM '{url}' AS line RETURN line")
        assert code == 2, out
        assert password not in out and "LOAD CSV" in out and len(out.strip().splitlines()) == 1


def test_table_stops_at_its_cap_and_says_so(query):
    code, out = query("UNWIND range(1, 1500) AS x RETURN x")
    assert code == 0, out
    assert "the first 1,000 rows; more follow" in out
    assert "│ 1000 │" in out and "│ 1001 │" not in out


def test_the_table_shows_floats_at_six_digits_and_csv_keeps_them_all(query):
    """Issue 47 item 6: the table printed a float's 16 digits."""
    code, out = query("RETURN 1.0 / 3 AS third, 0.2502 AS bound")
    assert code == 0, out
    assert "0.333333 " in out and "0.3333333" not in out and "0.2502 " in out
    code, out = query("RETURN 1.0 / 3 AS third", "--csv")
    assert code == 0 and out.splitlines()[1].startswith("0.33333333"), out


def test_csv_and_json_print_every_row_and_limit_stops(query):
    code, out = query("UNWIND range(1, 5000) AS x RETURN x", "--csv")
    assert code == 0, out
    assert out.splitlines() == ["x", *map(str, range(1, 5001))]
    code, out = query("UNWIND range(1, 5000) AS x RETURN x", "--json", "--limit", "3")
    assert code == 0, out
    assert [json.loads(line) for line in out.splitlines()] == [{"x": 1}, {"x": 2}, {"x": 3}]


def test_a_named_query_before_writeback_says_so(query):
    code, out = query("runs")
    assert code == 1, out
    assert "run `kgcert writeback RUN` first" in out and "no rows" not in out
    code, out = query("certificates_by_lower_bound", "-p", "run=nope")
    assert code == 1 and "run nope is not written into KG 'q_guard'" in out, out


def _process_env(guarded, request, embedded_data_dir: Path, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGCERT_NEO4J")}
    if isinstance(guarded, Neo4jServer):
        env.update(request.getfixturevalue("neo4j_env"))
        env["KGCERT_DATA_DIR"] = str(tmp_path / "unused")
    else:  # the session's server holds its data dir: a copy of the KG's own
        env["KGCERT_DATA_DIR"] = str(request.getfixturevalue("cli_kg"))
    return env


def _running(server) -> list[str]:
    """The server's transactions running the endless query (Neo4j)."""
    rows = server._shared().query("SHOW TRANSACTIONS YIELD currentQuery "
                                  "WHERE currentQuery CONTAINS $marker RETURN currentQuery",
                                  marker="endless" + "-46")
    return [row["currentQuery"] for row in rows]


def _kg_of(guarded) -> str:
    return KG if isinstance(guarded, Neo4jServer) else "synth_cli"


def test_timeout_stops_the_query(guarded, request, embedded_data_dir, tmp_path):
    env = _process_env(guarded, request, embedded_data_dir, tmp_path)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "kgcert", "query", ENDLESS, "--kg",
                           _kg_of(guarded), "--timeout", "2"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert "the query ran past --timeout 2 s and was stopped" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert time.monotonic() - started < 60
    if isinstance(guarded, Neo4jServer):
        assert _gone(guarded)


def _gone(server, within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while _running(server):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_ctrl_c_ends_the_query_on_the_server(guarded, request, embedded_data_dir, tmp_path):
    env = _process_env(guarded, request, embedded_data_dir, tmp_path)
    child = subprocess.Popen([sys.executable, "-m", "kgcert", "query", ENDLESS, "--kg",
                              _kg_of(guarded)], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 90
        if isinstance(guarded, Neo4jServer):  # interrupt it while the server computes it
            while not _running(guarded):
                assert child.poll() is None and time.monotonic() < deadline, child.stderr
                time.sleep(0.2)
        else:  # the child starts its own server: give it time to start and send the query
            time.sleep(15)
            assert child.poll() is None
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = child.communicate(timeout=60)
        assert child.returncode == 130, err
        assert time.monotonic() - sent < 10
        assert err.strip() == "error: interrupted"
        if isinstance(guarded, Neo4jServer):
            assert _gone(guarded), "Neo4j still runs the interrupted query"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_write_procedures_are_refused(guarded, query):
    if isinstance(guarded, Neo4jServer):
        pytest.skip("Neo4j 5.26 without plugins has no write procedure to call")
    before = _state(guarded)
    code, out = query("CALL merge.node(['Person'], {name: 'x'})")
    assert code == 2 and "kgcert query is read-only" in out, out
    assert _state(guarded) == before


def test_the_warm_server_refuses_writes_too(cli_kg, tmp_path):
    """The check runs where the database is: in the warm server, asked over its socket."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(cli_kg, data)
    env = {k: v for k, v in os.environ.items()
           if k not in ("KGCERT_NO_SERVER",) and not k.startswith("KGCERT_NEO4J")}
    env["KGCERT_DATA_DIR"] = str(data)

    def kgcert(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kgcert", *args], env=env,
                              capture_output=True, text=True, timeout=300)

    try:
        count = "MATCH (n) RETURN count(n) AS n"
        before = kgcert("query", count, "--json")
        assert before.returncode == 0, before.stderr
        refused = kgcert("query", "MATCH (n) DETACH DELETE n")
        assert refused.returncode == 2, refused.stderr
        assert "kgcert query is read-only" in refused.stderr
        assert kgcert("query", count, "--json").stdout == before.stdout
        assert json.loads(before.stdout)["n"] > 0
    finally:
        kgcert("server", "stop")
