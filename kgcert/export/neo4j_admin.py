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

import csv
import gzip
import json
import math
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import repeat
from pathlib import Path
from typing import IO, Any

from kgcert import __version__
from kgcert.config import NEO4J_DEFAULT_DATABASE
from kgcert.errors import InputError
from kgcert.loaders import Loader
from kgcert.loaders.records import KGData
from kgcert.loading import Report
from kgcert.loading import read_source as read_loaded_source
from kgcert.manifest import COMPLETE, Manifest, now
from kgcert.store.bulk import SHARED_SCHEMA_STATEMENTS
from kgcert.store.cypher import is_safe_identifier, kg_index_name, kg_label, named, statement
from kgcert.store.server import check_kg_name

ENTITY = "Entity"
RELATION_LABEL = "KgcertRelation"
MANIFEST_LABEL = "KgcertManifest"
# Tried in order; the first that no array element contains is the import's array delimiter.
ARRAY_DELIMITERS = (";", "|", "\x1f", "\x1e", "\x1d", "\x1c")
NODE_COLUMNS_FIRST = ("name", "type", "aliases")
RELATION_COLUMNS_FIRST = ("type", "source_type", "target_type", "display", "name", "aliases",
                          "template")
_BAD_KEY_CHARACTERS = set(':,"\r\n\x00')
_CHUNK = 50_000  # edges per writerows call (and per progress report)

EdgeProgress = Callable[[int, int], None]  # (edges written, edges total)


@dataclass(frozen=True)
class ImportFiles:
    """What `write_neo4j_admin` wrote, and the command that imports it."""

    out_dir: Path
    database: str
    node_files: dict[str, Path]  # entity label -> file
    relationship_files: dict[str, Path]  # relationship type -> file
    meta_node_files: list[Path]  # the KgcertRelation nodes (if any), then the KgcertManifest
    script: Path
    schema: Path
    next_steps: Path
    command: list[str]  # neo4j-admin's argv, with absolute paths
    array_delimiter: str
    multiline: bool
    manifest: Manifest  # as written into the graph: status complete, with counts

    @property
    def all_node_files(self) -> list[Path]:
        return [*self.node_files.values(), *self.meta_node_files]

    @property
    def files(self) -> list[Path]:
        return [*self.all_node_files, *self.relationship_files.values()]


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
    scope = kg_label(manifest.kg)
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
    scan = _Scan()
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
    ids: set[str] = set()
    for label, path in node_files.items():
        _write_nodes(path, data.nodes[label].rows, node_columns[label],
                     f"id:ID({ENTITY})", delimiter.join([label, ENTITY, scope]), delimiter, ids)
    meta_files = []
    if relation_rows:
        meta_files.append(out_dir / "kgcert" / f"relations{suffix}")
        _write_nodes(meta_files[-1], relation_rows, relation_columns,
                     f":ID({RELATION_LABEL})", f"{RELATION_LABEL}{delimiter}{scope}",
                     delimiter, None)
    meta_files.append(out_dir / "kgcert" / f"manifest{suffix}")
    _write_nodes(meta_files[-1], manifest_rows, manifest_columns,
                 f":ID({MANIFEST_LABEL})", f"{MANIFEST_LABEL}{delimiter}{scope}",
                 delimiter, None)
    total, written = data.edge_count, 0
    for rel_type, path in edge_files.items():
        table = data.edges[rel_type]
        missing = _first_missing(ids, table.sources, table.targets)
        if missing is not None:
            raise InputError(f"relationship {rel_type}: endpoint {missing!r} is no entity id; "
                             "neo4j-admin would refuse the import")
        with _open_text(path, compress) as handle:
            columns = edge_columns[rel_type]
            handle.write(",".join([f":START_ID({ENTITY})", f":END_ID({ENTITY})", ":TYPE",
                                   *(c.header for c in columns)]) + "\n")
            writer = _writer(handle)
            formats = [(c.key, c.formatter(delimiter)) for c in columns]
            for start in range(0, len(table), _CHUNK):
                stop = min(start + _CHUNK, len(table))
                sources, targets = table.sources[start:stop], table.targets[start:stop]
                if table.properties is None or not formats:
                    writer.writerows(zip(sources, targets, repeat(rel_type)))
                else:
                    writer.writerows(
                        [source, target, rel_type, *(fmt(props.get(key)) for key, fmt in formats)]
                        for source, target, props in zip(
                            sources, targets, table.properties[start:stop], strict=True)
                    )
                written += stop - start
                if progress:
                    progress(written, total)

    command = [neo4j_admin, "database", "import", "full", database, "--overwrite-destination",
               "--id-type=string", f"--array-delimiter={_delimiter_option(delimiter)}"]
    if scan.multiline:
        command.append("--multiline-fields=true")
    # neo4j-admin writes its report of skipped rows to the working directory unless told
    command.append(f"--report-file={(out_dir / 'import.report').resolve()}")
    command += [f"--nodes={p.resolve()}" for p in [*node_files.values(), *meta_files]]
    command += [f"--relationships={p.resolve()}" for p in edge_files.values()]
    files = ImportFiles(
        out_dir=out_dir, database=database, node_files=node_files,
        relationship_files=edge_files, meta_node_files=meta_files,
        script=out_dir / "import.sh", schema=out_dir / "schema.cypher",
        next_steps=out_dir / "NEXT_STEPS.txt", command=command, array_delimiter=delimiter,
        multiline=scan.multiline, manifest=done,
    )
    _write_script(files)
    files.schema.write_text(schema_script(manifest.kg), encoding="utf-8")
    files.next_steps.write_text(next_steps(files, data), encoding="utf-8")
    return files


