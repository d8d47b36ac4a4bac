// Read-only queries behind `kgcert info`.

// name: count_nodes
MATCH (n:Entity{{:kg}})
RETURN count(n) AS count

// name: count_by_rel_type
// Every relationship type's count in one pass: a count per type scanned the KG once per type
// (822 types in Wikidata5m, 45 s each at full size; this pass takes 20 s).
MATCH (:Entity{{:kg}})-[r]->(:Entity{{:kg}})
RETURN type(r) AS rel_type, count(r) AS count

// name: count_writeback_links
// The links `kgcert writeback` adds: from its samples to entities and certificates, and from
// certificates to runs (never between two entities, so count_by_rel_type leaves them out).
MATCH (s{{:kg}})-[r]->()
WHERE s:KgcertSample OR s:KgcertCertificate
RETURN type(r) AS rel_type, count(r) AS count

// name: count_label
MATCH (n:{{label}}{{:kg}})
RETURN count(n) AS count

// name: relations
MATCH (r:KgcertRelation{{:kg}})
RETURN properties(r) AS relation
ORDER BY r.type, r.source_type, r.target_type, r.display

// name: has_label
// A database shared by several KGs lists every KG's labels: is this one among this KG's?
MATCH (n:{{label}}{{:kg}})
RETURN 1 AS found
LIMIT 1

// name: has_rel_type
MATCH ({{:kg}})-[r:{{rel_type}}]->()
RETURN 1 AS found
LIMIT 1
