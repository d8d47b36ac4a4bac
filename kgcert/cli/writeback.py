"""`kgcert writeback RUN`: a run's certificates and samples into its KG's database, linked to
the entities each prompt used, for Neo4j Browser (guide: cypher/explore_failures.cypher)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from kgcert.cli.common import Context, console, errors
from kgcert.errors import KgcertError
from kgcert.util.resources import data_folder

LABELS = {"runs": "KgcertRun", "certificates": "KgcertCertificate", "samples": "KgcertSample"}


def _label(kind: str) -> str:
    return f":{LABELS[kind]}" if kind in LABELS else f"[:{kind}]"


@click.command("writeback")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path, exists=True,
                                                         file_okay=False))
@click.option("--kg", default=None, help="The KG's database (default: the run's KG).")
@click.option("--delete", "remove", is_flag=True,
              help="Remove this run's nodes and links from the graph instead.")
@click.option("--batch-size", type=click.IntRange(min=1), default=500, show_default=True,
              help="Samples per write.")
@click.pass_obj
def writeback_command(ctx: Context, run_dir: Path, kg: str | None, remove: bool,
                      batch_size: int) -> None:
    """Write a run into its KG's database (again: nothing new is created), or --delete it."""
    from kgcert.writeback import COUNTED, delete_run, read_run, write_run
    from kgcert.writeback.run_files import read_config, run_id

    config = read_config(run_dir)
    store = ctx.server().open(kg or config.kg.name)
    if remove:
        identifier = run_id(run_dir, config)
        removed = delete_run(store, identifier)
        if not any(removed.values()):  # a no-op is not a success: the user expected a run
            raise KgcertError(f"run {identifier} was not written to {store.database}; "
                              "nothing to delete")
        table = Table(show_header=True, header_style="bold")
        table.add_column("removed")
        table.add_column("count", justify="right")
        for kind in COUNTED:
            table.add_row(Text(_label(kind)), f"{removed.get(kind, 0):,}")
        console.print(table)
        console.print(Text(f"run {identifier} removed from {store.database}"), soft_wrap=True)
        return
    result = write_run(store, read_run(run_dir, kg), batch_size=batch_size)
    table = Table(show_header=True, header_style="bold")
    table.add_column("written")
    table.add_column("in the graph", justify="right")
    table.add_column("new", justify="right")
    for kind in COUNTED:
        table.add_row(Text(_label(kind)), f"{result.totals.get(kind, 0):,}",
                      f"{result.created.get(kind, 0):,}")
    console.print(table)
    for warning in result.warnings:
        errors.print(Text(f"warning: {warning}"))
    if result.missing_entities:
        shown = ", ".join(result.missing_entities[:5])
        more = ", ..." if len(result.missing_entities) > 5 else ""
        errors.print(Text(f"warning: {len(result.missing_entities)} entities the run used are not "
                          f"in {result.kg} and were not linked ({shown}{more})"))
    console.print(Text(f"run {result.run} written to {result.kg}"), soft_wrap=True)
    for line in next_steps(ctx, store.server_name, result.kg, result.run):
        console.print(Text(line), soft_wrap=True)


def next_steps(ctx: Context, server_name: str, kg: str, run: str) -> list[str]:
    """What to type next on the server in use: `kgcert query` works on both, Browser only on
    Neo4j (the embedded server has no graph UI)."""
    from kgcert.util.locations import EMBEDDED

    words = ["kgcert"]
    neo4j = (ctx.db or os.environ.get("KGCERT_NEO4J_URI") or EMBEDDED) != EMBEDDED
    if ctx.db and ctx.db != (os.environ.get("KGCERT_NEO4J_URI") or EMBEDDED):
        words += ["--db", ctx.db]
    if ctx.data_dir and ctx.data_dir != os.environ.get("KGCERT_DATA_DIR"):
        words += ["--data-dir", ctx.data_dir]
    command = shlex.join([*words, "query", "certificates_by_lower_bound", "--kg", kg,
                          "--param", f"run={run}"])
    lines = [f"next: {command}",
             "  (`kgcert query --list` lists the other queries of "
             f"{data_folder('cypher') / 'explore_failures.cypher'})"]
    if neo4j:
        lines.append(f"or in Neo4j Browser on {server_name}:  :param run => {json.dumps(run)}"
                     "  then paste those queries")
    return lines

COMMANDS = [writeback_command]
