// Reads behind the multiple-choice prompts (kgcert/prompts). Every value is a $parameter;
// the one label placeholder is filled with an escaped identifier. Lists are batched with
// UNWIND over id lists, so one prompt costs at most a few round trips (none once the entities
// it touches are cached). Rows and the lists collected per entity come back in server order;
// kgcert sorts them by ids before any seeded choice, so a prompt never depends on that order.

// name: relations
// Every directed relation as prompts name it: its sentence template and its aliases. A type
// may have several rows (PrimeKG: one per display relation and per pair of entity types).
MATCH (r:KgcertRelation{{:kg}})
RETURN r.type AS type, r.source_type AS source_type, r.target_type AS target_type,
       r.display AS display, r.name AS name, r.aliases AS aliases, r.template AS template
ORDER BY type, source_type, target_type, display, name

// name: entities
// Names, aliases and labels of the entities a prompt names (query entities, options).
UNWIND $ids AS node_id
MATCH (n:Entity{{:kg}} {id: node_id})
RETURN n.id AS id, n.name AS name, n.aliases AS aliases, labels(n) AS labels
ORDER BY id

// name: out_edges
// The outgoing edges of each entity, one row per entity: [type, far end id, far end name,
// far end labels, display (PrimeKG), supporting sentences (Wikidata5m with texts)].
// Matching one direction at a time is several times faster on the embedded server than an
// undirected pattern.
UNWIND $ids AS node_id
MATCH (:Entity{{:kg}} {id: node_id})-[e]->(m:Entity{{:kg}})
RETURN node_id AS id, collect([type(e), m.id, m.name, labels(m), e.display, e.sentences]) AS edges

// name: in_edges
// The incoming edges of each entity, in the same shape as out_edges (the far end is the head).
UNWIND $ids AS node_id
MATCH (:Entity{{:kg}} {id: node_id})<-[e]-(m:Entity{{:kg}})
RETURN node_id AS id, collect([type(e), m.id, m.name, labels(m), e.display, e.sentences]) AS edges

// name: label_members
// Every entity of one label: the last source of answer options when the neighbourhood of the
// DAG has too few entities of the answer's type.
MATCH (n:{{label}}{{:kg}})
RETURN n.id AS id
ORDER BY id

// name: all_entities
// Every entity of the KG with its name, labels and aliases: the entity part of a prompt
// snapshot (kgcert/graphview/snapshot.py).
MATCH (n:Entity{{:kg}})
RETURN n.id AS id, n.name AS name, labels(n) AS labels, n.aliases AS aliases

// name: edge_groups
// The outgoing edges of the entities with ids in [$low, $high], one row per (source, type)
// with [far end id, display] per edge, and how many of them carry their own sentences.
MATCH (s:Entity{{:kg}})-[e]->(m:Entity{{:kg}})
WHERE s.id >= $low AND s.id <= $high
RETURN s.id AS id, type(e) AS type, collect([m.id, e.display]) AS edges,
       count(e.sentences) AS with_sentences

// name: edge_sentence_groups
// edge_groups for a KG whose edges carry their own sentences, one row per source (Wikidata5m's
// sources have about one edge per type: rows per (source, type) cost more than their edges):
// [type, far end id, display, sentences] per edge (kgcert/graphview/edge_sentences.py keeps
// the sentences beside the snapshot).
MATCH (s:Entity{{:kg}})-[e]->(m:Entity{{:kg}})
WHERE s.id >= $low AND s.id <= $high
RETURN s.id AS id, collect([type(e), m.id, e.display, e.sentences]) AS edges

// name: any_edge_sentences
// Whether an edge carries its own sentences (Wikidata5m with texts): such KGs' snapshots read
// them too (edge_sentence_groups).
MATCH (:Entity{{:kg}})-[e]->(:Entity{{:kg}})
WHERE e.sentences IS NOT NULL
RETURN 1 AS found
LIMIT 1
