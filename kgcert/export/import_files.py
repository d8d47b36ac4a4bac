"""What an export wrote, and the files that tell neo4j-admin and a person what to do with it:
import.sh (the command), schema.cypher (kgcert's indexes, made after the import) and
NEXT_STEPS.txt (the steps in order)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from kgcert import __version__
from kgcert.export.csv_columns import delimiter_option
from kgcert.loading.manifest import Manifest
from kgcert.store.bulk import SHARED_SCHEMA_STATEMENTS
from kgcert.store.cypher import kg_index_name, kg_label, named, statement
from kgcert.store.kg_data import KGData


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
    delimiter = delimiter_option(files.array_delimiter)
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


def write_script(files: ImportFiles) -> None:
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
