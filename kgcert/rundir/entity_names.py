"""The names of every entity a run's prompts drew on, kept in `entity_names.json` in the run
folder, so the report can caption each subgraph's entities by name (context entities appear
in a prompt only inside sentences; their records hold ids).

    write_entity_names(store, run)   # after a run: reads the sample files, asks the KG

The file itself is read and written through `RunDir` (`entity_names`, `write_entity_names`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.sample_record import SampleRecord
from kgcert.store.graph import GraphStore

if TYPE_CHECKING:
    from kgcert.graphview import PromptGraph

BATCH = 5_000


def _ids(record: SampleRecord) -> Iterator[str]:
    prompt = record.prompt or {}
    provenance = record.provenance
    yield from (str(i) for i in (provenance.get("nodes") or {}).values())
    for edge in provenance.get("edges") or []:
        if isinstance(edge, list | tuple) and len(edge) == 3:
            yield str(edge[0])
            yield str(edge[2])
    for text in (provenance.get("extra") or {}).get("context_edges") or []:
        parts = str(text).split("|")
        if len(parts) == 3:
            yield parts[0]
            yield parts[2]
    yield from (str(i) for i in prompt.get("option_ids") or [])
    yield from (str(i) for i in provenance.get("distractors") or [])


def run_entity_ids(run: RunDir) -> set[str]:
    found: set[str] = set()
    for path in run.sample_files():
        for _, record in run.sample_records(path):
            found.update(_ids(record))
    return found


def _batches(ids: Iterable[str]) -> Iterator[list[str]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), BATCH):
        yield ordered[start:start + BATCH]


def write_entity_names(store: GraphStore, run: RunDir,
                       graph: PromptGraph | None = None) -> int:
    """Add the names of the run's entities not yet in the file; returns how many it holds.
    With the run's prompt graph, its names (a snapshot's need no read: a run of 25,000
    prompts names some 100,000 entities)."""
    from kgcert.graphview.view import stored_names

    names = run.entity_names()
    missing = run_entity_ids(run) - set(names)
    for batch in _batches(missing):
        names.update(graph.stored_names(batch) if graph is not None
                     else stored_names(store, batch))
    if missing or not run.has_entity_names():
        run.write_entity_names(names)
    return len(names)
