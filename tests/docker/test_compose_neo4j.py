"""docker/compose.yaml for real: the README's `docker compose` lines bring Neo4j up (waiting on
the healthcheck's cypher-shell) and take it down; in between kgcert loads the Alzheimer extract
into it with `--db`, certifies a test model on a shipped spec and writes the run back, both
from this checkout and from the kgcert image. Everything is reached on 127.0.0.1."""

from __future__ import annotations

import os
import re
import secrets
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import kgcert_process
from docker_helpers import LOCAL_KGCERT_IMAGE, docker, neo4j_image, require_image
from neo4j_helpers import _free_port

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ALZHEIMER = Path("primekg") / "kg_alzheimer_neighbourhood.csv"
SPEC = "primekg.dual_indication"


def readme_compose_lines() -> list[str]:
    """The `docker compose ...` commands of the README's Neo4j section, comments cut."""
    text = (REPO / "README.md").read_text()
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return [line for line in lines if line.startswith("docker compose ")]


def test_the_readme_brings_compose_up_waiting_and_takes_it_down():
    assert readme_compose_lines() == ["docker compose -f docker/compose.yaml up -d --wait",
                                      "docker compose -f docker/compose.yaml down"]


def _compose(line: str, env: dict[str, str]) -> None:
    done = subprocess.run(shlex.split(line), cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        logs = subprocess.run(["docker", "compose", "-f", "docker/compose.yaml", "logs"],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
        pytest.fail(f"{line} exited {done.returncode}:\n{done.stderr}\n{logs.stdout[-4000:]}")


@pytest.fixture(scope="module")
def compose_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Neo4j up through the README's lines, with this test's own project name, free ports,
    password and import folder; down (and its volume removed) after the module."""
    image = neo4j_image()
    require_image(image)
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0:
        from docker_helpers import skip_or_fail

        skip_or_fail("Docker Compose v2 (`docker compose`) is not installed")
    project = f"kgcert-test-{os.getpid()}"
    bolt = _free_port()
    env = {**os.environ, "COMPOSE_PROJECT_NAME": project, "NEO4J_IMAGE": image,
           "NEO4J_PASSWORD": secrets.token_hex(8), "NEO4J_HEAP": "512m",
           "NEO4J_PAGECACHE": "256m", "NEO4J_BOLT_PORT": str(bolt),
           "NEO4J_HTTP_PORT": str(_free_port()),
           "NEO4J_IMPORT_DIR": str(tmp_path_factory.mktemp("neo4j-import"))}
    up, down = readme_compose_lines()
    try:
        _compose(up, env)
        yield {"project": project, "bolt": str(bolt), "http": env["NEO4J_HTTP_PORT"],
               "KGCERT_NEO4J_USER": "neo4j", "KGCERT_NEO4J_PASSWORD": env["NEO4J_PASSWORD"]}
    finally:
        volumes = _volumes_of(project)
        _compose(down, env)
        # `down` keeps the database, as the README says; the test's volumes go now.
        kept = docker("volume", "ls", "-q", check=False).stdout.split()
        if volumes:
            docker("volume", "rm", *volumes, check=False)
        assert f"{project}_kgcert-neo4j-data" in kept


def _volumes_of(project: str) -> list[str]:
    """The volumes (named and anonymous) mounted by the project's containers."""
    ids = docker("ps", "-aq", "--filter", f"label=com.docker.compose.project={project}",
                 check=False).stdout.split()
    if not ids:
        return []
    mounts = docker("inspect", "--format",
                    '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}', *ids,
                    check=False).stdout.split()
    return sorted(set(mounts))


def test_neo4j_is_healthy_and_published_on_loopback_only(compose_neo4j):
    status, ports = docker(
        "ps", "--filter", f"label=com.docker.compose.project={compose_neo4j['project']}",
        "--format", "{{.Status}}\t{{.Ports}}").stdout.strip().split("\t")
    assert "(healthy)" in status
    assert sorted(ports.split(", ")) == sorted([
        f"127.0.0.1:{compose_neo4j['http']}->7474/tcp",
        f"127.0.0.1:{compose_neo4j['bolt']}->7687/tcp"])


def test_the_environment_sets_the_server_settings_and_folders(compose_neo4j):
    """NEO4J_server_memory_heap_max__size (from NEO4J_HEAP) and the image's folders, as the
    official image takes them."""
    from kgcert.store.neo4j_server import Neo4jServer

    server = Neo4jServer(f"neo4j://127.0.0.1:{compose_neo4j['bolt']}",
                         auth=("neo4j", compose_neo4j["KGCERT_NEO4J_PASSWORD"]))
    try:
        with server.driver.session() as session:
            settings = {row["name"]: row["value"] for row in session.run(
                "SHOW SETTINGS YIELD name, value WHERE name IN $names RETURN name, value",
                names=["server.memory.heap.max_size", "server.directories.import",
                       "server.directories.data",
                       "dbms.security.auth_minimum_password_length"])}
    finally:
        server.close()
    assert settings["server.directories.import"] == "/import"
    assert settings["server.directories.data"] == "/data"
    assert settings["dbms.security.auth_minimum_password_length"] == "8"
    assert settings["server.memory.heap.max_size"] == "512.00MiB", settings


@pytest.fixture(scope="module")
def alzheimer_on_compose(compose_neo4j, shared_data: Path, tmp_path_factory) -> dict[str, str]:
    """The Alzheimer extract loaded into the compose Neo4j by `kgcert --db ... load`."""
    csv = shared_data / ALZHEIMER
    if not csv.is_file():
        pytest.skip(f"real data {csv} is absent")
    uri = f"neo4j://127.0.0.1:{compose_neo4j['bolt']}"
    env = {key: compose_neo4j[key] for key in ("KGCERT_NEO4J_USER", "KGCERT_NEO4J_PASSWORD")}
    loaded = kgcert_process("--db", uri, "load", "primekg", str(csv), "--kg", "alz",
                            data_dir=tmp_path_factory.mktemp("kgcert-data"), env=env)
    assert loaded.returncode == 0, loaded.stderr
    assert re.search(r"loaded KG alz on Neo4j at \S+: 2,446 entities, 7,716 relationships",
                     loaded.stdout + loaded.stderr), loaded.stdout + loaded.stderr
    return {**env, "uri": uri}


def _samples_written_back(alz: dict[str, str], run: str, tmp_path: Path) -> int:
    counted = kgcert_process(
        "--db", alz["uri"], "query", "--csv",
        "MATCH (s:KgcertSample {run: $run}) RETURN count(s) AS n",
        "--param", f"run={run}", data_dir=tmp_path / "data", env=alz)
    assert counted.returncode == 0, counted.stderr
    return int(counted.stdout.split()[-1])


def _run_id(written: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r":param run => \"([^\"]+)\"", written.stdout + written.stderr)
    assert found, written.stdout + written.stderr
    return found.group(1)


def test_kgcert_certifies_and_writes_back_on_compose_neo4j(alzheimer_on_compose, tmp_path):
    alz = alzheimer_on_compose
    ran = kgcert_process("--db", alz["uri"], "run", "--kg", "alz", "--spec", SPEC,
                         "--model", "bernoulli:0.7", "--n", "10", "--seed", "1",
                         "--out", "runs/host", data_dir=tmp_path / "data", env=alz, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert any((tmp_path / "runs" / "host" / "certificates").iterdir())
    written = kgcert_process("--db", alz["uri"], "writeback", "runs/host",
                             data_dir=tmp_path / "data", env=alz, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert _samples_written_back(alz, _run_id(written), tmp_path) == 10


def test_the_kgcert_image_certifies_and_writes_back_on_compose_neo4j(alzheimer_on_compose,
                                                                     tmp_path):
    require_image(LOCAL_KGCERT_IMAGE)
    alz = alzheimer_on_compose
    (tmp_path / "runs").mkdir()
    in_image = ["run", "--rm", "--network", "host",
                "-e", "KGCERT_NEO4J_USER", "-e", "KGCERT_NEO4J_PASSWORD",
                "-v", f"{tmp_path / 'data'}:/data", "-v", f"{tmp_path / 'runs'}:/work/runs",
                LOCAL_KGCERT_IMAGE, "kgcert", "--db", alz["uri"]]
    credentials = ("KGCERT_NEO4J_USER", "KGCERT_NEO4J_PASSWORD")
    env = {**os.environ, **{key: alz[key] for key in credentials}}
    docker(*in_image, "run", "--kg", "alz", "--spec", SPEC, "--model", "bernoulli:0.4",
           "--n", "10", "--seed", "2", "--out", "runs/image", env=env, timeout=600)
    assert any((tmp_path / "runs" / "image" / "certificates").iterdir())
    written = docker(*in_image, "writeback", "runs/image", env=env, timeout=300)
    assert _samples_written_back(alz, _run_id(written), tmp_path) == 10
    # The README's example: the mounted runs folder listed from the image.
    listed = docker(*in_image, "runs", env=env, timeout=300)
    assert "image" in listed.stdout and SPEC in listed.stdout, listed.stdout
