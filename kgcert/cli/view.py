"""`kgcert view`: every run under a folder on a local page that refreshes as runs are written."""

from __future__ import annotations

from pathlib import Path

import click

from kgcert.cli.common import console


@click.command("view")
@click.argument("runs_dir", required=False, default="runs",
                type=click.Path(path_type=Path, file_okay=False))
@click.option("--port", type=click.IntRange(0, 65535), default=7575, show_default=True,
              help="Port on 127.0.0.1 (0: any free one).")
def view_command(runs_dir: Path, port: int) -> None:
    """Serve every run under RUNS_DIR (default ./runs) on a local page, refreshing live.

    The page lists each run with its headlines (interval, verdict, position bias) and opens
    each run's report as `kgcert report` would write it; both reload while a run is written,
    so new samples and bounds appear without running `report` again. It listens on
    127.0.0.1 only; Ctrl-C stops it. `kgcert report` still writes the one-file offline page.
    """
    from kgcert.errors import InputError
    from kgcert.report.live import ViewServer

    try:
        server = ViewServer(runs_dir, port)
    except OSError as error:  # the port is taken
        raise InputError(f"cannot listen on 127.0.0.1:{port} ({error.strerror}); "
                         "choose another with --port, or --port 0 for any free one") from None
    console.print(f"kgcert view: {runs_dir} at {server.url} (Ctrl-C stops it)",
                  highlight=False, soft_wrap=True)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


COMMANDS = [view_command]
