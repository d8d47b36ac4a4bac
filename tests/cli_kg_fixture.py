"""A small synthetic PrimeKG loaded once per session for tests that run `kgcert` as a user
would, in a subprocess (a pytest plugin; see tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI_KG = "synth_cli"


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a `kgcert` subprocess on `data_dir`, without the caller's
    provider settings or Neo4j."""
    drop = ("KGCERT_NEO4J_URI", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, "KGCERT_DATA_DIR": str(data_dir), "OMP_NUM_THREADS": "1",
            "KGCERT_NO_SERVER": "1", **extra}


@pytest.fixture(scope="session")
def cli_kg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data directory holding the KG `synth_cli`."""
    from kgcert.synth.primekg import SyntheticPrimeKG

    root = tmp_path_factory.mktemp("cli-kg")
    SyntheticPrimeKG(scale=0.003, seed=5).write_kg_csv(root / "kg.csv")
    loaded = subprocess.run([sys.executable, "-m", "kgcert", "load", "primekg",
                             str(root / "kg.csv"), "--kg", CLI_KG],
                            env=cli_env(root / "data"), cwd=root, capture_output=True,
                            text=True, timeout=300)
    assert loaded.returncode == 0, loaded.stderr
    return root / "data"
