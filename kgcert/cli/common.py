"""What the commands share: the store target, console output, one-line failures."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import NoReturn

from rich.console import Console
from rich.markup import escape

from kgcert.config import StoreTarget
from kgcert.store import GraphServer, connect

console = Console()
errors = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    errors.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(code)


@dataclass
class Context:
    db: str | None
    data_dir: str | None

    def server(self) -> GraphServer:
        return connect(StoreTarget.resolve(self.db, self.data_dir))
