"""`kgcert server start|stop|status`: the warm embedded graph server of the data directory."""

from __future__ import annotations

from typing import Any

import click

from kgcert.cli.common import Context, console, fail
from kgcert.util.locations import StoreTarget


def _data_dir(ctx: Context) -> Any:
    target = StoreTarget.resolve(ctx.db, ctx.data_dir)
    if not target.is_embedded:
        fail("the warm server is the embedded graph server's; this command is set to use "
             f"{target.uri} (unset --db / KGCERT_NEO4J_URI)")
    return target.data_dir


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min {rest % 60} s"


def _show(status: dict[str, Any]) -> None:
    if status["clients"]:
        timer = f"in use by {status['clients']} command(s); stops {_duration(status['idle_s'])} " \
                "after the last one ends"
    else:
        left = max(0.0, status["idle_s"] - status["idle_for_s"])
        timer = f"idle for {_duration(status['idle_for_s'])}; stops in {_duration(left)}"
    for key, value in (("pid", status["pid"]),
                       ("bolt", f"bolt://127.0.0.1:{status['bolt_port']}"),
                       ("data dir", status["data_dir"]),
                       ("uptime", f"{_duration(status['uptime_s'])} (since {status['started']})"),
                       ("idle timer", timer)):
        console.print(f"{key:11} {value}", highlight=False, soft_wrap=True)


@click.group("server")
def server_group() -> None:
    """The warm embedded graph server: start, stop, status."""


@server_group.command("start")
@click.option("--idle", type=float, default=None,
              help="Stop after this many seconds with no command (default $KGCERT_SERVER_IDLE, "
                   "else 900).")
@click.pass_obj
def start_command(ctx: Context, idle: float | None) -> None:
    """Start the warm server now (graph commands also start it when needed)."""
    from kgcert.store.warm import ensure_running

    channel, status = ensure_running(_data_dir(ctx), idle)
    channel.close()
    _show(status)


@server_group.command("stop")
@click.pass_obj
def stop_command(ctx: Context) -> None:
    """Stop the warm server (commands using it are cut off)."""
    from kgcert.store.warm import stop

    pid = stop(_data_dir(ctx))
    console.print(f"stopped the warm server (pid {pid})" if pid else "no warm server running",
                  highlight=False)


@server_group.command("status")
@click.pass_obj
def status_command(ctx: Context) -> None:
    """Whether the warm server runs: pid, Bolt port, data dir, uptime, idle timer."""
    from kgcert.store.warm import status

    data_dir = _data_dir(ctx)
    current = status(data_dir)
    if current is None:
        console.print(f"no warm server running for {data_dir}", highlight=False, soft_wrap=True)
        return
    _show(current)


COMMANDS = [server_group]
