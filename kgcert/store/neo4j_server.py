"""A Neo4j server given by URI, with credentials from the environment only.

Every KG lives in one database (``neo4j`` by default, the only user database of the Community
edition; $KGCERT_NEO4J_DATABASE picks another on Enterprise or Aura) beside whatever else that
database holds. Each node kgcert writes carries the KG's label (``KgcertKG_<name>``) and every
kgcert query is confined to it, so several KGs share the database without mixing, and loads,
replacements and drops touch only the nodes kgcert wrote for that KG.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

from kgcert.errors import StoreError
from kgcert.store.bulk import BoltBulkWriter, BulkWriter
from kgcert.store.cypher import kg_index_name, kg_label, named, statement
from kgcert.store.driver import AuthError, ClientError, Neo4jError, ServiceUnavailable, neo4j
from kgcert.store.graph import GraphStore, _one_line
from kgcert.store.load_lock import load_lease
from kgcert.store.server import GraphServer, check_kg_name
from kgcert.util.locations import (
    NEO4J_DATABASE_ENV,
    NEO4J_DEFAULT_DATABASE,
    NEO4J_PASSWORD_ENV,
    NEO4J_USER_ENV,
)

_MIN_MAJOR = 5
_DELETE_BATCH = 10_000  # nodes, deleted once their relationships are gone
# Relationships deleted in one transaction: some 2 KB of Neo4j 5.26's transaction memory each
# (measured), so 100 MB. A server whose limit is tighter gets halved batches (`_delete_all`).
_DELETE_EDGE_BATCH = 50_000
_SMALLEST_DELETE_BATCH = 500
_INDEX_WAIT_S = 600  # the KG's id index, filled while its nodes were written


def _agent_major(agent: str) -> int | None:
    match = re.match(r"Neo4j/(\d+)\.", agent)
    return int(match.group(1)) if match else None


def _delete_all(store: GraphStore, name: str, batch: int) -> None:
    """Runs the delete statement `name` until it deletes nothing; a batch that outgrows the
    server's transaction memory is rolled back and tried again at half the size."""
    query = statement("load", name)
    while True:
        try:
            if not store.value(query, batch=batch):
                return
        except StoreError as error:
            code = getattr(error.__cause__, "code", None) or ""
            if "OutOfMemory" not in code or batch <= _SMALLEST_DELETE_BATCH:
                raise
            batch //= 2


class Neo4jBulkWriter(BoltBulkWriter):
    """The Bolt writer, with the KG's id index online and its statistics sampled again once
    the nodes are in, so the edge statements are planned on what the index now holds rather
    than on the empty index the background sampler last saw (the edge statement itself names
    the index in a hint, so its plan no longer depends on them; the KG's later reads still do).
    """

    def nodes_written(self) -> None:
        index = kg_index_name(self.store.kg)
        self.store.execute(statement("schema", "await_index"), index=index,
                           timeout_s=_INDEX_WAIT_S)
        self.store.execute(statement("schema", "resample_index"), index=index)


class Neo4jServer(GraphServer):
    """Neo4j 5 over Bolt: KGs side by side in one database, each confined to its own label."""

    def __init__(self, uri: str, database: str | None = None,
                 auth: tuple[str, str] | None = None) -> None:
        """Credentials: `auth` (for library use), else the environment; never a flag."""
        user, password = auth or (os.environ.get(NEO4J_USER_ENV, "neo4j"),
                                  os.environ.get(NEO4J_PASSWORD_ENV))
        if password is None:
            raise StoreError(f"set {NEO4J_PASSWORD_ENV} (and {NEO4J_USER_ENV}) to reach {uri}")
        self.database = database or os.environ.get(NEO4J_DATABASE_ENV) or NEO4J_DEFAULT_DATABASE
        self.name = f"Neo4j at {uri}"
        try:
            # Notifications off at the source: the server sends none, so none reaches stderr.
            self.driver = neo4j.GraphDatabase.driver(
                uri, auth=(user, password), notifications_min_severity="OFF")
            self.driver.verify_connectivity()
            agent = self.driver.get_server_info().agent
        except AuthError as error:
            raise StoreError(f"{self.name} refused the credentials of {user!r}") from error
        except (ServiceUnavailable, OSError, ValueError) as error:
            raise StoreError(f"cannot reach {self.name}: {_one_line(error)}") from error
        except Neo4jError as error:
            raise StoreError(f"{self.name}: {_one_line(error)}") from error
        major = _agent_major(agent)
        if major is not None and major < _MIN_MAJOR:
            self.driver.close()
            raise StoreError(f"{self.name} runs {agent}; kgcert needs Neo4j 5 or later")
        self._check_database()

    def _check_database(self) -> None:
        try:
            with self.driver.session(database=self.database) as session:
                session.run("RETURN 1").consume()
        except ClientError as error:
            self.driver.close()
            if "DatabaseNotFound" in (error.code or ""):
                raise StoreError(
                    f"{self.name} has no database {self.database!r} (set "
                    f"{NEO4J_DATABASE_ENV} to one it has; Community has only 'neo4j')"
                ) from error
            raise StoreError(f"{self.name} [{self.database}]: {_one_line(error)}") from error
        except (ServiceUnavailable, Neo4jError) as error:
            self.driver.close()
            raise StoreError(f"{self.name} [{self.database}]: {_one_line(error)}") from error

    def _shared(self) -> GraphStore:
        """The whole database, unconfined: only for reads across KGs."""
        return GraphStore(self.driver, self.database, self.name)

    def list_kgs(self) -> list[str]:
        rows = self._shared().query(statement("load", "list_manifests"))
        return sorted({str(r["kg"]) for r in rows
                       if isinstance(r["kg"], str) and kg_label(r["kg"]) in r["labels"]})

    def exists(self, kg: str) -> bool:
        # A KG whose first write was cut short has nodes but maybe no manifest yet.
        return kg in self.list_kgs() or bool(self.store(kg).query(statement("load", "any_node")))

    def store(self, kg: str) -> GraphStore:
        return GraphStore(self.driver, self.database, self.name, kg=check_kg_name(kg),
                          shared=True)

    def create(self, kg: str) -> GraphStore:
        store = self.store(kg)
        store.execute(named("schema", "kg_id_index", index=kg_index_name(kg),
                            scope=kg_label(kg)))
        return store

    def drop(self, kg: str) -> None:
        store = self.store(kg)
        foreign = store.query(statement("load", "foreign_links"))
        if foreign:
            kinds = ", ".join(f"{r['count']:,} {r['type']}" for r in foreign)
            raise StoreError(
                f"KG {kg!r} on {self.name} has relationships to nodes kgcert did not write "
                f"({kinds}); kgcert deletes only its own data: remove those first")
        _delete_all(store, "delete_edge_batch", _DELETE_EDGE_BATCH)
        _delete_all(store, "delete_batch", _DELETE_BATCH)
        store.execute(named("schema", "drop_kg_id_index", index=kg_index_name(kg)))

    @contextmanager
    def loading(self, kg: str) -> Iterator[None]:
        with load_lease(self._shared(), check_kg_name(kg), self.name):
            yield

    def bulk_writer(self, store: GraphStore) -> BulkWriter:
        return Neo4jBulkWriter(store)

    def close(self) -> None:
        self.driver.close()
