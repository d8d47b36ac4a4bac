"""Write a run into its KG's database, count what is there, and delete it again.

    result = write_run(store, read_run(Path("runs/my-run")))
    delete_run(store, result.run)

Idempotent: every node is MERGEd on a stable key (run id; run|spec|setting|model for a
certificate; the certificate key|index for a sample) and every link is MERGEd between them,
so writing a run twice creates nothing; a write cut short is completed by writing again.
Writes go in batches of samples, one UNWIND statement per node or relationship kind per batch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TypeVar

from kgcert.errors import InputError
from kgcert.loading.manifest import read_manifest
from kgcert.store.cypher import named, statement
from kgcert.store.graph import GraphStore
from kgcert.writeback.run_files import RunData, SampleRow

FILE = "writeback"
SCHEMA = ("run_id_unique", "certificate_key_unique", "sample_key_unique",
          "certificate_run_index", "sample_run_index")
# Several KGs in one database may each hold a write-back of the same run: keys repeat.
SHARED_SCHEMA = ("run_id_index", "certificate_key_index", "sample_key_index",
                 "certificate_run_index", "sample_run_index")
LINK_TYPES = ("IN_RUN", "OF_CERTIFICATE", "USED", "ANSWER", "CHOSE", "DISTRACTOR", "OPTION")
LINK_STATEMENTS = {"USED": "link_used", "ANSWER": "link_answer", "CHOSE": "link_chose",
                   "DISTRACTOR": "link_distractor", "OPTION": "link_option"}
COUNTED = ("runs", "certificates", "samples", *LINK_TYPES)
BATCH = 500
_T = TypeVar("_T")


@dataclass
class WriteResult:
    """What the graph holds for the run after the write, and what this write added."""

    run: str
    kg: str
    totals: dict[str, int]
    created: dict[str, int]
    missing_entities: list[str] = field(default_factory=list)  # ids the KG does not hold
    warnings: list[str] = field(default_factory=list)


def _batches(items: Sequence[_T], size: int) -> Iterator[list[_T]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def ensure_schema(store: GraphStore) -> None:
    """The write-back's uniqueness constraints and indexes (made before the first write)."""
    for name in SHARED_SCHEMA if store.shared else SCHEMA:
        store.execute(statement(FILE, name))


def run_counts(store: GraphStore, run: str) -> dict[str, int]:
    """Nodes and links of one written-back run, by kind (links: from its nodes)."""
    counts = dict.fromkeys(COUNTED, 0)
    counts["runs"] = int(store.value(statement(FILE, "count_runs"), run=run) or 0)
    counts["certificates"] = int(store.value(statement(FILE, "count_certificates"), run=run) or 0)
    counts["samples"] = int(store.value(statement(FILE, "count_samples"), run=run) or 0)
    counts["IN_RUN"] = int(store.value(statement(FILE, "count_certificate_links"), run=run) or 0)
    for row in store.query(statement(FILE, "count_sample_links"), run=run):
        counts[str(row["type"])] = counts.get(str(row["type"]), 0) + int(row["count"])
    return counts


def _check_link_types(store: GraphStore) -> None:
    """Refuse a KG whose own relationship types share a name with write-back's links (from
    its relation metadata, or an entity-to-entity edge of that type)."""
    clash = {str(row["type"]) for row in store.query(statement(FILE, "relation_conflicts"),
                                                     types=list(LINK_TYPES))}
    for rel_type in set(LINK_TYPES) & set(store.relationship_types()) - clash:
        if store.query(named(FILE, "entity_edge_of_type", rel_type=rel_type)):
            clash.add(rel_type)
    if clash:
        raise InputError(f"KG {store.kg} has relationship types {', '.join(sorted(clash))}, "
                         "which write-back uses for its own links; it would mix with them")


def _warnings(store: GraphStore, run: RunData) -> list[str]:
    notes = []
    if run.config.kg.name != store.kg:
        notes.append(f"the run was made on KG {run.config.kg.name!r}; written into {store.kg!r}")
    manifest = read_manifest(store)
    others = sorted(run.kg_fingerprints - {manifest.fingerprint}) if manifest else []
    if manifest is not None and others:
        notes.append(f"the run's certificates name another load of the KG (fingerprint "
                     f"{', '.join(f[:16] for f in others)}; {store.kg} is "
                     f"{manifest.fingerprint[:16]}): samples are linked by entity id")
    return notes


def _missing(store: GraphStore, samples: Sequence[SampleRow], size: int) -> list[str]:
    ids = sorted({i for sample in samples for i in sample.links.entity_ids()})
    missing: list[str] = []
    for batch in _batches(ids, size * 4):
        missing += [str(row["id"]) for row in store.query(statement(FILE, "missing_entities"),
                                                          ids=batch)]
    return missing


def write_run(store: GraphStore, run: RunData, *, batch_size: int = BATCH) -> WriteResult:
    """Write (or complete, or refresh) the run's nodes and links in `store`."""
    if batch_size < 1:
        raise InputError("batch size must be at least 1")
    _check_link_types(store)
    ensure_schema(store)
    before = run_counts(store, run.id)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    store.execute(statement(FILE, "merge_run"), id=run.id, now=now, props=run.run_props())
    certificates = [c.row() for c in run.certificates]
    for batch in _batches(certificates, batch_size):
        store.execute(statement(FILE, "merge_certificates"), run=run.id, rows=batch)
    samples = run.samples
    for sample_batch in _batches(samples, batch_size):
        store.execute(statement(FILE, "merge_samples"), rows=[s.row() for s in sample_batch])
        for kind, name in LINK_STATEMENTS.items():
            rows = [row for s in sample_batch for row in s.links.kinds()[kind]]
            if rows:
                store.execute(statement(FILE, name), rows=rows)
    store.execute(statement(FILE, "finish_run"), id=run.id)
    totals = run_counts(store, run.id)
    created = {kind: totals[kind] - before.get(kind, 0) for kind in totals}
    return WriteResult(run.id, store.kg, totals, created,
                       _missing(store, samples, batch_size), _warnings(store, run))


def delete_run(store: GraphStore, run: str, *, batch_size: int = 5_000) -> dict[str, int]:
    """Remove a written-back run: its samples, certificates and run node, with their links.
    Returns what was there before."""
    existing = run_counts(store, run)
    for name in ("delete_samples", "delete_certificates"):
        while store.value(statement(FILE, name), run=run, batch=batch_size):
            pass
    store.value(statement(FILE, "delete_run"), run=run)
    return existing