def schema_script(kg: str) -> str:
    """kgcert's indexes for KG `kg` in a shared database (cypher/schema.cypher), as a file
    cypher-shell runs, then a wait."""
    lines = ["// kgcert's indexes (cypher/schema.cypher); run after the import:",
             "// cypher-shell -d <database> -f schema.cypher"]
    lines += [statement("schema", name).strip() + ";" for name in SHARED_SCHEMA_STATEMENTS]
    lines.append(named("schema", "kg_id_index", index=kg_index_name(kg),
                       scope=kg_label(kg)).strip() + ";")
    lines.append("CALL db.awaitIndexes(3600);")
    return "\n".join(lines) + "\n"


def next_steps(files: ImportFiles, data: KGData) -> str:
    db, out = files.database, files.out_dir.resolve()
    counts = files.manifest.counts
    words = [shlex.quote(a) for a in files.command]
    command = " \\\n            ".join([" ".join(words[:5]), *words[5:]])
    schema = "\n".join(f"        {line}"
                       for line in schema_script(files.manifest.kg).splitlines()[2:])
    relations = len(data.relations)
    delimiter = _delimiter_option(files.array_delimiter)
    multiline = "yes" if files.multiline else "no"
    return f"""\
KG {files.manifest.kg!r} as neo4j-admin import files, written by kgcert {__version__}
({files.manifest.finished_at}): {counts['nodes']:,} entities with {len(data.nodes)} labels,
{counts['edges']:,} relationships of {len(data.edges)} types, {relations:,} KgcertRelation
nodes and the KgcertManifest node. Array delimiter {delimiter!r}; multiline fields: {multiline}.

Bulk import into a local Neo4j 5 (the database {db!r} is rebuilt from these files:
everything it held before is gone, other KGs and your own data included; to add a KG beside
other data, use `kgcert load` instead, which writes over Bolt and touches nothing else):

1. Take the database offline. Neo4j Community has one database, `neo4j` (the default of
   --database): stop the server (`neo4j stop`). Enterprise: any name; if {db!r}
   exists, run `STOP DATABASE {db}` against the system database.

2. Import, as the user that owns Neo4j's data directory:

        NEO4J_ADMIN=$NEO4J_HOME/bin/neo4j-admin {out}/import.sh

   which runs (--overwrite-destination replaces a database of the same name):

        {command}

3. Start it: `neo4j start`. Enterprise: `CREATE DATABASE {db}` (a new database) or
   `START DATABASE {db}`, against the system database.

4. Create kgcert's indexes (neo4j-admin does not):

        cypher-shell -u neo4j -p <password> -d {db} -f {out}/schema.cypher

   that is:

{schema}

5. Check it from kgcert:

        KGCERT_NEO4J_USER=neo4j KGCERT_NEO4J_PASSWORD=<password> \\
            kgcert --db neo4j://localhost:7687 info

   shows {counts['nodes']:,} entities, {counts['edges']:,} relationships and the manifest
   (status complete). `kgcert load` of the same files then finds the KG already loaded.
"""


