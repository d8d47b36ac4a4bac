"""`kgcert drop KG` on both servers, and `kgcert info` on a KG changed since its load
(issue 46, item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kg_helpers import cli_context, load_kg

from kgcert.errors import KgcertError
from kgcert.store.neo4j_server import Neo4jServer

OWN = "not written by kgcert (drop 46)"


@pytest.fixture(scope="module")
def kg_csv(tmp_path_factory) -> Path:
    from kgcert.synth.primekg import SyntheticPrimeKG

    path = tmp_path_factory.mktemp("drop46") / "kg.csv"
    SyntheticPrimeKG(scale=0.003, seed=5).write_kg_csv(path)
    return path


@pytest.fixture
def cli(graph_server, embedded_data_dir, request, monkeypatch):
    """A `kgcert` command in this process on the server: (exit code, output)."""
    from click.testing import CliRunner


    obj = cli_context(graph_server, embedded_data_dir, request, monkeypatch)

    def call(command, *args: str) -> tuple[int, str]:
        done = CliRunner().invoke(command, list(args), obj=obj)
        if isinstance(done.exception, KgcertError):  # as the CLI's main prints it
            return done.exception.exit_code, done.output + f"error: {done.exception}\n"
        assert isinstance(done.exception, SystemExit | None), repr(done.exception)
        return done.exit_code, done.output

    return call


def _own_node(server, present: bool) -> None:
    if isinstance(server, Neo4jServer):
        query = "MERGE (:Person {name: $name})" if present else \
            "MATCH (n:Person {name: $name}) DETACH DELETE n"
        server._shared().execute(query, name=OWN)


def test_drop_removes_the_kg_and_nothing_else(graph_server, kg_csv, cli):
    from kgcert.cli.drop import drop_command

    load_kg(graph_server, "primekg", [kg_csv], "drop46")
    _own_node(graph_server, True)
    try:
        code, out = cli(drop_command, "drop46")  # not a terminal: it must be confirmed
        assert code == 2 and "pass --yes" in out, out
        assert graph_server.exists("drop46")
        code, out = cli(drop_command, "drop46", "--yes")
        assert code == 0 and "dropped KG drop46" in out, out
        assert "drop46" not in graph_server.list_kgs() and not graph_server.exists("drop46")
        if isinstance(graph_server, Neo4jServer):
            assert graph_server._shared().value(
                "MATCH (n:Person {name: $name}) RETURN count(n)", name=OWN) == 1
        code, out = cli(drop_command, "drop46", "--yes")
        assert code == 1 and "no KG named 'drop46'" in out, out
    finally:
        _own_node(graph_server, False)
        graph_server.drop("drop46")


def test_drop_refuses_while_foreign_links_point_in(graph_server, kg_csv, cli):
    from kgcert.cli.drop import drop_command

    if not isinstance(graph_server, Neo4jServer):
        pytest.skip("each embedded KG is a database of its own: nothing else links into it")
    store, _ = load_kg(graph_server, "primekg", [kg_csv], "drop46_linked")
    shared = graph_server._shared()
    shared.execute("MATCH (e:Entity{{:kg}}) WITH e LIMIT 1 "
                   "CREATE (:Person {name: $name})-[:LIKES]->(e)".replace(
                       "{{:kg}}", ":KgcertKG_drop46_linked"), name=OWN)
    try:
        before = store.value("MATCH (n{{:kg}}) RETURN count(n)")
        code, out = cli(drop_command, "drop46_linked", "--yes")
        assert code == 3 and "kgcert deletes only its own data" in out, out
        assert store.value("MATCH (n{{:kg}}) RETURN count(n)") == before
    finally:
        _own_node(graph_server, False)
        graph_server.drop("drop46_linked")


def test_info_says_a_kg_changed_since_its_load(graph_server, kg_csv, cli):
    from kgcert.cli.info import info_command
    from kgcert.cli.kg_counts import kg_info

    store, _ = load_kg(graph_server, "primekg", [kg_csv], "changed46")
    try:
        assert kg_info(store)["changed_since_load"] == []
        edges = store.value("MATCH (:Entity{{:kg}})-[r]->() RETURN count(r)")
        # Outside kgcert: every edge of one type and one label's nodes deleted.
        rel = store.value("MATCH (:Entity{{:kg}})-[r]->() RETURN type(r) LIMIT 1")
        store.execute(f"MATCH (:Entity{{{{:kg}}}})-[r:`{rel}`]->() DELETE r")
        store.execute("MATCH (n:anatomy{{:kg}}) DETACH DELETE n")
        report = kg_info(store)
        assert report["relationships"] < edges
        assert report["relationship_types"].get(rel, 0) == 0
        assert any(f"{edges:,} when loaded" in line for line in report["changed_since_load"])
        code, out = cli(info_command, "--kg", "changed46")
        assert code == 0 and "changed since its load" in out, out
        # Emptied, manifest and all: the embedded database is still there, and its report
        # says so; on Neo4j nothing of the KG is left to find.
        store.execute("MATCH (n{{:kg}}) DETACH DELETE n")
        code, out = cli(info_command, "--kg", "changed46")
        if isinstance(graph_server, Neo4jServer):
            assert code == 3 and "no KG named 'changed46'" in out, out
        else:
            assert code == 0 and "no load manifest" in out, out
    finally:
        graph_server.drop("changed46")
