"""Locate the shipped data folders (cypher/, specs/, loaders/) in a wheel or a source checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # kgcert/, above util/


@cache
def data_folder(name: str) -> Path:
    """`name` is one of cypher, specs, loaders."""
    installed = _PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE_DIR.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"kgcert data folder {name!r} is missing from the installation")
