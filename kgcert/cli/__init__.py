"""The `kgcert` command line.

Commands are registered by name and imported only when one is run (or its own --help is
asked for), so `kgcert --help` and the light commands start without loading the graph driver,
scipy, pandas or torch (issue 10).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import click

from kgcert import __version__
from kgcert.cli.common import Context, fail
from kgcert.errors import KgcertError
from kgcert.plugins.registry import Registry


def _command(name: str, value: Any) -> click.Command:
    assert isinstance(value, click.Command), f"{COMMANDS[name].target} is not a click command"
    return value


# Each command's "module:attribute" and the help line `kgcert --help` shows without importing
# it; tests/cli/test_cli_startup.py checks each line against the command's own docstring.
COMMANDS = Registry[click.Command]("command", "commands", make=_command)
COMMANDS.add("load", "kgcert.cli.load:load_command",
             "Load a KG from FORMAT files (or directories) into the graph database.")
COMMANDS.add("drop", "kgcert.cli.drop:drop_command",
             "Remove a loaded KG and everything kgcert wrote for it (written-back runs "
             "included).")
COMMANDS.add("formats", "kgcert.cli.load:formats_command",
             "List the KG formats `kgcert load` reads.")
COMMANDS.add("info", "kgcert.cli.info:info_command",
             "Node and relationship counts per loaded KG, per label and type, with the "
             "manifest.")
COMMANDS.add("synth", "kgcert.cli.synth:synth_command",
             "Write a synthetic PrimeKG- or Wikidata5m-shaped KG with power-law degrees.")
COMMANDS.add("export", "kgcert.cli.export:export_group",
             "Write a KG as files for other tools (no graph server needed).")
COMMANDS.add("specs", "kgcert.cli.specs:specs_group",
             "Prompt distributions: relation-centric DAGs, entity-centric paths, KG-LLM-Bench "
             "tasks.")
COMMANDS.add("prompts", "kgcert.cli.prompts:prompts_command",
             "Render prompts start .. start+n-1 of a spec and print them.")
COMMANDS.add("run", "kgcert.cli.run:run_command",
             "Certify models on specs: bounds on P(correct) for prompts drawn from each spec.")
COMMANDS.add("plan", "kgcert.cli.plan:plan_command",
             "How many samples a certificate needs for a target half-width.")
COMMANDS.add("report", "kgcert.cli.report:report_command",
             "Tables, figures (PNG/SVG), CSV/Parquet and one HTML page from run directories.")
COMMANDS.add("view", "kgcert.cli.view:view_command",
             "Serve every run under RUNS_DIR (default ./runs) on a local page, refreshing "
             "live.")
COMMANDS.add("compare", "kgcert.cli.report:compare_command",
             "Paired exact McNemar tests and Holm-corrected hierarchies on prompts aligned "
             "by sample index: models, task formats, entity names, prompting strategies.")
COMMANDS.add("query", "kgcert.cli.query:query_command",
             "Run Cypher, or a named query of explore_failures.cypher, on a loaded KG.")
COMMANDS.add("runs", "kgcert.cli.runs:runs_command",
             "List run directories (default ./runs) with their certificates.")
COMMANDS.add("show", "kgcert.cli.runs:show_command",
             "Print one sample of a run: prompt, response, answer, outcome and provenance.")
COMMANDS.add("server", "kgcert.cli.server:server_group",
             "The warm embedded graph server: start, stop, status.")
COMMANDS.add("writeback", "kgcert.cli.writeback:writeback_command",
             "Write a run into its KG's database (again: nothing new is created), or "
             "--delete it.")


def import_command(name: str) -> click.Command:
    """The command registered as `name`, importing its module now."""
    return COMMANDS.load(name)


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, listed from the COMMANDS table."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return COMMANDS.names()

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return import_command(cmd_name) if cmd_name in COMMANDS else None

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        name = click.utils.make_str(args[0])
        if name not in COMMANDS and not name.startswith("-"):
            ctx.fail(str(COMMANDS.unknown(name)))  # the closest command suggested
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        # A bare Command per name shortens the help line exactly as the real one would.
        rows = [(name, click.Command(name, help=COMMANDS[name].help).get_short_help_str(limit))
                for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kgcert")
@click.option("--db", envvar="KGCERT_NEO4J_URI", default=None, metavar="URI",
              help="Neo4j URI (neo4j://host:7687); credentials from KGCERT_NEO4J_USER/"
                   "KGCERT_NEO4J_PASSWORD. Default: the embedded server.")
@click.option("--data-dir", envvar="KGCERT_DATA_DIR", default=None, metavar="DIR",
              help="Where kgcert keeps its data (default: the user data dir, e.g. "
                   "~/.local/share/kgcert).")
@click.option("--no-server", is_flag=True, envvar="KGCERT_NO_SERVER",
              help="Run the embedded graph server in this process instead of the warm "
                   "background server (env KGCERT_NO_SERVER=1).")
@click.pass_context
def cli(ctx: click.Context, db: str | None, data_dir: str | None, no_server: bool) -> None:
    """Certify LLM reading comprehension over knowledge graphs."""
    ctx.obj = Context(db=db, data_dir=data_dir, no_server=no_server)


def main() -> None:
    code = _run()
    if "kgcert.store.embedded" not in sys.modules:  # no server was started: a plain exit
        sys.exit(code)
    from kgcert.store.embedded import exit_now

    exit_now(code)


def _run() -> int:
    """Run the command; every outcome becomes an exit code (messages already printed)."""
    try:
        cli.main(standalone_mode=False)
        return 0
    except SystemExit as done:  # fail(), sys.exit(), SIGTERM turned into SystemExit
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except click.exceptions.Abort:
        return _failed("interrupted", 130)
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except KgcertError as error:
        return _failed(str(error), error.exit_code)
    except KeyboardInterrupt:
        return _failed("interrupted", 130)
    except click.exceptions.Exit as done:
        return done.exit_code
    except Exception as error:  # the last guard: one line, never a bare traceback
        if os.environ.get("KGCERT_DEBUG"):
            raise
        return _failed(f"internal error: {type(error).__name__}: {error} (KGCERT_DEBUG=1 shows "
                       "the traceback)", 70)


def _failed(message: str, code: int) -> int:
    with contextlib.suppress(SystemExit):
        fail(message, code)
    return code
