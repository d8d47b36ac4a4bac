// Read-only queries behind the KG-LLM-Bench tasks (kgcert/tasks). Every result is ordered by
// stable keys (entity ids, relationship types) so that the random choices made in Python with
// the per-instance generator see the same sequence on every run and on every server.
// Edges are identified by (head id, type, tail id) plus an ordinal among exact duplicates;
// elementId(e) is returned only to tell edges apart within one session (it is not stable
// across reloads), never used as an id in an instance.

// name: core_entities
// The entities seeds are drawn from: one core type, at least $min_degree incident edges
// (either direction, parallel edges counted).
MATCH (n:{{core_label}}{{:kg}})
WITH n, size([(n)--(:Entity{{:kg}}) | 1]) AS degree
WHERE degree >= $min_degree
RETURN n.id AS id
ORDER BY id

// name: relation_names
MATCH (r:KgcertRelation{{:kg}})
RETURN r.type AS type, r.name AS name
ORDER BY type, name

// name: entity_names
UNWIND $ids AS node_id
MATCH (n:Entity{{:kg}} {id: node_id})
RETURN n.id AS id, n.name AS name, n.type AS type
ORDER BY id

// name: neighbours
// One BFS step for many nodes at once: the distinct neighbours (either direction) of each.
UNWIND $ids AS node_id
MATCH (:Entity{{:kg}} {id: node_id})--(m:Entity{{:kg}})
WITH node_id, m.id AS neighbour
ORDER BY neighbour
RETURN node_id AS id, collect(DISTINCT neighbour) AS neighbours
ORDER BY id

// name: ego_layer
// The next ring of an ego graph: every entity adjacent (either direction) to one of $ids.
UNWIND $ids AS node_id
MATCH (:Entity{{:kg}} {id: node_id})--(m:Entity{{:kg}})
RETURN DISTINCT m.id AS id
ORDER BY id

// name: ego_edges
// All edges whose two ends lie in the node set: $ids lists it, $inside maps each id to true
// (a map lookup, not a list scan, tests the far end). Parallel edges each give a row.
UNWIND $ids AS node_id
MATCH (a:Entity{{:kg}} {id: node_id})-[e]->(b:Entity{{:kg}})
WHERE $inside[b.id] = true
RETURN a.id AS head, type(e) AS type, b.id AS tail, elementId(e) AS element
ORDER BY head, type, tail, element

// name: incident_edges
// Every edge touching one of $ids, either direction, one row per entity: a list of
// [entity is the head?, type, far end id, element id] (a self-loop may come twice: callers
// keep one per element id). Lists per entity cut the row count; this feeds the cache.
UNWIND $ids AS node_id
MATCH (a:Entity{{:kg}} {id: node_id})-[e]-(b:Entity{{:kg}})
RETURN node_id AS id, collect([startNode(e) = a, type(e), b.id, elementId(e)]) AS edges
