"""One KG's database, reached through the official neo4j driver, whichever server holds it."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from kgcert.errors import StoreError
from kgcert.store.cypher import KG_SCOPE, escape_identifier, kg_label, named
from kgcert.store.driver import AuthError, Neo4jError, ServiceUnavailable, neo4j


def _one_line(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error) or type(error).__name__
    return " ".join(str(message).split())


class GraphStore:
    """One KG, reached with Cypher. Every query and write of kgcert goes through here.

    `shared`: the KG shares its database with other data (other KGs, the user's own graph), so
    every node kgcert writes carries the KG's label and every query is confined to it.
    """

    def __init__(self, driver: neo4j.Driver, database: str, server_name: str, *,
                 kg: str | None = None, shared: bool = False) -> None:
        self._driver = driver
        self.database = database
        self.kg = kg or database
        self.server_name = server_name
        self.shared = shared
        self.scope_label = kg_label(self.kg) if shared else None
        self._scope = f":{escape_identifier(self.scope_label)}" if self.scope_label else ""

    def scoped(self, cypher: str) -> str:
        """The query confined to this KG: the scope marker becomes the KG's label (or nothing)."""
        return cypher.replace(KG_SCOPE, self._scope)

    @property
    def where(self) -> str:
        return f"{self.server_name} [{self.kg}]"

    def query(self, cypher: str, **params: Any) -> list[dict[str, Any]]:
        """Run a read query and return its rows as dicts."""
        return list(self.stream(cypher, **params))

    def stream(self, cypher: str, **params: Any) -> Iterator[dict[str, Any]]:
        try:
            with self._driver.session(database=self.database) as session:
                result = session.run(self.scoped(cypher), params)
                for record in result:
                    yield record.data()
        except (AuthError, ServiceUnavailable, Neo4jError) as error:
            raise StoreError(f"{self.where}: {_one_line(error)}") from error

    def read_only(self, cypher: str, params: dict[str, Any], *,
                  timeout_s: float | None = None) -> Generator[dict[str, Any], None, None]:
        """A user's query, rows as they arrive: in a read transaction (Neo4j refuses writes in
        one) that is rolled back, never committed. The query is taken as it is, unconfined.

        Leaving early (a limit reached, Ctrl-C, a timeout) kills the connection instead of
        letting the driver drain the rest of the result, so the server stops: Neo4j terminates
        the transaction of a closed connection. `timeout_s` is Neo4j's transaction timeout, and
        a watchdog here for servers that ignore it (the embedded one)."""
        from kgcert.store.query_watch import Watchdog, refusal

        session = self._driver.session(database=self.database,
                                       default_access_mode=neo4j.READ_ACCESS)
        watchdog = Watchdog(session, timeout_s)
        finished = False
        try:
            with watchdog:
                tx = session.begin_transaction(timeout=timeout_s)
                for record in tx.run(cypher, params):
                    yield record.data()
                tx.rollback()
            finished = True
        except (AuthError, ServiceUnavailable, Neo4jError) as error:
            watchdog.raise_if_expired()
            if "TransactionTimedOut" in (getattr(error, "code", None) or ""):
                watchdog.expired.set()  # Neo4j's own timeout came first: the same message
                watchdog.raise_if_expired()
            refused = refusal(error, self.where)
            if refused is not None:
                raise refused from error
            raise StoreError(f"{self.where}: {_one_line(error)}") from error
        except Exception:
            watchdog.raise_if_expired()
            raise
        finally:
            if finished:
                session.close()
            else:
                watchdog.kill()

    def rows(self, cypher: str, **params: Any) -> Iterator[tuple[Any, ...]]:
        """Rows as plain tuples in the query's RETURN order: for bulk reads of ids, strings
        and lists, where `record.data()` would rebuild every nested list (a third of a bulk
        read's client time, measured on the prompt reads)."""
        try:
            with self._driver.session(database=self.database) as session:
                result = session.run(self.scoped(cypher), params)
                for record in result:
                    yield tuple(record)
        except (AuthError, ServiceUnavailable, Neo4jError) as error:
            raise StoreError(f"{self.where}: {_one_line(error)}") from error

    def execute(self, cypher: str, **params: Any) -> None:
        """Run a write in its own transaction."""
        query = self.scoped(cypher)
        try:
            with self._driver.session(database=self.database) as session:
                session.execute_write(lambda tx: tx.run(query, params).consume())
        except (AuthError, ServiceUnavailable, Neo4jError) as error:
            raise StoreError(f"{self.where}: {_one_line(error)}") from error

    def value(self, cypher: str, **params: Any) -> Any:
        rows = self.query(cypher, **params)
        return next(iter(rows[0].values())) if rows else None

    def named_query(self, file_stem: str, name: str, *, identifiers: dict[str, str] | None = None,
                    **params: Any) -> list[dict[str, Any]]:
        return self.query(named(file_stem, name, **(identifiers or {})), **params)

    def labels(self) -> list[str]:
        """The labels of this KG's nodes (kgcert's own included)."""
        names = sorted(row["label"] for row in self.query("CALL db.labels()"))
        if not self.shared:
            return names
        return [name for name in names if name != self.scope_label
                and self.named_query("info", "has_label", identifiers={"label": name})]

    def relationship_types(self) -> list[str]:
        """The relationship types of this KG's edges (write-back links included)."""
        names = sorted(row["relationshipType"]
                       for row in self.query("CALL db.relationshipTypes()"))
        if not self.shared:
            return names
        return [name for name in names
                if self.named_query("info", "has_rel_type", identifiers={"rel_type": name})]
