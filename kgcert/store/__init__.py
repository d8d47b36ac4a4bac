"""Graph access: one code path (the neo4j driver and Cypher) over two servers."""

from __future__ import annotations

from kgcert.config import StoreTarget
from kgcert.store.graph import GraphStore
from kgcert.store.server import GraphServer


def connect(target: StoreTarget) -> GraphServer:
    """Start the embedded default or connect to Neo4j, as `target` says."""
    if target.is_embedded:
        from kgcert.store.embedded import start_embedded

        assert target.data_dir is not None
        return start_embedded(target.data_dir)
    from kgcert.store.neo4j_server import Neo4jServer

    return Neo4jServer(target.uri)


__all__ = ["GraphServer", "GraphStore", "StoreTarget", "connect"]
