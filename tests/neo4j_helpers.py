"""A real Neo4j for the tests: the Neo4j 5.26 that ships beside the project in ../shared/neo4j."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_NEO4J = REPO.parent / "shared" / "neo4j" / "with-neo4j.sh"
# Prints the server's address and credentials, then holds it up until stdin closes.
_HOLD = ("import json, os, sys; print(json.dumps({k: v for k, v in os.environ.items() "
         "if k.startswith('KGCERT_NEO4J_')}), flush=True); sys.stdin.read()")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def shared_neo4j(tmp: Path, home: Path | None = None, keep_data: bool = False
                 ) -> Iterator[dict[str, str]]:
    """The Neo4j 5.26 beside the project (../shared/neo4j), up on loopback until the generator
    is closed; yields its KGCERT_NEO4J_* variables. `home` holds its files (unpacked there on
    first use); `keep_data` starts it on the databases already in `home`."""
    # Its own home and ports: two test sessions at once never share a server or its files.
    env = {**os.environ, "NEO4J_HOME": str(home or tmp / "home"),
           "NEO4J_BOLT_PORT": str(_free_port()), "NEO4J_HTTP_PORT": str(_free_port()),
           "NEO4J_KEEP_DATA": "1" if keep_data else "0"}
    log = (tmp / "with-neo4j.log").open("w")
    holder = subprocess.Popen(["bash", str(SHARED_NEO4J), "python3", "-c", _HOLD], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                              text=True)
    assert holder.stdout is not None and holder.stdin is not None
    line = holder.stdout.readline()
    if not line:
        holder.wait()
        log.close()
        pytest.fail(f"../shared/neo4j did not start Neo4j: {(tmp / 'with-neo4j.log').read_text()}")
    try:
        yield json.loads(line)
    finally:
        holder.stdin.close()
        holder.wait(timeout=120)
        log.close()
