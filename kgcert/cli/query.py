"""`kgcert query`: Cypher on a loaded KG, on whichever server holds it (the cypher-shell of
kgcert), including the named queries of cypher/explore_failures.cypher."""

from __future__ import annotations

import csv
import itertools
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table
from rich.text import Text

from kgcert.cli.common import Context, console, fail
from kgcert.cli.console import keep_names, print_table

if TYPE_CHECKING:
    from kgcert.store import GraphStore

GUIDE = "explore_failures"
TABLE_ROWS = 1_000
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def guide_queries() -> dict[str, str]:
    """The named queries users can run by name: cypher/explore_failures.cypher's."""
    from kgcert.store.cypher import _statements

    return dict(_statements(GUIDE))


def description(text: str) -> str:
    """A named query's leading comment lines, joined."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line.lstrip("/ ").strip())
    return " ".join(lines)


def parse_parameters(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`k=v` gives the string v; `k:=v` the JSON value v (numbers, lists, true/null)."""
    found: dict[str, Any] = {}
    for pair in pairs:
        key, typed, value = pair.partition(":=")
        if not typed:
            key, plain, value = pair.partition("=")
            if not plain:
                raise click.BadParameter(f"{pair!r}: write NAME=VALUE (or NAME:=JSON)",
                                         param_hint="--param")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise click.BadParameter(f"{key!r} is not a parameter name", param_hint="--param")
        if typed:
            try:
                found[key] = json.loads(value)
            except json.JSONDecodeError as error:
                raise click.BadParameter(f"{key}:={value}: not JSON ({error.msg})",
                                         param_hint="--param") from None
        else:
            found[key] = value
    return found


