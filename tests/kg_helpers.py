"""Helpers for store-facing tests: load a KG under a name the server accepts."""

from __future__ import annotations

from pathlib import Path

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import LoadResult, load
from kgcert.store.graph import GraphStore


def kg_name(server: object, wanted: str) -> str:
    """The same KG name on both servers (Neo4j keeps KGs apart by label)."""
    return wanted


def load_kg(server, fmt: str, paths: list[Path], wanted: str, replace: bool = True,
            **options) -> tuple[GraphStore, LoadResult]:
    name = kg_name(server, wanted)
    result = load(server, get_loader(fmt, LoadOptions(**options)), paths, name, replace=replace)
    return server.open(name), result


def cli_context(server, embedded_data_dir, request, monkeypatch):
    """The click context a `kgcert` command run in this process needs to reach `server`: on
    Neo4j the suite's URI (its credentials put in the environment, where kgcert reads them),
    else the test session's embedded data dir."""
    from kgcert.cli.common import Context
    from kgcert.store.neo4j_server import Neo4jServer

    if isinstance(server, Neo4jServer):
        env = request.getfixturevalue("neo4j_env")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return Context(db=env["KGCERT_NEO4J_URI"], data_dir=str(embedded_data_dir))
    return Context(db="embedded", data_dir=str(embedded_data_dir))
