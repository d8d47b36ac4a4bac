"""`kgcert load`: files -> loader -> bulk writer, guarded by the manifest.

Loading is all-or-nothing per KG. The files are parsed before the server is asked anything,
so bad input leaves nothing behind. The manifest is written as "loading" before the first node
and as "complete" after the last edge, so a load killed midway is recognised on the next run and
rebuilt; a write that fails removes what it wrote. Reloading the same files (same fingerprint)
changes nothing. Only the KG's own data is ever deleted: its database on the embedded server,
its labelled nodes in a shared Neo4j database.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from kgcert.errors import InputError, StoreError
from kgcert.loaders import Loader
from kgcert.loading import progress as loadprogress
from kgcert.loading.manifest import COMPLETE, Manifest, now, read_manifest
from kgcert.store.bulk import BulkWriter
from kgcert.store.cypher import statement
from kgcert.store.graph import GraphStore
from kgcert.store.kg_data import KGData
from kgcert.store.server import GraphServer, check_kg_name
from kgcert.util.freed_memory import return_freed_memory

Report = Callable[[str], None]
EdgeProgress = Callable[[int, int], None]  # (edges done, edges total)
WRITING_NODES, WRITING_EDGES = "writing nodes", "writing edges"  # phases (loading/progress.py)


@dataclass(frozen=True)
class LoadResult:
    kg: str
    manifest: Manifest
    skipped: bool  # the same files were already loaded


def source_manifest(loader: Loader, paths: Sequence[Path], kg: str
                    ) -> tuple[list[Path], Manifest]:
    """The loader's source files and the manifest describing them (still `loading`)."""
    check_kg_name(kg)
    files = loader.source_files(paths)
    return files, Manifest.for_files(kg, loader.format, loader.version,
                                     loader.options.manifest_view(), files)


def parse(loader: Loader, files: Sequence[Path], manifest: Manifest,
          report: Report = lambda _: None) -> KGData:
    """Read the files, report skipped rows, refuse a KG with no entities, note it all."""
    data = loader.read(files)
    return_freed_memory()  # what the parsing freed, before the server's heap grows beside it
    unchanged_since_checksum(files, manifest)
    if data.problems.count:
        report(f"skipped {data.problems.summary()}; --strict stops at the first")
    if data.node_count == 0:
        raise InputError(f"no entities found in {', '.join(str(f) for f in files)}")
    manifest.notes = [*data.notes] + (
        [f"skipped {data.problems.summary()}"] if data.problems.count else []
    )
    return data


def unchanged_since_checksum(files: Sequence[Path], manifest: Manifest) -> None:
    """The manifest's checksums must describe the bytes the loader read: a file that grew or
    shrank after it was checksummed (rows appended while it loads) is refused, so the KG never
    holds rows its manifest does not vouch for, nor is the finished file later taken for a
    different load."""
    for path, described in zip(files, manifest.files, strict=True):
        try:
            size = path.stat().st_size
        except OSError:
            size = -1
        if size != described["bytes"]:
            now = f"{size:,} bytes now" if size >= 0 else "gone now"
            raise InputError(f"{path} changed while it was loaded ({described['bytes']:,} bytes "
                             f"when checksummed, {now}: rows appended?); load it again once "
                             "it is complete")


@dataclass(frozen=True)
class ParsedSource:
    """A KG parsed from its files, with the manifest describing them (still `loading`)."""

    kg: str
    data: KGData
    manifest: Manifest


def read_source(loader: Loader, paths: Sequence[Path], kg: str,
                report: Report = lambda _: None,
                listener: loadprogress.Listener | None = None) -> ParsedSource:
    """Parse a KG as `kgcert load` does, with no server; `listener` hears how the reading
    and preprocessing go."""
    files, manifest = source_manifest(loader, paths, kg)
    with loadprogress.listening(listener, files):
        data = parse(loader, files, manifest, report)
    return ParsedSource(kg, data, manifest)


