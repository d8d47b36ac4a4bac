"""`kgcert drop KG`: remove a loaded KG from the server that holds it."""

from __future__ import annotations

import sys

import click

from kgcert.cli.common import Context, console, fail


@click.command("drop")
@click.argument("kg")
@click.option("--yes", is_flag=True, help="Do not ask first (needed when not on a terminal).")
@click.pass_obj
def drop_command(ctx: Context, kg: str, yes: bool) -> None:
    """Remove a loaded KG and everything kgcert wrote for it (written-back runs included)."""
    from kgcert.store.server import check_kg_name

    check_kg_name(kg)
    server = ctx.server()
    if not server.exists(kg):  # a damaged KG is still dropped: that is how it is cleared
        known = ", ".join(server.list_kgs()) or "none"
        fail(f"no KG named {kg!r} on {server.name} (loaded KGs: {known})", 1)
    if not yes:
        if not sys.stdin.isatty():
            fail(f"dropping KG {kg!r} deletes it: pass --yes to confirm", 2)
        if not click.confirm(f"Drop KG {kg!r} from {server.name}?", default=False):
            fail("nothing dropped", 1)
    with server.loading(kg):  # never under a load of the same KG (Neo4j: its lease)
        server.drop(kg)
    console.print(f"dropped KG {kg} from {server.name}", highlight=False)


COMMANDS = [drop_command]
