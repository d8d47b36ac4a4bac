// Writes used while loading a KG. Bolt batches use UNWIND; the embedded server's own
// bulk API replaces the two batch statements when kgcert runs in-process.

// name: create_nodes
UNWIND $rows AS row
CREATE (n:Entity:{{label}})
SET n = row

// name: create_edges
UNWIND $rows AS row
MATCH (a:Entity {id: row.s})
MATCH (b:Entity {id: row.t})
CREATE (a)-[e:{{rel_type}}]->(b)
SET e = row.p

// name: create_relations
UNWIND $rows AS row
CREATE (r:KgcertRelation)
SET r = row

// name: delete_batch
MATCH (n)
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted

// name: write_manifest
MERGE (m:KgcertManifest {kg: $kg})
SET m += $fields

// name: read_manifest
MATCH (m:KgcertManifest)
RETURN properties(m) AS manifest