@contextmanager
def parsed_kg_frozen() -> Iterator[None]:
    """Everything in the process so far (a parsed KG: about 100M objects at Wikidata5m size)
    kept out of Python's cyclic collector while the KG is written. JPype runs that collector
    when Java collects, and it walked the whole parsed KG each time: minutes at full size
    before the first node was written."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def load(
    server: GraphServer,
    loader: Loader,
    paths: Sequence[Path],
    kg: str,
    *,
    replace: bool = False,
    report: Report = lambda _: None,
    progress: EdgeProgress | None = None,
) -> LoadResult:
    source = read_source(loader, paths, kg, report)
    with parsed_kg_frozen():
        return store_source(server, source, replace=replace, report=report, progress=progress,
                            written_once=True)


def store_source(server: GraphServer, source: ParsedSource, *, replace: bool = False,
                 report: Report = lambda _: None, progress: EdgeProgress | None = None,
                 written_once: bool = False) -> LoadResult:
    """Write a parsed KG unless the same files are loaded already; a different earlier load
    needs `replace`, an unfinished one is rebuilt. A second load of the same KG running at
    the same time (several processes on one Neo4j) is refused in one line, touching nothing.
    `written_once`: the source is not written again, so what only its nodes read is let go
    of once they are written (a benchmark that writes one source twice leaves it False)."""
    with server.loading(source.kg):
        return _store_source(server, source, replace=replace, report=report, progress=progress,
                             written_once=written_once)


def _store_source(server: GraphServer, source: ParsedSource, *, replace: bool,
                  report: Report, progress: EdgeProgress | None,
                  written_once: bool) -> LoadResult:
    kg, manifest = source.kg, source.manifest
    if server.exists(kg):
        problem = server.damage(kg)
        previous = None if problem else read_manifest(server.store(kg))
        if problem:
            report(f"KG {kg!r} is damaged ({problem}); rebuilding it")
            server.drop(kg)
        elif previous is None or previous.status != COMPLETE:
            report(f"KG {kg!r}: an earlier load did not finish; rebuilding it")
            server.drop(kg)
        elif replace:
            report(f"KG {kg!r}: replacing the earlier load")
            server.drop(kg)
        elif previous.fingerprint == manifest.fingerprint:
            report(f"KG {kg!r} is already loaded from these files; nothing to do")
            return LoadResult(kg, previous, skipped=True)
        else:
            raise InputError(
                f"KG {kg!r} already holds a different load ({previous.format} from "
                f"{', '.join(f['name'] for f in previous.files)}); pass --replace or another --kg"
            )
    try:
        write_kg(server, kg, source.data, manifest, progress, written_once=written_once)
    except Exception as error:  # not a kill (the manifest says `loading`: the next load rebuilds)
        full = server.full_disk(error)  # asked before the cleanup frees space
        removed = _remove_failed(server, kg)
        if full:
            raise StoreError(f"the disk holding {full} is full (No space left on device): KG "
                             f"{kg!r} did not fit ({removed}); free space there or pass "
                             "another --data-dir") from error
        memory = server.out_of_memory(error)
        if memory:
            raise StoreError(f"KG {kg!r} did not fit in memory ({removed}): {memory}") from error
        report(f"KG {kg!r}: the load failed; {removed}")
        raise
    return LoadResult(kg, manifest, skipped=False)


def _remove_failed(server: GraphServer, kg: str) -> str:
    """A write that failed (full disk, a value the server refuses) leaves no half-made KG."""
    try:
        server.drop(kg)
    except Exception as error:  # the drop can fail for the same reason; the next load retries
        return (f"could not remove the failed load ({_first_line(error)}); the next "
                "`kgcert load` rebuilds it")
    return "removed what it had written"


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def write_kg(server: GraphServer, kg: str, data: KGData, manifest: Manifest,
             progress: EdgeProgress | None = None,
             writer_factory: Callable[[GraphStore], BulkWriter] | None = None,
             written_once: bool = False) -> None:
    """Write parsed data into a fresh database, bracketed by the manifest's two states;
    `written_once`: once every node is written, `data` lets go of what only its node rows
    read (they cannot be made again)."""
    store = server.create(kg)
    manifest.save(store)
    writer = (writer_factory or server.bulk_writer)(store)
    writer.prepare(sorted(data.nodes), sorted(data.edges))
    nodes = 0

    def wrote_nodes(count: int) -> None:
        nonlocal nodes
        nodes += count
        loadprogress.tick(WRITING_NODES, nodes, data.node_count, "nodes")

    loadprogress.tick(WRITING_NODES, 0, data.node_count, "nodes")  # the phase's clock starts
    for label, table in sorted(data.nodes.items()):
        writer.write_node_parts(label, table.parts(), wrote_nodes)
    writer.nodes_written()
    if written_once:
        data.release_node_rows()
    return_freed_memory()  # the node rows' garbage, before the edge batch fills the heap
    total, done = data.edge_count, 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress:
            progress(done, total)
        loadprogress.tick(WRITING_EDGES, done, total, "edges")

    loadprogress.tick(WRITING_EDGES, 0, total, "edges")
    for rel_type, edges in sorted(data.edges.items()):
        for part in edges.parts():  # one part at a time: a columnar table makes it on demand
            writer.write_edge_part(rel_type, part, advance)
    writer.finish()
    if data.relations:
        store.execute(statement("load", "create_relations"),
                      rows=[r.as_row() for r in data.relations])
    manifest.counts = data.counts()
    manifest.status = COMPLETE
    manifest.finished_at = now()
    manifest.save(store)
