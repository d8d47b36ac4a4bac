// The schema every loaded KG shares. Entities carry the common label Entity plus one
// label per entity type; ids are always strings (the embedded server types an indexed
// property from its first values, so one value type per indexed property).

// name: entity_id_unique
// Only where a KG has its database to itself: ids repeat across KGs in a shared database.
CREATE CONSTRAINT kgcert_entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE

// name: entity_name_index
CREATE INDEX kgcert_entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name)

// name: relation_type_index
CREATE INDEX kgcert_relation_type IF NOT EXISTS FOR (r:KgcertRelation) ON (r.type)

// name: kg_id_index
// A shared database: the KG's own id index, on its label (ids are unique within one KG).
CREATE INDEX {{index}} IF NOT EXISTS FOR (n:{{scope}}) ON (n.id)

// name: drop_kg_id_index
DROP INDEX {{index}} IF EXISTS

// name: await_index
CALL db.awaitIndex($index, $timeout_s)

// name: resample_index
// Index statistics are otherwise sampled in the background some time after the writes.
CALL db.resampleIndex($index)
