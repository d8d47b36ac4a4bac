"""The real Alzheimer PrimeKG extract loaded once per session into the session's embedded
server, shared read-only by every test that only reads it (a pytest plugin; see conftest.py).

Tests reach it in-process (`alzheimer_kg.store`) or by name through the CLI run in-process on
`embedded_data_dir` (tests/run_cli.py): runs write their own `--out` folders and the session's
cache folder, never the KG. A test that writes to the KG (writeback, deletes, loads) loads its
own copy under its own name instead. Nothing stops a careless write through the shared
server, so each module's use ends with a check of the KG's counts (nodes, edges, labels,
properties): a module that added or deleted anything fails there, naming itself, before a
later module reads a changed KG; the session's end checks a digest of every value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from kg_helpers import load_kg

from kgcert.store.graph import GraphStore

ALZHEIMER_KG = "alz_shared"
ALZHEIMER_CSV = Path("primekg") / "kg_alzheimer_neighbourhood.csv"


@dataclass(frozen=True)
class SharedKG:
    """A loaded KG that tests may read and must not change."""

    name: str
    store: GraphStore
    data_dir: Path  # the embedded data dir whose server holds it (for `--kg name` commands)
    shape: str  # its counts as loaded (checked after each module that reads it)
    content: str  # the digest of its content as loaded (checked at the session's end)


def kg_shape(store: GraphStore) -> str:
    """Counts that any added or deleted node, edge, label or property changes (0.1 s)."""
    [(nodes, labels, node_keys)] = store.rows(
        "MATCH (n) RETURN count(n), sum(size(labels(n))), sum(size(keys(n)))")
    [(edges, edge_keys)] = store.rows("MATCH ()-[r]->() RETURN count(r), sum(size(keys(r)))")
    return (f"{nodes} nodes with {labels} labels and {node_keys} properties, "
            f"{edges} edges with {edge_keys} properties")


def content_digest(store: GraphStore) -> str:
    """One digest of every node (labels, properties) and edge (ends, type, properties): a
    changed value changes it too (a second or two, so once per session)."""
    digest = hashlib.sha256()
    nodes = store.rows("MATCH (n) RETURN labels(n), properties(n)")
    edges = store.rows("MATCH (a)-[r]->(b) RETURN a.id, type(r), b.id, properties(r)")
    for rows in (nodes, edges):
        for line in sorted(json.dumps(row, sort_keys=True, default=str) for row in rows):
            digest.update(line.encode())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def _alzheimer_kg_loaded(embedded_server, embedded_data_dir: Path, shared_data: Path
                         ) -> Iterator[SharedKG]:
    store, _ = load_kg(embedded_server, "primekg", [shared_data / ALZHEIMER_CSV], ALZHEIMER_KG)
    loaded = SharedKG(ALZHEIMER_KG, store, embedded_data_dir, kg_shape(store),
                      content_digest(store))
    yield loaded
    assert content_digest(store) == loaded.content, (
        f"a test changed a value in the shared read-only KG {ALZHEIMER_KG}")


@pytest.fixture(scope="module")
def alzheimer_kg(_alzheimer_kg_loaded: SharedKG, request: pytest.FixtureRequest
                 ) -> Iterator[SharedKG]:
    """The shared read-only Alzheimer KG; the module's tests must leave it as loaded."""
    yield _alzheimer_kg_loaded
    now = kg_shape(_alzheimer_kg_loaded.store)
    assert now == _alzheimer_kg_loaded.shape, (
        f"{request.module.__name__} changed the shared read-only KG {ALZHEIMER_KG} "
        f"({_alzheimer_kg_loaded.shape} when loaded, {now} now): load a copy of its own "
        "to write to")
