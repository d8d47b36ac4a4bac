"""The suite's testcontainers path (conftest._docker_neo4j) starts Neo4j from the locally built
image and kgcert talks to it over Bolt on a port published on 127.0.0.1."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from docker_helpers import docker, neo4j_image

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def test_the_fixture_runs_neo4j_5_26_community_from_the_chosen_image(docker_neo4j_env):
    from kgcert.store.neo4j_server import Neo4jServer

    address = urlsplit(docker_neo4j_env["KGCERT_NEO4J_URI"])
    assert address.hostname == "127.0.0.1"
    # The container this fixture started is the one publishing that port, on loopback only.
    listed = docker("ps", "--filter", f"publish={address.port}", "--format",
                    "{{.Image}}\t{{.Ports}}").stdout.strip().splitlines()
    assert len(listed) == 1, listed
    image, ports = listed[0].split("\t")
    assert image == neo4j_image()
    published = [entry for entry in ports.split(", ") if "->" in entry]
    assert published == [f"127.0.0.1:{address.port}->7687/tcp"], ports
    server = Neo4jServer(docker_neo4j_env["KGCERT_NEO4J_URI"],
                         auth=("neo4j", docker_neo4j_env["KGCERT_NEO4J_PASSWORD"]))
    try:
        with server.driver.session() as session:
            component = session.run("CALL dbms.components() YIELD name, versions, edition "
                                    "RETURN versions[0] AS version, edition").single()
    finally:
        server.close()
    assert component is not None
    assert component["version"].startswith("5.26.")
    assert component["edition"] == "community"

