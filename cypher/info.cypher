// Read-only queries behind `kgcert info`.

// name: count_nodes
MATCH (n:Entity)
RETURN count(n) AS count

// name: count_edges
MATCH (:Entity)-[r]->(:Entity)
RETURN count(r) AS count

// name: count_label
MATCH (n:{{label}})
RETURN count(n) AS count

// name: count_rel_type
MATCH (:Entity)-[r:{{rel_type}}]->(:Entity)
RETURN count(r) AS count

// name: relations
MATCH (r:KgcertRelation)
RETURN properties(r) AS relation
ORDER BY r.type, r.source_type, r.target_type, r.display