# --- CSV writing ---------------------------------------------------------------------------


class _Bare(float):
    """A field the csv module writes bare, as its text (QUOTE_NONNUMERIC quotes all else).

    Used for missing values (an empty unquoted field: no property), booleans and the
    non-finite doubles, whose spelling neo4j-admin reads differently from Python's.
    """

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> _Bare:
        bare = super().__new__(cls, 0.0)
        bare.text = text
        return bare

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


_MISSING = _Bare("")
_TRUE, _FALSE = _Bare("true"), _Bare("false")


def _writer(handle: IO[str]) -> Any:
    return csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")


@contextmanager
def _open_text(path: Path, compress: bool) -> Iterator[IO[str]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    if compress:
        with gzip.open(path, "wt", encoding="utf-8", newline="", compresslevel=1) as zipped:
            yield zipped
    else:
        with path.open("w", encoding="utf-8", newline="") as plain:
            yield plain


def _write_nodes(path: Path, rows: Sequence[Mapping[str, Any]], columns: list[_Column],
                 id_header: str, labels: str, delimiter: str, ids: set[str] | None) -> None:
    """One node file; entity ids are checked unique across files (`ids` collects them)."""
    formats = [(c.key, c.formatter(delimiter)) for c in columns]
    with _open_text(path, path.name.endswith(".gz")) as handle:
        handle.write(",".join([id_header, *(c.header for c in columns), ":LABEL"]) + "\n")
        writer = _writer(handle)
        for number, row in enumerate(rows):
            if ids is None:
                node_id = str(number)
            else:
                if row.get("id") is None:
                    raise InputError(f"an entity of {path.stem.split('.')[0]} has no id")
                node_id = str(row["id"])
                if node_id in ids:
                    raise InputError(f"entity id {node_id!r} appears twice; "
                                     "neo4j-admin would refuse the import")
                ids.add(node_id)
            writer.writerow([node_id, *(fmt(row.get(key)) for key, fmt in formats), labels])


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


def _delimiter_option(delimiter: str) -> str:
    return delimiter if delimiter.isprintable() else f"U+{ord(delimiter):04X}"


def _write_script(files: ImportFiles) -> None:
    def here(path: Path) -> str:
        return f'"$here/{path.relative_to(files.out_dir).as_posix()}"'

    placed = ("--nodes=", "--relationships=", "--report-file=")
    options = [shlex.quote(a) for a in files.command[4:] if not a.startswith(placed)]
    options.append('--report-file="$here/import.report"')
    options += [f"--nodes={here(p)}" for p in files.all_node_files]
    options += [f"--relationships={here(p)}" for p in files.relationship_files.values()]
    body = " \\\n    ".join(['exec "${NEO4J_ADMIN:-neo4j-admin}" database import full', *options])
    files.script.write_text(f"""\
#!/usr/bin/env bash
# Bulk import of KG {files.manifest.kg!r} into a local Neo4j 5 database
# {files.database!r}, written by kgcert {__version__}. Read NEXT_STEPS.txt first: the database
# must be offline, and kgcert's schema (schema.cypher) is created after the import.
# NEO4J_ADMIN=/path/to/neo4j/bin/neo4j-admin picks the tool (default: neo4j-admin on PATH).
set -euo pipefail
here="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd -P)"
{body}
""", encoding="utf-8")
    files.script.chmod(0o755)


# --- Column types --------------------------------------------------------------------------

_NUMBER_KINDS = {"long", "double"}


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    return "text"  # anything else is written as JSON text


def _merge(kinds: set[str]) -> str:
    if not kinds:
        return "string"
    if len(kinds) == 1:
        return next(iter(kinds))
    return "double" if kinds <= _NUMBER_KINDS else "text"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


def _double(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


@dataclass
class _Column:
    key: str
    scalars: set[str] = field(default_factory=set)  # kinds of the non-list values
    elements: set[str] = field(default_factory=set)  # kinds of the list elements
    lists: bool = False

    @property
    def kind(self) -> str:
        """neo4j-admin's type: string, long, double, boolean, <one of them>[], or text."""
        if self.lists and not self.scalars:
            element = _merge(self.elements)
            return ("string" if element == "text" else element) + "[]"
        return "text" if self.lists else _merge(self.scalars)

    @property
    def header(self) -> str:
        kind = self.kind
        return self.key if kind in ("string", "text") else f"{self.key}:{kind}"

    def formatter(self, delimiter: str) -> Callable[[Any], Any]:
        kind = self.kind
        if kind == "string":
            return lambda v: _MISSING if v is None else v
        if kind == "text":
            return lambda v: _MISSING if v is None else _text(v)
        if kind == "long":
            return lambda v: _MISSING if v is None else v
        if kind == "double":
            return lambda v: _MISSING if v is None else (
                float(v) if math.isfinite(v) else _Bare(_double(v)))
        if kind == "boolean":
            return lambda v: _MISSING if v is None else (_TRUE if v else _FALSE)
        if kind == "string[]" and self.elements == {"string"}:
            return lambda v: delimiter.join(v) if v else _MISSING
        return lambda v: delimiter.join(_text(x) for x in v) if v else _MISSING


class _Scan:
    """The first pass: column types, array delimiters still free, line breaks."""

    def __init__(self) -> None:
        self.free = list(ARRAY_DELIMITERS)
        self.multiline = False

    def _element(self, text: str) -> None:
        if any(c in text for c in self.free):
            self.free = [c for c in self.free if c not in text]
        self._string(text)

    def _string(self, text: str) -> None:
        if not self.multiline and ("\n" in text or "\r" in text):
            self.multiline = True

    def rows(self, rows: Iterable[Mapping[str, Any]], first: Sequence[str],
             skip: Sequence[str] = ()) -> list[_Column]:
        """The columns of `rows` (those named in `first` first, then by name)."""
        columns: dict[str, _Column] = {}
        for row in rows:
            for key, value in row.items():
                column = columns.get(key)
                if column is None:
                    _check_key(key)
                    column = columns[key] = _Column(key)
                if value is None:
                    continue
                if isinstance(value, (list, tuple)):
                    column.lists = True
                    if all(isinstance(x, str) for x in value):  # the usual case, done at once
                        if value:
                            column.elements.add("string")
                            self._element("".join(value))
                        continue
                    for item in value:
                        kind = _kind(item)
                        column.elements.add(kind)
                        if kind in ("string", "text"):
                            self._element(_text(item))
                else:
                    column.scalars.add(_kind(value))
                    if isinstance(value, str):
                        self._string(value)
        for key in skip:
            columns.pop(key, None)
        return [columns.pop(k) for k in first if k in columns] + [
            columns[k] for k in sorted(columns)]

    def delimiter(self) -> str:
        if not self.free:
            raise InputError("every array delimiter neo4j-admin could use ("
                             + ", ".join(_delimiter_option(c) for c in ARRAY_DELIMITERS)
                             + ") occurs inside some list value")
        return self.free[0]


def _check_key(key: str) -> None:
    if not isinstance(key, str) or not key or key != key.strip() or (
            _BAD_KEY_CHARACTERS & set(key)):
        raise InputError(f"property name {key!r} cannot be a neo4j-admin column name")
