"""Whether a user's Cypher only reads, on the embedded server: decided by ArcadeDB's own parser
(its query engine's analysis of the parsed statement), so neither a comment, a string nor a
write inside a subquery, FOREACH, UNION or procedure can hide from the check.

ArcadeDB runs writes even in Bolt read transactions, so `kgcert query` asks this first there;
on Neo4j the server itself refuses writes in the read transactions `kgcert query` opens.
"""

from __future__ import annotations

from typing import Any

from kgcert.store.graph import _one_line
from kgcert.store.query_watch import READ_ONLY


def arcade_write_refusal(database: Any, cypher: str) -> str | None:
    """Why `cypher` may not run as a read-only query on this ArcadeDB database (a Java
    ServerDatabase), or None when ArcadeDB's parser finds it only reads."""
    import jpype

    try:
        analyzed = database.getQueryEngine("opencypher").analyze(cypher)
    except jpype.JException as error:
        return f"the embedded server cannot parse the query: {_java_message(error)}"
    if analyzed.isDDL():
        return f"{READ_ONLY}: the query changes the schema (nothing was run)"
    if not analyzed.isIdempotent():
        kinds = ", ".join(sorted(str(kind).lower() for kind in analyzed.getOperationTypes()))
        return f"{READ_ONLY}: the query writes ({kinds or 'a write procedure'}; nothing was run)"
    return None


def _java_message(error: Any) -> str:
    message = str(error.getMessage() or "") or type(error).__name__
    return _one_line(Exception(message))
