"""`kgcert info`: what each loaded KG holds, counted live from the database."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from kgcert.cli.common import Context, console
from kgcert.cli.console import keep_names, print_table


@click.command("info")
@click.option("--kg", "kg_names", multiple=True, help="Only these KGs (default: all).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per KG instead of tables.")
@click.pass_obj
def info_command(ctx: Context, kg_names: tuple[str, ...], as_json: bool) -> None:
    """Node and relationship counts per loaded KG, per label and type, with the manifest."""
    from kgcert.cli.kg_counts import kg_info

    server = ctx.server()
    names = list(kg_names) or server.list_kgs()
    reports = [kg_info(server.open(name)) for name in names]
    if as_json:  # one object per line, like every --json output
        for report in reports:
            click.echo(json.dumps(report, ensure_ascii=False))
        return
    if not reports:
        console.print(f"no KG loaded on {server.name}; try `kgcert load`")
    for report in reports:
        _print(report)


def _print(report: dict[str, Any]) -> None:
    manifest = report["manifest"] or {}
    console.print(
        f"[bold]{report['kg']}[/]: {report['nodes']:,} nodes, {report['relationships']:,} "
        f"relationships ({manifest.get('format', '?')}, {manifest.get('status', 'no manifest')})",
        highlight=False,
    )
    table = Table(show_header=True, header_style="bold")
    table.add_column("label / relationship type")
    table.add_column("count", justify="right")
    table.add_column("points from -> to")
    directions = report.get("directions", {})
    for label, count in report["labels"].items():
        table.add_row(Text(f":{label}"), f"{count:,}", "")
    for rel_type, count in report["relationship_types"].items():
        table.add_row(Text(f"[:{rel_type}]"), f"{count:,}",
                      Text(", ".join(directions.get(rel_type, [])) or "-"))
    for rel_type, count in sorted(report.get("writeback_links", {}).items()):
        table.add_row(Text(f"[:{rel_type}] (kgcert writeback)"), f"{count:,}",
                      "KgcertSample -> Entity" if rel_type not in ("IN_RUN", "OF_CERTIFICATE")
                      else "")
    print_table(console, keep_names(table, "label / relationship type"))
    changed = report.get("changed_since_load")
    if changed:
        console.print(f"  [bold yellow]changed since its load[/] (outside kgcert): "
                      f"{'; '.join(changed)}; `kgcert load ... --replace` loads it again",
                      highlight=False)
    if manifest:
        files = ", ".join(f"{f['name']} ({f['bytes']:,} B)" for f in manifest.get("files", []))
        console.print(f"  files: {files}", highlight=False)
        console.print(f"  fingerprint: {manifest.get('fingerprint', '')}", highlight=False)
        console.print(f"  loaded by kgcert {manifest.get('kgcert_version')} at "
                      f"{manifest.get('finished_at') or manifest.get('started_at')}",
                      highlight=False)
        for note in manifest.get("notes", []):
            console.print(f"  note: {note}", highlight=False)


COMMANDS = [info_command]
