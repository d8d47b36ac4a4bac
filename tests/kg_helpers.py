"""Helpers for store-facing tests: load a KG under a name the server accepts."""

from __future__ import annotations

from pathlib import Path

from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import LoadResult, load
from kgcert.store.graph import GraphStore


def kg_name(server: object, wanted: str) -> str:
    """The same KG name on both servers (Neo4j keeps KGs apart by label)."""
    return wanted


def load_kg(server, fmt: str, paths: list[Path], wanted: str, replace: bool = True,
            **options) -> tuple[GraphStore, LoadResult]:
    name = kg_name(server, wanted)
    result = load(server, get_loader(fmt, LoadOptions(**options)), paths, name, replace=replace)
    return server.open(name), result
