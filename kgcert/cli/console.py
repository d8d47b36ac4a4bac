"""Rich consoles that, writing to a pipe or a file, never fold or cut a line at 80 columns.

Rich takes the terminal's width, and 80 columns when there is no terminal, so `kgcert info
> out.txt` cut long KG names and relation types with an ellipsis. Off a terminal the width
becomes PIPE_WIDTH (tables are still as narrow as their content); $COLUMNS still wins.
"""

from __future__ import annotations

import os

from rich.console import Console, ConsoleDimensions

PIPE_WIDTH = 10_000  # wider than any line kgcert prints, so nothing is folded or cut


class PipeFriendlyConsole(Console):
    """A Console whose width, off a terminal, is PIPE_WIDTH unless $COLUMNS says otherwise."""

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self.is_terminal or self._width is not None or "COLUMNS" in os.environ:
            return size
        return ConsoleDimensions(PIPE_WIDTH, size.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size
