"""One KG's database, reached through the official neo4j driver, whichever server holds it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import neo4j
from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

from kgcert.errors import StoreError
from kgcert.store.cypher import named


def _one_line(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return " ".join(str(message).split())


class GraphStore:
    """Cypher against one database. Every query and write of kgcert goes through here."""

    def __init__(self, driver: neo4j.Driver, database: str, server_name: str) -> None:
        self._driver = driver
        self.database = database
        self.server_name = server_name

    def query(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run a read query and return its rows as dicts."""
        return list(self.stream(cypher, **params))

    def stream(self, cypher: str, **params: Any) -> Iterator[dict[str, Any]]:
        try:
            with self._driver.session(database=self.database) as session:
                result = session.run(cypher, params)
                for record in result:
                    yield record.data()
        except (AuthError, ServiceUnavailable, Neo4jError) as error:
            raise StoreError(f"{self.server_name} [{self.database}]: {_one_line(error)}") from error

    def execute(self, cypher: str, **params: Any) -> None:
        """Run a write in its own transaction."""
        try:
            with self._driver.session(database=self.database) as session:
                session.execute_write(lambda tx: tx.run(cypher, params).consume())
        except (AuthError, ServiceUnavailable, Neo4jError) as error:
            raise StoreError(f"{self.server_name} [{self.database}]: {_one_line(error)}") from error

    def value(self, cypher: str, **params: Any) -> Any:
        rows = self.query(cypher, **params)
        return next(iter(rows[0].values())) if rows else None

    def named_query(self, file_stem: str, name: str, *, identifiers: dict[str, str] | None = None,
                    **params: Any) -> list[dict[str, Any]]:
        return self.query(named(file_stem, name, **(identifiers or {})), **params)

    def labels(self) -> list[str]:
        return sorted(row["label"] for row in self.query("CALL db.labels()"))

    def relationship_types(self) -> list[str]:
        return sorted(row["relationshipType"] for row in self.query("CALL db.relationshipTypes()"))
