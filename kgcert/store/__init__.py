"""Graph access: one code path (the neo4j driver and Cypher) over two servers.

GraphStore and GraphServer are imported on first use (PEP 562): the loaders read Cypher names
from kgcert.store.cypher, and that must not load the neo4j driver (and pandas with it).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from kgcert.util.lazy import lazy_attributes
from kgcert.util.locations import StoreTarget

if TYPE_CHECKING:
    from kgcert.store.graph import GraphStore
    from kgcert.store.server import GraphServer

_MODULE_OF = {"GraphStore": "kgcert.store.graph", "GraphServer": "kgcert.store.server"}


__getattr__ = lazy_attributes(globals(), _MODULE_OF)


def connect(target: StoreTarget, *, in_process: bool = False) -> GraphServer:
    """Start the embedded default or connect to Neo4j, as `target` says.

    Embedded: through the warm background server when `target.warm`, unless this process runs
    the server itself already. `in_process` (loads: the bulk writer needs the Java database
    object) stops an idle warm server first and starts the server in this process.
    """
    if target.is_embedded:
        assert target.data_dir is not None
        if target.warm and not in_process and not _serving_here(target):
            from kgcert.store.warm_client import connect_warm

            return connect_warm(target.data_dir)
        if not _serving_here(target):
            from kgcert.store.warm import stop

            stop(target.data_dir, if_idle=True)  # it holds the data directory's lock
        from kgcert.store.embedded import start_embedded

        return start_embedded(target.data_dir)
    from kgcert.store.neo4j_server import Neo4jServer

    return Neo4jServer(target.uri)


def _serving_here(target: StoreTarget) -> bool:
    """Whether this process already runs the embedded server of the target's data directory
    (the test suite's fixture, a command that loaded)."""
    embedded = sys.modules.get("kgcert.store.embedded")
    if embedded is None or target.data_dir is None:
        return False
    running = embedded._running
    return running is not None and not running._closed and \
        running.home == target.data_dir / "embedded"


__all__ = ["GraphServer", "GraphStore", "StoreTarget", "connect"]
