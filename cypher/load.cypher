// Writes used while loading a KG. Bolt batches use UNWIND; the embedded server's own
// bulk API replaces the two batch statements when kgcert runs in-process.
// {{:kg}} stands for the KG's own label where KGs share a database (see kgcert/store/cypher.py):
// every node kgcert writes carries it, and every match and delete is confined to it.

// name: create_nodes
UNWIND $rows AS row
CREATE (n:Entity:{{label}}{{:kg}})
SET n = row

// name: create_edges
// The properties are set one by one after it (kgcert/store/bulk.py: edge_statement).
UNWIND $rows AS row
MATCH (a:Entity{{:kg}} {id: row.s})
MATCH (b:Entity{{:kg}} {id: row.t})
CREATE (a)-[e:{{rel_type}}]->(b)

// name: create_edges_by_kg_index
// A database shared by several KGs (Neo4j): both ends are found through the KG's own id
// index, named in a hint, so the plan cannot hang on the index statistics of the moment it is
// made (the first edge batches are planned while the just-filled index may still read empty).
UNWIND $rows AS row
MATCH (a:Entity{{:kg}} {id: row.s}) USING INDEX a{{:kg}}(id)
MATCH (b:Entity{{:kg}} {id: row.t}) USING INDEX b{{:kg}}(id)
CREATE (a)-[e:{{rel_type}}]->(b)

// name: create_relations
UNWIND $rows AS row
CREATE (r:KgcertRelation{{:kg}})
SET r = row

// name: delete_edge_batch
// Only in a shared database, before delete_batch: relationships out of this KG's nodes, a
// bounded number per transaction (a drop has refused while any link in from other nodes).
// DETACH DELETE of a batch of nodes would take their relationships in the same transaction:
// for PrimeKG's hubs, millions of them, past a Neo4j's transaction memory.
MATCH (n{{:kg}})-[r]->()
WITH r LIMIT $batch
DELETE r
RETURN count(*) AS deleted

// name: delete_batch
// Only in a shared database: this KG's nodes (its label), never anyone else's.
MATCH (n{{:kg}})
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

// name: foreign_links
// Relationships between this KG's nodes and nodes it does not own: deleting the KG would
// delete them too, so a drop refuses while there are any. Only in a shared database.
MATCH (n{{:kg}})-[r]-(m)
WHERE NOT m{{:kg}}
RETURN type(r) AS type, count(r) AS count

// name: any_node
MATCH (n{{:kg}})
RETURN 1 AS found
LIMIT 1

// name: list_manifests
// Every KG's manifest in a shared database (the caller keeps those carrying their KG's label).
MATCH (m:KgcertManifest)
RETURN m.kg AS kg, labels(m) AS labels

// name: write_manifest
MERGE (m:KgcertManifest{{:kg}} {kg: $kg})
SET m += $fields

// name: read_manifest
MATCH (m:KgcertManifest{{:kg}})
RETURN properties(m) AS manifest
