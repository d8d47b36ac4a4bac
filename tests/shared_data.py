"""Where the real KG extracts live for tests: $KGCERT_SHARED_DATA, else <repo>/../shared/data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data(name: str) -> Path:
    """The folder `name` of the shared data, or skip the test saying why it is absent."""
    root = Path(os.environ.get("KGCERT_SHARED_DATA") or REPO_ROOT.parent / "shared" / "data")
    folder = root / name
    if not folder.is_dir():
        pytest.skip(f"real data {folder} is absent (set KGCERT_SHARED_DATA to the folder "
                    "holding countries/, wikidata5m_countries/, wikidata5m_text_sample/)")
    return folder
