"""Files for `neo4j-admin database import full`: the fast way to put a big KG into a local Neo4j 5.

`kgcert load` writes over Bolt (UNWIND batches), the only way into a remote server. With a
local Neo4j, the full PrimeKG or Wikidata5m goes in far faster through neo4j-admin's offline
importer, from the files written here (DESIGN.md, "Graph store"):

    nodes/<Label>.csv           one per entity label:
                                id:ID(Entity),name,type,aliases:string[],...,:LABEL
    relationships/<TYPE>.csv    one per relationship type:
                                :START_ID(Entity),:END_ID(Entity),:TYPE,<properties>
    kgcert/relations.csv        the (:KgcertRelation) nodes that prompts name relations by
    kgcert/manifest.csv         the (:KgcertManifest) node, status complete
    import.sh                   the neo4j-admin command naming every file
    schema.cypher               kgcert's constraints and indexes, to run after the import
    NEXT_STEPS.txt              what to do, in order

The imported graph is the one `kgcert load` builds from the same files: labels Entity plus
the type label, the same properties and relationship types, the relation nodes, and the
manifest with the same fingerprint (so a later `kgcert load` of those files finds it loaded).

CSV details:
- Strings are always quoted, so "" stays an empty string while an unquoted empty field is a
  missing property; numbers and booleans are bare; quotes are doubled (RFC 4180).
- Array elements are joined with one array delimiter for the whole import, chosen so that it
  occurs in no element (neo4j-admin has no escape for it): `;`, else `|`, else a control
  character. The :LABEL column uses it too, and lists the type label before Entity (so
  readers that take the first label, like kgcert's `neo4j-import` loader, get the type).
- A line break in any field turns on --multiline-fields.
- Column types follow the values: str -> string, int -> long, float -> double, bool ->
  boolean, lists -> <type>[]; a column that mixes types is written as text (lists and maps
  as JSON). Empty lists become missing properties (neo4j-admin cannot write an empty array).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import repeat
from pathlib import Path

from kgcert import __version__
from kgcert.errors import InputError
from kgcert.export.csv_columns import (
    Column,
    Scan,
    csv_writer,
    delimiter_option,
    open_text,
    write_nodes,
)
from kgcert.export.import_files import ImportFiles, next_steps, schema_script, write_script
from kgcert.loaders import Loader
from kgcert.loading.manifest import COMPLETE, Manifest, now
from kgcert.loading.pipeline import Report
from kgcert.loading.pipeline import read_source as read_loaded_source
from kgcert.store.cypher import is_safe_identifier, kg_label
from kgcert.store.kg_data import EdgeTable, KGData
from kgcert.store.server import check_kg_name
from kgcert.util.locations import NEO4J_DEFAULT_DATABASE

__all__ = ["ImportFiles", "next_steps", "read_source", "schema_script", "write_neo4j_admin"]

ENTITY = "Entity"
RELATION_LABEL = "KgcertRelation"
MANIFEST_LABEL = "KgcertManifest"
NODE_COLUMNS_FIRST = ("name", "type", "aliases")
RELATION_COLUMNS_FIRST = ("type", "source_type", "target_type", "display", "name", "aliases",
                          "template")
_CHUNK = 50_000  # edges per writerows call (and per progress report)

EdgeProgress = Callable[[int, int], None]  # (edges written, edges total)


def read_source(loader: Loader, paths: Sequence[Path], kg: str,
                report: Report = lambda _: None) -> tuple[KGData, Manifest]:
    """Parse a KG as `kgcert load` does, with no server: the data and its (loading) manifest."""
    source = read_loaded_source(loader, paths, kg, report)
    return source.data, source.manifest


def write_neo4j_admin(
    data: KGData,
    manifest: Manifest,
    out_dir: Path,
    *,
    database: str | None = None,
    compress: bool = False,
    overwrite: bool = False,
    neo4j_admin: str = "neo4j-admin",
    progress: EdgeProgress | None = None,
) -> ImportFiles:
    """Write `data` as neo4j-admin import files under `out_dir`, streaming row by row.

    `database` (default `neo4j`, Community's only database) is the Neo4j database the script
    imports into, rebuilding it whole; every node carries the KG's label, as a `kgcert load`
    into Neo4j gives it. `compress` writes .csv.gz, which neo4j-admin
    reads as is. The input's own `manifest` is left unchanged.
    """
    database = check_kg_name(database or NEO4J_DEFAULT_DATABASE)
    for name in [*data.nodes, *data.edges]:
        if not is_safe_identifier(name):
            raise InputError(f"{name!r} is not a label or relationship type neo4j-admin can take "
                             "as it stands (letters, digits and _ only)")
    out_dir = Path(out_dir)
    _prepare(out_dir, overwrite)
    suffix = ".csv.gz" if compress else ".csv"
    done = replace(
        manifest, counts=data.counts(), status=COMPLETE, finished_at=now(),
        notes=[*manifest.notes, f"written as neo4j-admin import files by kgcert {__version__}"],
    )
    relation_rows = [r.as_row() for r in data.relations]
    manifest_rows = [done.to_properties()]

    # Pass 1: column types, a free array delimiter, line breaks.
    scan = Scan()
    node_columns = {label: scan.rows(t.rows, NODE_COLUMNS_FIRST, skip=("id",))
                    for label, t in sorted(data.nodes.items())}
    edge_columns = {rel: scan.rows(t.properties or (), ())
                    for rel, t in sorted(data.edges.items())}
    relation_columns = scan.rows(relation_rows, RELATION_COLUMNS_FIRST)
    manifest_columns = scan.rows(manifest_rows, ())
    delimiter = scan.delimiter()

    # Pass 2: the files.
    node_names = _file_names(sorted(data.nodes))
    edge_names = _file_names(sorted(data.edges))
    node_files = {label: out_dir / "nodes" / f"{node_names[label]}{suffix}"
                  for label in sorted(data.nodes)}
    edge_files = {rel: out_dir / "relationships" / f"{edge_names[rel]}{suffix}"
                  for rel in sorted(data.edges)}
    scope = kg_label(manifest.kg)
    ids: set[str] = set()
    for label, path in node_files.items():
        write_nodes(path, data.nodes[label].rows, node_columns[label],
                    f"id:ID({ENTITY})", delimiter.join([label, ENTITY, scope]), delimiter, ids)
    meta_files = []
    if relation_rows:
        meta_files.append(out_dir / "kgcert" / f"relations{suffix}")
        write_nodes(meta_files[-1], relation_rows, relation_columns,
                    f":ID({RELATION_LABEL})", f"{RELATION_LABEL}{delimiter}{scope}",
                    delimiter, None)
    meta_files.append(out_dir / "kgcert" / f"manifest{suffix}")
    write_nodes(meta_files[-1], manifest_rows, manifest_columns,
                f":ID({MANIFEST_LABEL})", f"{MANIFEST_LABEL}{delimiter}{scope}",
                delimiter, None)
    written, total = 0, data.edge_count
    for rel_type, path in edge_files.items():
        written = _write_edges(path, rel_type, data.edges[rel_type], edge_columns[rel_type],
                               delimiter, ids, compress, (written, total), progress)

    files = ImportFiles(
        out_dir=out_dir, database=database, node_files=node_files,
        relationship_files=edge_files, meta_node_files=meta_files,
        script=out_dir / "import.sh", schema=out_dir / "schema.cypher",
        next_steps=out_dir / "NEXT_STEPS.txt",
        command=_command(neo4j_admin, database, delimiter, scan.multiline, out_dir,
                         [*node_files.values(), *meta_files], list(edge_files.values())),
        array_delimiter=delimiter, multiline=scan.multiline, manifest=done,
    )
    write_script(files)
    files.schema.write_text(schema_script(manifest.kg), encoding="utf-8")
    files.next_steps.write_text(next_steps(files, data), encoding="utf-8")
    return files


def _write_edges(path: Path, rel_type: str, table: EdgeTable, columns: list[Column],
                 delimiter: str, ids: set[str], compress: bool, counted: tuple[int, int],
                 progress: EdgeProgress | None) -> int:
    """One relationship file, its endpoints checked against the entity `ids`; returns the
    edges written so far (`counted`: those before this file, and the total)."""
    # By parts: a columnar table (loaders/columnar.py) makes its id lists a part at a time.
    # Every source is checked before any target, as the message has always named them.
    for side in ("sources", "targets"):
        for part in table.parts(_CHUNK):
            missing = _first_missing(ids, getattr(part, side))
            if missing is not None:
                raise InputError(f"relationship {rel_type}: endpoint {missing!r} is no entity "
                                 "id; neo4j-admin would refuse the import")
    written, total = counted
    with open_text(path, compress) as handle:
        handle.write(",".join([f":START_ID({ENTITY})", f":END_ID({ENTITY})", ":TYPE",
                               *(c.header for c in columns)]) + "\n")
        writer = csv_writer(handle)
        formats = [(c.key, c.formatter(delimiter)) for c in columns]
        for part in table.parts(_CHUNK):
            if part.properties is None or not formats:
                writer.writerows(zip(part.sources, part.targets, repeat(rel_type)))
            else:
                writer.writerows(
                    [source, target, rel_type, *(fmt(props.get(key)) for key, fmt in formats)]
                    for source, target, props in zip(
                        part.sources, part.targets, part.properties, strict=True)
                )
            written += len(part)
            if progress:
                progress(written, total)
    return written


def _command(neo4j_admin: str, database: str, delimiter: str, multiline: bool, out_dir: Path,
             node_files: list[Path], edge_files: list[Path]) -> list[str]:
    """neo4j-admin's argv, with absolute paths."""
    command = [neo4j_admin, "database", "import", "full", database, "--overwrite-destination",
               "--id-type=string", f"--array-delimiter={delimiter_option(delimiter)}"]
    if multiline:
        command.append("--multiline-fields=true")
    # neo4j-admin writes its report of skipped rows to the working directory unless told
    command.append(f"--report-file={(out_dir / 'import.report').resolve()}")
    command += [f"--nodes={p.resolve()}" for p in node_files]
    command += [f"--relationships={p.resolve()}" for p in edge_files]
    return command


def _first_missing(ids: set[str], *columns: Sequence[str]) -> str | None:
    if all(ids.issuperset(column) for column in columns):
        return None
    return next(x for column in columns for x in column if x not in ids)


def _file_names(names: Sequence[str]) -> dict[str, str]:
    """File stems for labels or types, distinct even on case-insensitive file systems."""
    taken: set[str] = set()
    stems = {}
    for name in names:
        stem, n = name, 1
        while stem.lower() in taken:
            n += 1
            stem = f"{name}_{n}"
        taken.add(stem.lower())
        stems[name] = stem
    return stems


def _prepare(out_dir: Path, overwrite: bool) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise InputError(f"{out_dir} is a file, not a directory")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not overwrite:
            raise InputError(f"{out_dir} is not empty; pass --overwrite or another --out")
        # Only what an earlier export wrote, so no stale file lies beside the new ones.
        for folder in ("nodes", "relationships", "kgcert"):
            for old in (out_dir / folder).glob("*.csv*"):
                old.unlink()
        for name in ("import.sh", "schema.cypher", "NEXT_STEPS.txt"):
            (out_dir / name).unlink(missing_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
