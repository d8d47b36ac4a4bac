"""`kgcert export neo4j-admin`: a KG's files as neo4j-admin bulk-import files for a local Neo4j;
`kgcert export --inspect RUN`: a run as Inspect AI eval logs."""

from __future__ import annotations

from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

from kgcert.cli.common import console, errors
from kgcert.cli.load import _settings
from kgcert.cli.progress import progress_display
from kgcert.loaders import LoadOptions, get_loader


@click.group("export", invoke_without_command=True)
@click.option("--inspect", "inspect_run", type=click.Path(path_type=Path), default=None,
              metavar="RUN", help="Write run RUN as Inspect AI eval logs (one per "
              "certificate) for `inspect view`; needs the `inspect` extra.")
@click.option("--out", "inspect_out", type=click.Path(path_type=Path), default=None,
              help="With --inspect: the folder for the logs (default RUN/inspect).")
@click.pass_context
def export_group(ctx: click.Context, inspect_run: Path | None,
                 inspect_out: Path | None) -> None:
    """Write a KG as files for other tools (no graph server needed)."""
    if ctx.invoked_subcommand is not None:
        if inspect_run is not None:
            raise click.UsageError("--inspect exports a run on its own: give it without "
                                   f"the {ctx.invoked_subcommand} command")
        return
    if inspect_run is None:
        click.echo(ctx.get_help())
        return
    from kgcert.export.inspect_log import export_inspect

    out = inspect_out if inspect_out is not None else inspect_run / "inspect"
    written = export_inspect(inspect_run, out)
    for item in written:
        console.print(f"{item.log} ({item.samples} samples)", highlight=False, soft_wrap=True)
    console.print(f"wrote {len(written)} Inspect log{'s' if len(written) != 1 else ''} to "
                  f"{out}: open them with `inspect view --log-dir {out}`", highlight=False,
                  soft_wrap=True)


@export_group.command("neo4j-admin")
@click.argument("format_name", metavar="FORMAT")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Directory to write the import files into (created; must be empty).")
@click.option("--kg", "kg_name", default=None,
              help="Name of the KG (default: the format name).")
@click.option("--database", default=None,
              help="Neo4j database the import rebuilds (default: neo4j, Community's only one).")
@click.option("--strict", is_flag=True, help="Fail on the first malformed row.")
@click.option("--no-ascii", is_flag=True, help="Keep Unicode in names and sentences.")
@click.option("--set", "pairs", multiple=True, metavar="KEY=VALUE",
              help="Loader setting, as for `kgcert load`.")
@click.option("--gzip", "compress", is_flag=True, help="Write .csv.gz (neo4j-admin reads them).")
@click.option("--overwrite", is_flag=True,
              help="Write into a non-empty --out, replacing an earlier export there.")
def neo4j_admin_command(format_name: str, paths: tuple[Path, ...], out_dir: Path,
                        kg_name: str | None, database: str | None, strict: bool, no_ascii: bool,
                        pairs: tuple[str, ...], compress: bool, overwrite: bool) -> None:
    """Write FORMAT files as `neo4j-admin database import full` input for a local Neo4j 5.

    Reads the files as `kgcert load FORMAT` does (same preprocessing, same manifest) and
    writes one CSV per entity label and per relationship type, the KgcertRelation and
    KgcertManifest nodes, import.sh (the neo4j-admin command), schema.cypher (kgcert's
    constraints and indexes, to run after the import) and NEXT_STEPS.txt.
    """
    from kgcert.export.neo4j_admin import read_source, write_neo4j_admin
    from kgcert.store.server import check_kg_name

    options = LoadOptions(strict=strict, ascii_fold=not no_ascii, settings=_settings(pairs))
    loader = get_loader(format_name, options)
    kg = check_kg_name(kg_name or format_name.replace("-", "_"))
    data, manifest = read_source(loader, list(paths), kg,
                                 report=lambda m: errors.print(m, highlight=False))
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with progress_display(*columns, console=errors, transient=True) as bar:
        task = bar.add_task(f"writing {kg}", total=data.edge_count)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        written = write_neo4j_admin(data, manifest, out_dir, database=database,
                                    compress=compress,
                                    overwrite=overwrite, progress=advance)
    console.print(
        f"wrote KG [bold]{kg}[/] to {out_dir}: {data.node_count:,} entities in "
        f"{len(written.node_files)} node files, {data.edge_count:,} relationships in "
        f"{len(written.relationship_files)} files", highlight=False)
    console.print(f"next: read {written.next_steps}, then run {written.script}",
                  highlight=False, soft_wrap=True)


COMMANDS = [export_group]
