"""The names of every entity a run's prompts drew on, kept in `entity_names.json` in the run
folder, so the report can caption each subgraph's entities by name (context entities appear
in a prompt only inside sentences; their records hold ids).

    write_entity_names(store, run_dir)   # after a run: reads the sample files, asks the KG
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from kgcert.rundir.layout import RunLayout
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


def run_entity_ids(run_dir: Path) -> set[str]:
    from kgcert.rundir.sample_log import complete_records

    found: set[str] = set()
    for path in RunLayout(run_dir).sample_files():
        for _, record in complete_records(path):
            found.update(_ids(record))
    return found


def read_entity_names(run_dir: Path) -> dict[str, str]:
    try:
        found = json.loads(RunLayout(run_dir).entity_names_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _batches(ids: Iterable[str]) -> Iterator[list[str]]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), BATCH):
        yield ordered[start:start + BATCH]


def write_entity_names(store: GraphStore, run_dir: Path,
                       graph: PromptGraph | None = None) -> int:
    """Add the names of the run's entities not yet in the file; returns how many it holds.
    With the run's prompt graph, its names (a snapshot's need no read: a run of 25,000
    prompts names some 100,000 entities)."""
    from kgcert.graphview.view import stored_names
    from kgcert.rundir.atomic import write_json

    names = read_entity_names(run_dir)
    missing = run_entity_ids(run_dir) - set(names)
    for batch in _batches(missing):
        names.update(graph.stored_names(batch) if graph is not None
                     else stored_names(store, batch))
    path = RunLayout(run_dir).entity_names_file
    if missing or not path.exists():
        write_json(path, names)
    return len(names)
