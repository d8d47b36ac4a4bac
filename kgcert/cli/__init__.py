"""The `kgcert` command line."""

from __future__ import annotations

import contextlib
import os

import click

from kgcert import __version__
from kgcert.cli.common import Context, fail
from kgcert.errors import KgcertError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kgcert")
@click.option("--db", envvar="KGCERT_NEO4J_URI", default=None, metavar="URI",
              help="Neo4j URI (neo4j://host:7687); credentials from KGCERT_NEO4J_USER/"
                   "KGCERT_NEO4J_PASSWORD. Default: the embedded server.")
@click.option("--data-dir", envvar="KGCERT_DATA_DIR", default=None, metavar="DIR",
              help="Where kgcert keeps its data (default: the user data dir, e.g. "
                   "~/.local/share/kgcert).")
@click.pass_context
def cli(ctx: click.Context, db: str | None, data_dir: str | None) -> None:
    """Certify LLM reading comprehension over knowledge graphs."""
    ctx.obj = Context(db=db, data_dir=data_dir)


def _register_commands() -> None:
    from kgcert.cli import export, info, load, prompts, report, run, specs, synth, writeback

    for module in (load, info, synth, export, specs, prompts, run, report, writeback):
        for command in module.COMMANDS:
            cli.add_command(command)


_register_commands()


def main() -> None:
    code = _run()
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
