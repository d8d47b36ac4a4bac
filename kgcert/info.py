"""Live counts of a loaded KG, straight from the database."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from kgcert.manifest import read_manifest
from kgcert.store.cypher import is_kgcert_label, named
from kgcert.store.graph import GraphStore


def kg_info(store: GraphStore) -> dict[str, Any]:
    labels = [label for label in store.labels()
              if label != "Entity" and not is_kgcert_label(label)]
    manifest = read_manifest(store)
    return {
        "kg": store.kg,
        "nodes": store.value(named("info", "count_nodes")),
        "relationships": store.value(named("info", "count_edges")),
        "labels": {label: store.value(named("info", "count_label", label=label))
                   for label in labels},
        "relationship_types": {
            rel: store.value(named("info", "count_rel_type", rel_type=rel))
            for rel in store.relationship_types()
        },
        "manifest": {**asdict(manifest), "fingerprint": manifest.fingerprint} if manifest else None,
    }
