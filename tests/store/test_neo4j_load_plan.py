"""A Neo4j load plans its edge statements on the KG's own id index whatever the index's
statistics say, and settles that index between the nodes and the edges (issue 34 item 4)."""

from __future__ import annotations

from typing import Any

from kgcert.store.bulk import edge_statement
from kgcert.store.cypher import kg_label
from kgcert.store.neo4j_server import Neo4jServer


def _operators(plan: Any) -> list[tuple[str, str]]:
    found, todo = [], [plan]
    while todo:
        step = todo.pop()
        found.append((step["operatorType"].split("@")[0], step.get("args", {}).get("Details", "")))
        todo += step.get("children", [])
    return found


def test_edges_seek_both_ends_in_the_kg_index_while_its_statistics_are_empty(
        neo4j_server: Neo4jServer) -> None:
    kg = "plan_before_nodes"
    store = neo4j_server.create(kg)  # the index exists, its label holds nothing yet
    try:
        # As a load does before its edges: an index still coming online cannot take the hint
        # (Neo4j then plans without it and only warns), and waiting leaves its statistics empty.
        neo4j_server.bulk_writer(store).nodes_written()
        query = store.scoped(edge_statement("indication", ["display_relation"],
                                            by_kg_index=store.shared))
        with neo4j_server.driver.session(database=neo4j_server.database) as session:
            plan = session.run("EXPLAIN " + query,
                               rows=[{"s": "1", "t": "2", "p": {"display_relation": "x"}}]
                               ).consume().plan
        operators = _operators(plan)
        seeks = [details for name, details in operators if name == "NodeIndexSeek"]
        assert len(seeks) == 2 and all(kg_label(kg) in details for details in seeks), operators
        assert not [name for name, _ in operators if "Scan" in name or name == "Eager"]
    finally:
        neo4j_server.drop(kg)
