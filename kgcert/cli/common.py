"""What the commands share: the store target, console output, one-line failures."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from rich.markup import escape

from kgcert.cli.console import PipeFriendlyConsole
from kgcert.util.locations import StoreTarget

if TYPE_CHECKING:
    from kgcert.store import GraphServer

console = PipeFriendlyConsole()
errors = PipeFriendlyConsole(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(code)


@dataclass
class Context:
    db: str | None
    data_dir: str | None
    no_server: bool = False

    def server(self, *, in_process: bool = False) -> GraphServer:
        """The graph server; `in_process` for loads (see kgcert.store.connect)."""
        from kgcert.store import connect  # the graph driver loads only for graph commands

        return connect(StoreTarget.resolve(self.db, self.data_dir, no_server=self.no_server),
                       in_process=in_process)
