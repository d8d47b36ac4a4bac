"""Shared pytest configuration: real data location and the graph servers tests run against."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")

pytest_plugins = ["models_fixtures"]

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA_ENV = "KGCERT_SHARED_DATA"


def shared_data_dir() -> Path | None:
    path = Path(os.environ.get(SHARED_DATA_ENV, REPO.parent / "shared" / "data"))
    return path if path.is_dir() else None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip(f"real KG extracts not found (set {SHARED_DATA_ENV} or place ../shared/data)")
    return path


@pytest.fixture(scope="session")
def embedded_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kgcert-data")


@pytest.fixture(scope="session")
def embedded_server(embedded_data_dir: Path):
    from kgcert.store.embedded import start_embedded

    server = start_embedded(embedded_data_dir)
    yield server
    server.close()


def _neo4j_server() -> Iterator[object]:
    from kgcert.store.neo4j_server import Neo4jServer

    if os.environ.get("KGCERT_NEO4J_URI"):
        server = Neo4jServer(os.environ["KGCERT_NEO4J_URI"])
        yield server
        server.close()
        return
    if shutil.which("docker") is None:
        pytest.skip("no Neo4j: set KGCERT_NEO4J_URI, or install Docker for testcontainers")
    try:
        from testcontainers.community.neo4j import Neo4jContainer  # type: ignore[import-not-found]
    except ImportError:
        pytest.skip("no Neo4j: testcontainers is not installed (pip install 'kgcert[test]')")
    try:
        container = Neo4jContainer("neo4j:5.26").start()
    except Exception as error:  # no Docker engine answering: skip, say why
        pytest.skip(f"no Neo4j: Docker could not start neo4j:5.26 ({type(error).__name__})")
    os.environ["KGCERT_NEO4J_USER"] = "neo4j"
    os.environ["KGCERT_NEO4J_PASSWORD"] = container.password
    server = Neo4jServer(container.get_connection_url())
    yield server
    server.close()
    container.stop()


@pytest.fixture(scope="session", params=["embedded", "neo4j"])
def graph_server(request: pytest.FixtureRequest, embedded_server):
    """Each store-facing test runs on the embedded server and, when one answers, on Neo4j."""
    if request.param == "embedded":
        yield embedded_server
    else:
        yield from _neo4j_server()


_exit_status = {"code": 0}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _exit_status["code"] = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave like the CLI does: stop the embedded server, then exit without JVM teardown,
    which crashed the test process now and then after every test had passed (exit 139)."""
    import sys

    if "kgcert.store.embedded" in sys.modules:
        from kgcert.store.embedded import exit_now

        exit_now(_exit_status["code"])
