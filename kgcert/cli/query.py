"""`kgcert query`: Cypher on a loaded KG, on whichever server holds it (the cypher-shell of
kgcert), including the named queries of cypher/explore_failures.cypher."""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from kgcert.cli.common import Context, console, fail
from kgcert.cli.console import keep_names, print_table

GUIDE = "explore_failures"
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
@click.option("--list", "list_named", is_flag=True,
              help="List the named queries (cypher/explore_failures.cypher) and exit.")
@click.option("--show", "show_text", is_flag=True,
              help="Print the Cypher that would run, instead of running it.")
@click.pass_obj
def query_command(ctx: Context, cypher: str | None, kg: str | None, params: tuple[str, ...],
                  run_dir: Path | None, as_json: bool, as_csv: bool, list_named: bool,
                  show_text: bool) -> None:
    """Run Cypher, or a named query of explore_failures.cypher, on a loaded KG."""
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
        kg = kg or config.kg
    missing = sorted(set(_PARAMETER.findall(_without_comments(text))) - set(values))
    if missing:
        fail("the query needs " + " ".join(f"--param {name}=..." for name in missing), 2)
    server = ctx.server()
    rows = server.open(kg or _only_kg(server.list_kgs(), server.name)).query(text, **values)
    _print(rows, as_json=as_json, as_csv=as_csv)


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


def _print(rows: list[dict[str, Any]], *, as_json: bool, as_csv: bool) -> None:
    if as_json:
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False, default=str))
        return
    columns = list(rows[0]) if rows else []
    if as_csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows([cell(row.get(column)) for column in columns] for row in rows)
        return
    if not rows:
        console.print("no rows")
        return
    table = Table(show_header=True, header_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell(row.get(column))) for column in columns))
    console.print(table)
    console.print(f"{len(rows):,} row{'s' if len(rows) != 1 else ''}", highlight=False)


COMMANDS = [query_command]
