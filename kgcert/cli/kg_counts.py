"""Live counts of a loaded KG, straight from the database."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kgcert.loading.manifest import read_manifest
from kgcert.store.cypher import is_kgcert_label, named
from kgcert.store.graph import GraphStore


def kg_info(store: GraphStore) -> dict[str, Any]:
    labels = [label for label in store.labels()
              if label != "Entity" and not is_kgcert_label(label)]
    manifest = read_manifest(store)
    by_type = {str(row["rel_type"]): int(row["count"])
               for row in store.query(named("info", "count_by_rel_type"))}
    directions: dict[str, list[str]] = {}
    for row in store.query(named("info", "relations")):
        relation = row["relation"] or {}
        if relation.get("type") and relation.get("source_type") and relation.get("target_type"):
            way = f"{relation['source_type']} -> {relation['target_type']}"
            if way not in directions.setdefault(str(relation["type"]), []):
                directions[str(relation["type"])].append(way)
    links = {str(row["rel_type"]): int(row["count"])
             for row in store.query(named("info", "count_writeback_links"))}
    return {
        "kg": store.kg,
        "nodes": store.value(named("info", "count_nodes")),
        "relationships": sum(by_type.values()),  # the types partition the edges
        "labels": {label: store.value(named("info", "count_label", label=label))
                   for label in labels},
        "relationship_types": {rel: by_type[rel] for rel in store.relationship_types()
                               if rel in by_type or rel not in links},
        "writeback_links": links,
        "directions": directions,  # relationship type -> "source type -> target type"
        "manifest": {**asdict(manifest), "fingerprint": manifest.fingerprint} if manifest else None,
    }
