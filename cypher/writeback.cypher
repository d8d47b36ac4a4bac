// Write-back of a run into its KG's database (kgcert/writeback), for exploring results in
// Neo4j Browser. Every write is a MERGE on a stable key, so writing the same run again
// creates nothing; batches arrive as $rows and go through UNWIND, one statement per node or
// relationship kind. Internal labels start with Kgcert (never a KG label), and every link
// goes from a Kgcert node, so queries over (:Entity)-[]->(:Entity) never see them.
// Keys are strings and the constraints are made before the first write: the embedded server
// types an indexed property once (one value type per indexed property).

// name: run_id_unique
CREATE CONSTRAINT kgcert_run_id IF NOT EXISTS FOR (n:KgcertRun) REQUIRE n.id IS UNIQUE

// name: certificate_key_unique
CREATE CONSTRAINT kgcert_certificate_key IF NOT EXISTS
FOR (n:KgcertCertificate) REQUIRE n.key IS UNIQUE

// name: sample_key_unique
CREATE CONSTRAINT kgcert_sample_key IF NOT EXISTS FOR (n:KgcertSample) REQUIRE n.key IS UNIQUE

// name: run_id_index
// A database shared by several KGs: the same keys, indexed but not unique across KGs.
CREATE INDEX kgcert_run_id_shared IF NOT EXISTS FOR (n:KgcertRun) ON (n.id)

// name: certificate_key_index
CREATE INDEX kgcert_certificate_key_shared IF NOT EXISTS FOR (n:KgcertCertificate) ON (n.key)

// name: sample_key_index
CREATE INDEX kgcert_sample_key_shared IF NOT EXISTS FOR (n:KgcertSample) ON (n.key)

// name: certificate_run_index
CREATE INDEX kgcert_certificate_run IF NOT EXISTS FOR (n:KgcertCertificate) ON (n.run)

// name: sample_run_index
CREATE INDEX kgcert_sample_run IF NOT EXISTS FOR (n:KgcertSample) ON (n.run)

// name: relation_conflicts
// KG relationship types that write-back's own link types would mix with.
MATCH (r:KgcertRelation{{:kg}})
WHERE r.type IN $types
RETURN DISTINCT r.type AS type

// name: entity_edge_of_type
// An edge of the KG itself with this type, if any.
MATCH (:Entity{{:kg}})-[r:{{rel_type}}]->(:Entity{{:kg}})
RETURN 1 AS found
LIMIT 1

// name: missing_entities
// Entity ids a run refers to that this KG does not hold (links to them are not made).
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity{{:kg}} {id: id})
WITH id, e
WHERE e IS NULL
RETURN id

// name: merge_run
// `created` is set once, when the run is first written; `status` stays "writing" until
// every batch is in (a write cut short is finished by writing again).
MERGE (r:KgcertRun{{:kg}} {id: $id})
ON CREATE SET r.created = $now
SET r += $props, r.written = $now, r.status = 'writing'

// name: finish_run
MATCH (r:KgcertRun{{:kg}} {id: $id})
SET r.status = 'complete'

// name: merge_certificates
UNWIND $rows AS row
MERGE (c:KgcertCertificate{{:kg}} {key: row.key})
SET c = row.props
WITH c
MATCH (r:KgcertRun{{:kg}} {id: $run})
MERGE (c)-[:IN_RUN]->(r)

// name: merge_samples
UNWIND $rows AS row
MERGE (s:KgcertSample{{:kg}} {key: row.key})
SET s = row.props
WITH s, row
MATCH (c:KgcertCertificate{{:kg}} {key: row.certificate})
MERGE (s)-[:OF_CERTIFICATE]->(c)

// name: link_used
// The entities the prompt was built from: role = pattern variable or path position.
UNWIND $rows AS row
MATCH (s:KgcertSample{{:kg}} {key: row.key})
MATCH (e:Entity{{:kg}} {id: row.id})
MERGE (s)-[:USED {role: row.role}]->(e)

// name: link_answer
UNWIND $rows AS row
MATCH (s:KgcertSample{{:kg}} {key: row.key})
MATCH (e:Entity{{:kg}} {id: row.id})
MERGE (s)-[:ANSWER]->(e)

// name: link_chose
UNWIND $rows AS row
MATCH (s:KgcertSample{{:kg}} {key: row.key})
MATCH (e:Entity{{:kg}} {id: row.id})
MERGE (s)-[:CHOSE]->(e)

// name: link_distractor
// Definition 2.3 distractors whose edges were in the prompt's context.
UNWIND $rows AS row
MATCH (s:KgcertSample{{:kg}} {key: row.key})
MATCH (e:Entity{{:kg}} {id: row.id})
MERGE (s)-[:DISTRACTOR]->(e)

// name: link_option
// number: 1-based position shown in the prompt; role: answer, distractor, path, related
// or random (how the option was picked).
UNWIND $rows AS row
MATCH (s:KgcertSample{{:kg}} {key: row.key})
MATCH (e:Entity{{:kg}} {id: row.id})
MERGE (s)-[:OPTION {number: row.number, role: row.role}]->(e)

// name: count_runs
MATCH (r:KgcertRun{{:kg}} {id: $run})
RETURN count(r) AS count

// name: count_certificates
MATCH (c:KgcertCertificate{{:kg}} {run: $run})
RETURN count(c) AS count

// name: count_samples
MATCH (s:KgcertSample{{:kg}} {run: $run})
RETURN count(s) AS count

// name: count_certificate_links
MATCH (c:KgcertCertificate{{:kg}} {run: $run})-[l:IN_RUN]->(:KgcertRun{{:kg}})
RETURN count(l) AS count

// name: count_sample_links
MATCH (s:KgcertSample{{:kg}} {run: $run})-[l]->()
RETURN type(l) AS type, count(l) AS count

// name: delete_samples
MATCH (s:KgcertSample{{:kg}} {run: $run})
WITH s LIMIT $batch
DETACH DELETE s
RETURN count(*) AS deleted

// name: delete_certificates
MATCH (c:KgcertCertificate{{:kg}} {run: $run})
WITH c LIMIT $batch
DETACH DELETE c
RETURN count(*) AS deleted

// name: delete_run
MATCH (r:KgcertRun{{:kg}} {id: $run})
DETACH DELETE r
RETURN count(*) AS deleted
