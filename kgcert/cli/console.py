"""Rich consoles that, writing to a pipe or a file, never fold or cut a line at 80 columns.

Rich takes the terminal's width, and 80 columns when there is no terminal, so `kgcert info
> out.txt` cut long KG names and relation types with an ellipsis. Off a terminal the width
becomes PIPE_WIDTH (tables are still as narrow as their content); $COLUMNS still wins.
"""

from __future__ import annotations

import os

from rich.cells import cell_len
from rich.console import Console, ConsoleDimensions
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

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


def keep_names(table: Table, *headers: str) -> Table:
    """The columns `headers` (spec, model, KG names...) keep every cell whole: never cut with
    an ellipsis nor folded; the table's other columns wrap to make room."""
    for column in table.columns:
        header = str(column.header)
        # every header whole too (a column of short numbers is never narrower than its name)
        column.min_width = max(column.min_width or 0, *map(cell_len, header.split() or [""]))
        if header not in headers:
            continue
        cells = [_width(cell) for cell in column._cells]
        column.min_width = max([column.min_width, cell_len(header), *cells])
        column.no_wrap = True
    return table


def _width(cell: object) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(str(cell))


def _least(column: Column) -> int:
    """The narrowest a column renders: its min_width, and its widest cell if it never wraps
    or else its longest word."""
    if column.no_wrap:
        widest = max(map(_width, column._cells), default=0)
    else:
        words = (word for cell in column._cells for word in str(cell).split())
        widest = max(map(cell_len, words), default=0)
    return max(column.min_width or 0, widest)


def print_table(console: Console, table: Table) -> None:
    """Print `table` no narrower than its names need: where the terminal is too narrow even
    with every other column wrapped, the lines run on rather than cut a name."""
    wide = console.options.update(width=PIPE_WIDTH)  # measured unclamped by the terminal
    padding = table.padding[1] + table.padding[3]
    least = sum(_least(column) + padding for column in table.columns) + table._extra_width
    if least <= console.width:
        console.print(table)
        return
    # Too narrow for the names even with the rest wrapped: as narrow as they allow.
    needed = max(least, Measurement.get(console, wide, table).minimum)
    room = needed - table._extra_width  # rich lays out the columns within the width less
    while sum(table._calculate_column_widths(console, console.options.update(width=room))) > room:
        room += 1  # borders; a few steps at most: where its narrowing still cuts a column
    needed = room + table._extra_width
    # print clamps its width to the console's (and $COLUMNS wins unless both sizes are set)
    saved = console._width, console._height
    console.size = (needed, console.height)
    try:
        console.print(table)
    finally:
        console._width, console._height = saved
