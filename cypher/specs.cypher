// Queries behind spec validation and the samplers. Labels and relationship types arrive as
// escaped {{placeholders}}; every value is a $parameter. Pattern-shaped queries (count,
// enumerate, correct answers, distractors) are assembled from escaped identifiers by
// kgcert/specs/compile.py because their shape follows the spec's pattern.

// name: relation_endpoints
MATCH (r:KgcertRelation{{:kg}})
RETURN r.type AS type, r.source_type AS source_type, r.target_type AS target_type

// name: source_ids
// The ids of one pattern edge's source label, to cut its pairs into pages.
MATCH (s:{{source}}{{:kg}})
RETURN s.id AS id

// name: edge_pairs
// One pattern edge's pairs for the sources with ids in [$low, $high]. No DISTINCT: a match
// is an assignment of entities to variables, so parallel edges must not count twice, but
// one DISTINCT over millions of rows exceeds the embedded server's in-heap limit (2,097,152
// elements); kgcert/specs/tables.py removes the repeats in numpy. One row per source with
// its targets collected: several times cheaper to send than a row per pair.
MATCH (s:{{source}}{{:kg}})-[:{{rel}}]->(t:{{target}}{{:kg}})
WHERE s.id >= $low AND s.id <= $high
RETURN s.id AS s, collect(t.id) AS targets

// name: edge_pairs_distinct
// The same pairs in one DISTINCT query: the reference the paged pull is tested against.
MATCH (s:{{source}}{{:kg}})-[:{{rel}}]->(t:{{target}}{{:kg}})
RETURN DISTINCT s.id AS s, t.id AS t

// name: out_edges
// One breadth-first level around an entity-centric pivot, over the whole graph, for a chunk
// of its entities: each looked up by its id (index) rather than `s.id IN $ids` over every
// edge, one row per entity with its edges collected. Repeated edges are removed in Python
// (kgcert/specs/entity_sampler.py), not by an in-heap DISTINCT. Types and targets come as two
// parallel lists (one aggregation pass, same order): a two-item list per edge cost the
// driver about twice the decoding.
UNWIND $ids AS node_id
MATCH (s:Entity{{:kg}} {id: node_id})-[r]->(t:Entity{{:kg}})
WHERE (size($include) = 0 OR type(r) IN $include)
  AND NOT type(r) IN $exclude
WITH node_id, type(r) AS rel, t.id AS target
RETURN node_id AS s, collect(rel) AS rels, collect(target) AS targets

// name: entities
MATCH (n:Entity{{:kg}})
WHERE n.id IN $ids
RETURN n.id AS id, n.name AS name, n.type AS type, n.aliases AS aliases

// name: out_degrees
// Pivot candidates for entity-centric specs: entities by distinct out-neighbours.
// Counted per entity: one GROUP BY over every edge held a set per entity and ran past the
// embedded server's 2 GB query heap on the whole Wikidata5m.
MATCH (s:Entity{{:kg}})
CALL (s) {
  MATCH (s)-[r]->(t:Entity{{:kg}})
  WHERE (size($include) = 0 OR type(r) IN $include) AND NOT type(r) IN $exclude
  RETURN count(DISTINCT t) AS degree
}
WITH s, degree
WHERE degree >= $min_degree
RETURN s.id AS id, degree
ORDER BY degree DESC, id
LIMIT $limit
