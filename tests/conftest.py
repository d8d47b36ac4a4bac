"""Shared pytest configuration: real data location and the graph servers tests run against."""

from __future__ import annotations

import contextlib
import faulthandler
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from docker_helpers import docker_missing, neo4j_image, skip_or_fail, wait_for_ci_docker
from neo4j_helpers import SHARED_NEO4J, shared_neo4j

os.environ.setdefault("OMP_NUM_THREADS", "1")
# Tests run the embedded server in-process (and so do the `python -m kgcert` they start), never
# a warm background server; tests/store/test_warm_server.py removes this for its own commands.
os.environ["KGCERT_NO_SERVER"] = "1"
# kgcert's cache (parsed patterns, default response cache) goes to a folder of this session's,
# never the user's ~/.cache.
os.environ["KGCERT_CACHE_DIR"] = tempfile.mkdtemp(prefix="kgcert-test-cache-")

# A Neo4j named in the environment is for the Neo4j runs only: every other test (and every
# `python -m kgcert` a test starts) uses the embedded server, whatever the shell exports.
NEO4J_ENV = {name: os.environ.pop(name) for name in list(os.environ)
             if name.startswith("KGCERT_NEO4J_")}

pytest_plugins = ["models_fixtures", "tmpfs_fixture", "cli_kg_fixture", "alzheimer_kg_fixture"]

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


def _docker_neo4j() -> Iterator[dict[str, str]]:
    """Neo4j in a container through testcontainers: the image docker_helpers.neo4j_image()
    names (the locally built one where docker/build-images.sh ran), reached on a port published
    on 127.0.0.1 only, never at the container's own address."""
    missing = docker_missing()
    if missing:
        skip_or_fail(f"no Neo4j: set KGCERT_NEO4J_URI, place ../shared/neo4j, or install Docker "
                     f"({missing})")
    try:
        from testcontainers.community.neo4j import Neo4jContainer  # type: ignore[import-not-found]
        from testcontainers.core.config import (  # type: ignore[import-not-found]
            ConnectionMode,
            testcontainers_config,
        )
    except ImportError:
        skip_or_fail("no Neo4j: testcontainers is not installed (pip install 'kgcert[test]')")
    # The container is stopped below, so Ryuk (a Docker Hub image) is not needed to reap it; the
    # host is 127.0.0.1 even where this process itself runs in a container (/.dockerenv), where
    # testcontainers would otherwise go to the container's bridge address.
    testcontainers_config.ryuk_disabled = True
    testcontainers_config.connection_mode_override = ConnectionMode.docker_host
    testcontainers_config.tc_host_override = "127.0.0.1"
    image = neo4j_image()
    container = Neo4jContainer(image)
    container.ports[str(container.port)] = ("127.0.0.1",)  # a free port, on loopback only
    try:
        container.start()
    except Exception as error:  # no Docker engine answering, no image: skip, say why
        skip_or_fail(f"no Neo4j: Docker could not start {image} ({type(error).__name__}: "
                     f"{str(error).splitlines()[0] if str(error) else ''})")
    try:
        yield {"KGCERT_NEO4J_URI": container.get_connection_url(),
               "KGCERT_NEO4J_USER": "neo4j", "KGCERT_NEO4J_PASSWORD": container.password}
    finally:
        container.stop()


@pytest.fixture(scope="session")
def docker_neo4j_env() -> Iterator[dict[str, str]]:
    """The testcontainers Neo4j whatever else the session has (tests/docker checks it runs)."""
    yield from _docker_neo4j()


@pytest.fixture(scope="session")
def neo4j_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """KGCERT_NEO4J_URI/USER/PASSWORD of a Neo4j for this session: the one the environment
    named, else the server in ../shared/neo4j, else a Docker container; skip if none."""
    if NEO4J_ENV.get("KGCERT_NEO4J_URI"):
        yield dict(NEO4J_ENV)
    elif SHARED_NEO4J.is_file():
        yield from shared_neo4j(tmp_path_factory.mktemp("neo4j"))
    else:
        yield from _docker_neo4j()


@pytest.fixture(scope="session")
def neo4j_server(neo4j_env: dict[str, str]):
    from kgcert.store.neo4j_server import Neo4jServer

    server = Neo4jServer(neo4j_env["KGCERT_NEO4J_URI"],
                         auth=(neo4j_env.get("KGCERT_NEO4J_USER", "neo4j"),
                               neo4j_env["KGCERT_NEO4J_PASSWORD"]))
    yield server
    server.close()


@pytest.fixture(scope="session", params=["embedded", "neo4j"])
def graph_server(request: pytest.FixtureRequest):
    """Each store-facing test runs on the embedded server and on Neo4j."""
    yield request.getfixturevalue(f"{request.param}_server")


def pytest_configure(config: pytest.Config) -> None:
    wait_for_ci_docker()


_exit_status = {"code": 0}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _exit_status["code"] = int(exitstatus)


def _kill_leftover_children() -> None:
    import psutil

    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            child.kill()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave like the CLI does: stop the embedded server, then exit without JVM teardown,
    which crashed the test process now and then after every test had passed (exit 139).

    Whatever a failed test left behind must not hold the run open until CI's limit: a process
    left running keeps the output pipe open (so it is killed), and a stop that hangs prints
    every thread's stack and exits 1 after 10 minutes."""
    faulthandler.dump_traceback_later(600, exit=True, file=sys.__stderr__)
    _kill_leftover_children()
    if "kgcert.store.embedded" in sys.modules:
        from kgcert.store.embedded import exit_now

        exit_now(_exit_status["code"])
