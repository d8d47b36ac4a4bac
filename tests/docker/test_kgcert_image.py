"""The kgcert image (docker/kgcert.Dockerfile) carries the embedded graph server: it loads the
real Alzheimer extract into a mounted data dir and counts it, with no network and no Neo4j."""

from __future__ import annotations

from pathlib import Path

import pytest
from docker_helpers import LOCAL_KGCERT_IMAGE, docker, require_image

pytestmark = pytest.mark.slow

ALZHEIMER = Path("primekg") / "kg_alzheimer_neighbourhood.csv"


def test_the_image_loads_and_counts_a_kg_on_its_embedded_server(shared_data: Path, tmp_path):
    require_image(LOCAL_KGCERT_IMAGE)
    csv = shared_data / ALZHEIMER
    if not csv.is_file():
        pytest.skip(f"real data {csv} is absent")
    in_image = ["run", "--rm", "--network", "none", "-v", f"{tmp_path}:/data",
                "-v", f"{csv.parent}:/kg:ro", LOCAL_KGCERT_IMAGE, "kgcert"]
    docker(*in_image, "load", "primekg", f"/kg/{csv.name}", "--kg", "alz", timeout=600)
    info = docker(*in_image, "info", "--kg", "alz", timeout=300)
    assert "2,446" in info.stdout and "7,716" in info.stdout, info.stdout
    # The KG went to the mounted data dir, where a later container finds it.
    assert (tmp_path / "embedded").is_dir()
