"""Graph access: one code path (the neo4j driver and Cypher) over two servers.

GraphStore and GraphServer are imported on first use (PEP 562): the loaders read Cypher names
from kgcert.store.cypher, and that must not load the neo4j driver (and pandas with it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kgcert.config import StoreTarget

if TYPE_CHECKING:
    from kgcert.store.graph import GraphStore
    from kgcert.store.server import GraphServer

_MODULE_OF = {"GraphStore": "kgcert.store.graph", "GraphServer": "kgcert.store.server"}


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value  # later lookups skip this function
    return value


def connect(target: StoreTarget) -> GraphServer:
    """Start the embedded default or connect to Neo4j, as `target` says."""
    if target.is_embedded:
        from kgcert.store.embedded import start_embedded

        assert target.data_dir is not None
        return start_embedded(target.data_dir)
    from kgcert.store.neo4j_server import Neo4jServer

    return Neo4jServer(target.uri)


__all__ = ["GraphServer", "GraphStore", "StoreTarget", "connect"]
