"""The checks that keep the session's shared Alzheimer KG read-only (tests/alzheimer_kg_fixture.py)
see every kind of write a test might make: on a small KG of this test's own, an added node or
edge, a deletion or a new label or property changes the counts checked after each module, and a
changed value (which keeps every count) changes the digest checked at the session's end."""

from __future__ import annotations

from alzheimer_kg_fixture import content_digest, kg_shape

WRITES = {
    "a node": "CREATE (:Entity {id: 'c'})",
    "an edge": "MATCH (a {id: 'a'}), (b {id: 'b'}) CREATE (b)-[:contraindication]->(a)",
    "a property": "MATCH (a {id: 'a'}) SET a.note = 'x'",
    "a label": "MATCH (a {id: 'a'}) SET a:KgcertSample",
    "an edge property": "MATCH ()-[r:indication]->() SET r.kgcert = 1",
    "a deletion": "MATCH (n {id: 'b'}) DETACH DELETE n",
}


def test_every_kind_of_write_changes_the_shape_or_the_digest(embedded_server):
    """Writes one after another on one KG: each changes what the last left."""
    embedded_server.drop("guard_kg")
    store = embedded_server.create("guard_kg")
    try:
        store.execute("CREATE (:Entity:drug {id: 'a', name: 'A'})-[:indication]->"
                      "(:Entity:disease {id: 'b', name: 'B'})")
        shape, digest = kg_shape(store), content_digest(store)
        assert shape == "2 nodes with 4 labels and 4 properties, 1 edges with 0 properties"
        assert (kg_shape(store), content_digest(store)) == (shape, digest)  # reads change nothing
        for what, write in WRITES.items():
            store.execute(write)
            assert kg_shape(store) != shape and content_digest(store) != digest, what
            shape, digest = kg_shape(store), content_digest(store)
        store.execute("MATCH (a {id: 'a'}) SET a.name = 'Z'")  # a value: only the digest sees it
        assert kg_shape(store) == shape and content_digest(store) != digest
    finally:
        embedded_server.drop("guard_kg")
