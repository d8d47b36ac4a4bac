"""Live counts of a loaded KG, straight from the database."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kgcert.loading.manifest import COMPLETE, Manifest, read_manifest
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
    report = {
        "kg": store.kg,
        "nodes": store.value(named("info", "count_nodes")),
        "relationships": sum(by_type.values()),  # the types partition the edges
        "labels": {label: store.value(named("info", "count_label", label=label))
                   for label in labels},
        # A type the server still lists may have no edge left (deleted since the load): 0.
        "relationship_types": {rel: by_type.get(rel, 0) for rel in store.relationship_types()
                               if rel in by_type or rel not in links},
        "writeback_links": links,
        "directions": directions,  # relationship type -> "source type -> target type"
        "manifest": {**asdict(manifest), "fingerprint": manifest.fingerprint} if manifest else None,
    }
    report["changed_since_load"] = changes_since_load(report, manifest)
    return report


def changes_since_load(report: dict[str, Any], manifest: Manifest | None) -> list[str]:
    """How the live counts differ from those the load recorded (someone changed the KG
    outside kgcert since), or [] when they agree or no finished load recorded any."""
    if manifest is None:
        return ["no load manifest (its load did not finish, or it was deleted since)"]
    if manifest.status != COMPLETE or not manifest.counts:
        return []
    loaded = manifest.counts
    found = []
    for what, now, then in (("entities", report["nodes"], loaded.get("nodes")),
                            ("relationships", report["relationships"], loaded.get("edges"))):
        if then is not None and now != then:
            found.append(f"{now:,} {what}, {then:,} when loaded")
    return found
