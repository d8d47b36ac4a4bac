// One load of a KG at a time on a shared Neo4j: a lease node per KG being loaded, renewed by
// the load while it runs and deleted when it ends. A load that was killed stops renewing it,
// so the lease runs out and the next load takes it. Times are the server's (no clock skew).

// name: load_lock_unique
// Makes two MERGEs of one KG's lease take turns instead of both creating one.
CREATE CONSTRAINT kgcert_load_lock IF NOT EXISTS FOR (l:KgcertLoadLock) REQUIRE l.kg IS UNIQUE

// name: take
MERGE (l:KgcertLoadLock {kg: $kg})
ON CREATE SET l.owner = $owner, l.expires = 0
WITH l, l.owner = $owner OR l.expires < timestamp() AS free
SET l.owner = CASE WHEN free THEN $owner ELSE l.owner END,
    l.expires = CASE WHEN free THEN timestamp() + $lease_ms ELSE l.expires END
RETURN free

// name: renew
MATCH (l:KgcertLoadLock {kg: $kg, owner: $owner})
SET l.expires = timestamp() + $lease_ms
RETURN count(l) AS held

// name: release
MATCH (l:KgcertLoadLock {kg: $kg, owner: $owner})
DELETE l
