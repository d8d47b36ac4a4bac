"""A Neo4j server given by URI, with credentials from the environment only."""

from __future__ import annotations

import os

import neo4j
from neo4j.exceptions import AuthError, ClientError, ServiceUnavailable

from kgcert.config import NEO4J_PASSWORD_ENV, NEO4J_USER_ENV
from kgcert.errors import StoreError
from kgcert.store.bulk import BoltBulkWriter, BulkWriter
from kgcert.store.cypher import statement
from kgcert.store.graph import GraphStore, _one_line
from kgcert.store.server import GraphServer, check_kg_name

_SYSTEM_DATABASES = {"system"}


class Neo4jServer(GraphServer):
    """Neo4j 5: one database per KG where the edition allows it (Enterprise, Aura)."""

    def __init__(self, uri: str) -> None:
        user = os.environ.get(NEO4J_USER_ENV, "neo4j")
        password = os.environ.get(NEO4J_PASSWORD_ENV)
        if password is None:
            raise StoreError(f"set {NEO4J_PASSWORD_ENV} (and {NEO4J_USER_ENV}) to reach {uri}")
        self.name = f"Neo4j at {uri}"
        try:
            self.driver = neo4j.GraphDatabase.driver(uri, auth=(user, password))
            self.driver.verify_connectivity()
        except AuthError as error:
            raise StoreError(f"{self.name} refused the credentials of {user!r}") from error
        except (ServiceUnavailable, OSError, ValueError) as error:
            raise StoreError(f"cannot reach {self.name}: {_one_line(error)}") from error

    def _system(self, cypher: str) -> list[dict[str, object]]:
        with self.driver.session(database="system") as session:
            return session.run(cypher).data()

    def list_kgs(self) -> list[str]:
        rows = self._system("SHOW DATABASES YIELD name RETURN DISTINCT name")
        return sorted(str(r["name"]) for r in rows if r["name"] not in _SYSTEM_DATABASES)

    def create(self, kg: str) -> GraphStore:
        check_kg_name(kg)
        if kg not in self.list_kgs():
            try:
                with self.driver.session(database="system") as session:
                    session.run("CREATE DATABASE $name IF NOT EXISTS WAIT", name=kg).consume()
            except ClientError as error:
                raise StoreError(
                    f"{self.name} cannot create database {kg!r} ({_one_line(error)}); "
                    "Neo4j Community has one database: load with --kg neo4j"
                ) from error
        return GraphStore(self.driver, kg, self.name)

    def drop(self, kg: str) -> None:
        store = self.open(kg)
        query = statement("load", "delete_batch")
        while store.value(query, batch=10_000):
            pass

    def bulk_writer(self, store: GraphStore) -> BulkWriter:
        return BoltBulkWriter(store)

    def close(self) -> None:
        self.driver.close()