def cell(value: Any) -> str:
    """A value as one table or CSV cell: text as is, everything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def table_cell(value: Any) -> str:
    """A cell as the table shows it: a float at six significant digits (a bound reads 0.250213,
    not 0.25021312345678901); --csv and --json keep every digit."""
    if isinstance(value, float):
        return f"{value:.6g}"
    return cell(value)


@click.command("query")
@click.argument("cypher", metavar="CYPHER|NAME", required=False)
@click.option("--kg", default=None,
              help="The loaded KG to query (default: the only one loaded).")
@click.option("--param", "-p", "params", multiple=True, metavar="NAME=VALUE",
              help="A query parameter ($NAME), repeatable; NAME=VALUE gives a string, "
                   "NAME:=JSON a number, list, true/false or null.")
@click.option("--run", "run_dir", default=None, metavar="RUN",
              type=click.Path(path_type=Path, exists=True, file_okay=False),
              help="A written-back run's directory: sets $run to its id and --kg to its KG.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per row.")
@click.option("--csv", "as_csv", is_flag=True, help="CSV with a header row.")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="Stop after N rows (the server stops too).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True),
              default=None, metavar="SECONDS",
              help="Stop the query after this many seconds (the server stops too).")
@click.option("--list", "list_named", is_flag=True,
              help="List the named queries (cypher/explore_failures.cypher) and exit.")
@click.option("--show", "show_text", is_flag=True,
              help="Print the Cypher that would run, instead of running it.")
@click.pass_obj
def query_command(ctx: Context, cypher: str | None, kg: str | None, params: tuple[str, ...],
                  run_dir: Path | None, as_json: bool, as_csv: bool, limit: int | None,
                  timeout_s: float | None, list_named: bool, show_text: bool) -> None:
    """Run Cypher, or a named query of explore_failures.cypher, on a loaded KG.

    Queries only read: a query that would write is refused with nothing changed (exit 2).
    On the embedded server a query sees the one KG --kg names; on Neo4j it sees the whole
    database, as far as the credentials reach (other KGs, anything else stored there), and a
    query confines itself by label (KgcertKG_<kg>). Rows are printed as they arrive; the
    table shows at most 1,000 (--csv and --json print them all). Ctrl-C ends the query (on
    Neo4j the server's transaction too).
    """
    named = guide_queries()
    if list_named:
        _list(named)
        return
    if not cypher:
        fail("give a Cypher query or a query name (`kgcert query --list` lists the names)", 2)
    if as_json and as_csv:
        fail("choose one of --json and --csv", 2)
    text = _resolve(cypher, named)
    if show_text:
        click.echo(text)
        return
    values = parse_parameters(params)
    if run_dir is not None:
        from kgcert.writeback.run_files import read_config, run_id

        config = read_config(run_dir)
        values.setdefault("run", run_id(run_dir, config))
        kg = kg or config.kg.name
    missing = sorted(set(_PARAMETER.findall(_without_comments(text))) - set(values))
    if missing:
        fail("the query needs " + " ".join(f"--param {name}=..." for name in missing), 2)
    server = ctx.server()
    store = server.open(kg or _only_kg(server.list_kgs(), server.name))
    refusal = server.write_refusal(store.database, text)
    if refusal:
        fail(refusal, 2)
    source = store.read_only(text, values, timeout_s=timeout_s)
    try:
        rows = source if limit is None else itertools.islice(source, limit)
        shown = _print(rows, as_json=as_json, as_csv=as_csv)
    finally:
        source.close()  # rows not read (a limit, the table's cap, Ctrl-C): the server stops
    if shown == 0 and cypher in named and not _runs_written(store, values.get("run")):
        run = values.get("run")
        what = f"run {run} is not" if run else "no run is"
        fail(f"{what} written into KG {store.kg!r} on {server.name}: run "
             "`kgcert writeback RUN` first (the named queries read what it writes)", 1)
    if shown == 0 and not (as_json or as_csv):
        console.print("no rows")


def _resolve(cypher: str, named: dict[str, str]) -> str:
    if cypher in named:
        return named[cypher]
    if _NAME.match(cypher):  # one lower-case word is a name, never Cypher
        import difflib

        near = difflib.get_close_matches(cypher, named, n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        fail(f"no named query {cypher!r}: {hint}(`kgcert query --list` lists them)", 2)
    return cypher


def _without_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def _only_kg(kgs: list[str], server: str) -> str:
    if len(kgs) == 1:
        return kgs[0]
    if not kgs:
        fail(f"no KG loaded on {server}; try `kgcert load`", 2)
    fail(f"{len(kgs)} KGs on {server}: choose one with --kg ({', '.join(kgs)})", 2)


def _list(named: dict[str, str]) -> None:
    table = Table(show_header=True, header_style="bold")
    table.add_column("name", no_wrap=True)
    table.add_column("parameters", no_wrap=True)
    table.add_column("what it shows")
    for name, text in named.items():
        needs = sorted(set(_PARAMETER.findall(_without_comments(text))))
        table.add_row(Text(name), Text(" ".join(f"${p}" for p in needs)),
                      Text(description(text)))
    print_table(console, keep_names(table, "name", "parameters"))


def _runs_written(store: GraphStore, run: Any) -> bool:
    """Whether write-back put run `run` (any run, if None) into the KG."""
    if run is None:
        return bool(store.query("MATCH (r:KgcertRun{{:kg}}) RETURN r.id AS id LIMIT 1"))
    return bool(store.query("MATCH (r:KgcertRun{{:kg}} {id: $run}) RETURN r.id AS id LIMIT 1",
                            run=run))


def _print(rows: Iterator[dict[str, Any]], *, as_json: bool, as_csv: bool) -> int:
    """Print rows as they arrive; how many were printed."""
    if as_json:
        return _print_json(rows)
    if as_csv:
        return _print_csv(rows)
    return _print_table(rows)


def _print_json(rows: Iterator[dict[str, Any]]) -> int:
    count = 0
    for row in rows:
        sys.stdout.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
        count += 1
    sys.stdout.flush()
    return count


def _print_csv(rows: Iterator[dict[str, Any]]) -> int:
    writer = csv.writer(sys.stdout)
    columns: list[str] | None = None
    count = 0
    for row in rows:
        if columns is None:
            columns = list(row)
            writer.writerow(columns)
        writer.writerow([cell(row.get(column)) for column in columns])
        count += 1
    if columns is None:
        writer.writerow([])  # no rows, no columns known: an empty header line
    sys.stdout.flush()
    return count


def _print_table(rows: Iterator[dict[str, Any]]) -> int:
    """At most TABLE_ROWS rows: a table is read on a screen, and rich holds it in memory."""
    shown = list(itertools.islice(rows, TABLE_ROWS + 1))
    more = len(shown) > TABLE_ROWS
    shown = shown[:TABLE_ROWS]
    if not shown:
        return 0
    columns = list(shown[0])
    table = Table(show_header=True, header_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in shown:
        table.add_row(*(Text(table_cell(row.get(column))) for column in columns))
    console.print(table)
    count = f"{len(shown):,} row{'s' if len(shown) != 1 else ''}"
    if more:
        count = (f"the first {count}; more follow (the table stops at {TABLE_ROWS:,}: "
                 "--csv or --json print them all, --limit sets how many)")
    console.print(count, highlight=False)
    return len(shown)


COMMANDS = [query_command]
