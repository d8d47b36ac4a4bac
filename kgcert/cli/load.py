"""`kgcert load` and `kgcert formats`."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
import yaml
from rich.progress import BarColumn, TextColumn
from rich.text import Text

from kgcert.cli.common import Context, console, errors
from kgcert.cli.progress import PLAIN_INTERVAL_S, PhaseBars, progress_display
from kgcert.errors import InputError, KgcertError
from kgcert.loaders import LoadOptions, formats, get_loader
from kgcert.loading import progress as loadprogress
from kgcert.util.locations import data_dir

if TYPE_CHECKING:
    from kgcert.store.graph import GraphStore


def _settings(pairs: tuple[str, ...]) -> dict[str, object]:
    settings: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--set expects KEY=VALUE, got {pair!r}")
        settings[key] = yaml.safe_load(value)  # so lists and booleans can be given
    return settings


def say(message: str) -> None:
    errors.print(message, highlight=False)


@click.command("load")
@click.argument("format_name", metavar="FORMAT")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--kg", "kg_name", default=None, help="Name of the KG (default: the format name).")
@click.option("--replace", is_flag=True, help="Rebuild the KG even if it is already loaded.")
@click.option("--strict", is_flag=True, help="Fail on the first malformed row.")
@click.option("--no-ascii", is_flag=True, help="Keep Unicode in names and sentences.")
@click.option("--set", "pairs", multiple=True, metavar="KEY=VALUE",
              help="Loader setting, e.g. drop_relations=[P31,P279] or head=subject.")
@click.pass_obj
def load_command(ctx: Context, format_name: str, paths: tuple[Path, ...], kg_name: str | None,
                 replace: bool, strict: bool, no_ascii: bool, pairs: tuple[str, ...]) -> None:
    """Load a KG from FORMAT files (or directories) into the graph database.

    FORMAT is one of: primekg, wikidata5m, wikidatasets, neo4j-import, triples.
    """
    from kgcert.loading.pipeline import parsed_kg_frozen, read_source, store_source
    from kgcert.store.server import check_kg_name

    options = LoadOptions(strict=strict, ascii_fold=not no_ascii, settings=_settings(pairs))
    loader = get_loader(format_name, options)
    kg = check_kg_name(kg_name or format_name.replace("-", "_"))
    columns = (TextColumn("[bold]{task.description}"), BarColumn(),
               TextColumn("{task.fields[info]}"))
    # In a log, parsing quicker than PLAIN_INTERVAL_S prints its last line only, and bad input
    # its one-line error alone.
    with progress_display(*columns, console=errors, quiet_start=PLAIN_INTERVAL_S) as bars:
        # Bad input is reported before a server starts, and leaves nothing behind.
        source = read_source(loader, list(paths), kg, report=say, listener=PhaseBars(bars))
    # From here this process writes only the data directory: the KG's files are owner-only
    # from the moment the server makes them (the JVM uses this process's umask).
    os.umask(0o077)
    _say_heap(ctx, source.data.node_count, source.data.edge_count)
    with parsed_kg_frozen():
        # In-process: the bulk writer needs the Java database object (an idle warm server
        # stops).
        server = ctx.server(in_process=True)
        with (progress_display(*columns, console=errors) as bars,
              loadprogress.listening(PhaseBars(bars))):
            result = store_source(server, source, replace=replace, report=say,
                                  written_once=True)
    counts = result.manifest.counts
    verb = "unchanged" if result.skipped else "loaded"
    console.print(f"{verb} KG [bold]{kg}[/] on {server.name}: {counts.get('nodes', 0):,} "
                  f"entities, {counts.get('edges', 0):,} relationships", highlight=False)
    # What preprocessing dropped or changed (also kept in the manifest; `kgcert info` shows it)
    for note in result.manifest.notes:
        console.print(Text(f"  {note}"))
    if not result.skipped:
        del source  # the parsed KG's memory, before the snapshot's arrays are made
        _store_for_counts(ctx, server.open(kg))


def _store_for_counts(ctx: Context, store: GraphStore) -> None:
    """The prompt snapshot and the edge tables made from it, stored now: the first count or
    run of the KG reads them from files instead of pulling them over Bolt (minutes and
    gigabytes at full PrimeKG size)."""
    from kgcert.graphview.snapshot_tables import store_for_counts

    started = time.monotonic()
    try:
        stored, tables = store_for_counts(store, data_dir(ctx.data_dir) / "cache" / "specs")
    except KgcertError as error:  # the KG is loaded: a run pulls what is missing
        errors.print(Text(f"warning: prompt snapshot not stored ({error}); the first count "
                          "or run reads it from the server"), style="yellow", soft_wrap=True)
        return
    if stored:
        say(f"stored the prompt snapshot and {tables:,} edge tables for counts and runs in "
            f"{time.monotonic() - started:.0f} s")


def _say_heap(ctx: Context, nodes: int, edges: int) -> None:
    """The embedded server's heap, sized for the parsed KG before the server starts (after the
    files parsed: bad input still gets its one-line error alone), so a load that runs out of
    it says which it had."""
    from kgcert.store.jvm_heap import KGSize, choose_heap, plan_for_kg
    from kgcert.util.locations import StoreTarget

    target = StoreTarget.resolve(ctx.db, ctx.data_dir, no_server=ctx.no_server)
    if target.is_embedded and not _jvm_running():
        plan_for_kg(KGSize(nodes, edges))
        say(f"embedded server: {choose_heap().describe()}")


def _jvm_running() -> bool:
    """A JVM already in this process (the test session's server) keeps the heap it has."""
    import sys

    jpype = sys.modules.get("jpype")
    return jpype is not None and bool(jpype.isJVMStarted())


@click.command("formats")
def formats_command() -> None:
    """List the KG formats `kgcert load` reads."""
    for name in formats():
        console.print(f"{name:14} {get_loader(name).summary}", highlight=False)


COMMANDS = [load_command, formats_command]
