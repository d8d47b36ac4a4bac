// Read-only queries behind `kgcert info`.

// name: count_nodes
MATCH (n:Entity{{:kg}})
RETURN count(n) AS count

// name: count_edges
MATCH (:Entity{{:kg}})-[r]->(:Entity{{:kg}})
RETURN count(r) AS count

// name: count_label
MATCH (n:{{label}}{{:kg}})
RETURN count(n) AS count

// name: count_rel_type
MATCH (:Entity{{:kg}})-[r:{{rel_type}}]->(:Entity{{:kg}})
RETURN count(r) AS count

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
