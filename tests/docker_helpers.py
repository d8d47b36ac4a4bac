"""Docker for the tests: whether an engine answers, and which Neo4j and kgcert images to run.

Images come from docker/build-images.sh (built from Debian's packages, no Docker Hub):
NEO4J_IMAGE names another Neo4j image (as docker/compose.yaml reads it), KGCERT_IMAGE another
kgcert image. Where Docker or an image is missing the tests skip and say why, unless
KGCERT_REQUIRE_DOCKER=1 (set under CI once the engine is up and the images are built): then
they fail, so a CI run cannot pass with the Docker tests quietly skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import NoReturn

import pytest

LOCAL_NEO4J_IMAGE = "kgcert-neo4j:5.26-community"
LOCAL_KGCERT_IMAGE = "kgcert:local"
OFFICIAL_NEO4J_IMAGE = "neo4j:5.26"


def docker(*args: str, timeout: float = 120, check: bool = True,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`docker ARGS`, its output captured; a failure (when `check`) fails the test with it."""
    done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)
    if check and done.returncode != 0:
        pytest.fail(f"docker {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n"
                    f"{done.stderr}")
    return done


def skip_or_fail(reason: str) -> NoReturn:
    if os.environ.get("KGCERT_REQUIRE_DOCKER") == "1":
        pytest.fail(f"KGCERT_REQUIRE_DOCKER=1 but {reason}")
    pytest.skip(reason)


def docker_missing() -> str | None:
    """Why Docker cannot run containers here, or None when its engine answers."""
    if shutil.which("docker") is None:
        return "Docker is not installed"
    try:
        info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"],
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the Docker engine did not answer within 30 s"
    if info.returncode != 0:
        said = info.stderr.strip().splitlines()
        return f"the Docker engine does not answer: {said[-1] if said else 'no message'}"
    return None


def image_present(name: str) -> bool:
    return docker("image", "inspect", name, check=False).returncode == 0


def neo4j_image() -> str:
    """NEO4J_IMAGE, else the locally built Neo4j image when present, else the official one."""
    chosen = os.environ.get("NEO4J_IMAGE")
    if chosen:
        return chosen
    return LOCAL_NEO4J_IMAGE if image_present(LOCAL_NEO4J_IMAGE) else OFFICIAL_NEO4J_IMAGE


def require_image(name: str) -> None:
    """Skip (or fail, under KGCERT_REQUIRE_DOCKER=1) unless the engine answers and holds `name`."""
    missing = docker_missing()
    if missing:
        skip_or_fail(f"no Docker: {missing}")
    if not image_present(name):
        skip_or_fail(f"Docker has no image {name} (build it: docker/build-images.sh)")


def wait_for_ci_docker(limit_s: float = 1800) -> None:
    """.ci/run sets Docker up in the background while pip installs and names a status file in
    KGCERT_CI_DOCKER_STATUS ("1 SECONDS" on success, "0 SECONDS" otherwise, its log beside it):
    wait for it, show what it did, and require the Docker tests when it succeeded."""
    status = os.environ.get("KGCERT_CI_DOCKER_STATUS")
    if not status:
        return
    path, log = Path(status), Path(status + ".log")
    deadline = time.monotonic() + limit_s
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(2)
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    shown = [line for line in lines if line.startswith(("ci-docker:", "build-images:"))]
    ok, seconds = path.read_text().split() if path.exists() else ("0", "?")
    if ok == "1":
        os.environ["KGCERT_REQUIRE_DOCKER"] = "1"
        shown.append(f"ci: Docker set-up and image builds took {seconds} s (beside pip)")
    else:
        shown += lines[-5:]
        shown.append("ci: Docker could not be set up; the Docker tests will skip")
    print("\n".join(shown), file=sys.__stderr__, flush=True)
