"""Progress for long steps: rich live bars on a terminal, a plain line every few seconds
otherwise (a log or a pipe gets readable lines, not bar glyphs and cursor control codes)."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import Progress, ProgressColumn, TaskID

PLAIN_INTERVAL_S = 5.0


class PlainProgress(Progress):
    """Tracks tasks like rich's Progress but draws nothing live: it prints one line per task
    when the task first moves, then at most every `interval` seconds, and a last line at the
    end of the step."""

    def __init__(self, *columns: str | ProgressColumn, console: Console,
                 interval: float = PLAIN_INTERVAL_S, **options: Any) -> None:
        options.pop("transient", None)  # nothing live to clear
        super().__init__(*columns, console=console, disable=True, **options)
        self.interval = interval
        self._printed: dict[TaskID, float] = {}

    def update(self, task_id: TaskID, **changes: Any) -> None:
        super().update(task_id, **changes)
        now = time.monotonic()
        last = self._printed.get(task_id)
        if last is None or now - last >= self.interval:
            self._printed[task_id] = now
            self._print_line(task_id)

    def stop(self) -> None:
        for task_id in self._printed:
            self._print_line(task_id)
        super().stop()

    def _print_line(self, task_id: TaskID) -> None:
        task = next(task for task in self.tasks if task.id == task_id)
        done = f"{task.completed:,.0f}"
        if task.total is not None:
            done += f"/{task.total:,.0f}"
        info = task.fields.get("info")
        line = f"{task.description}: {done}" + (f", {info}" if info else "")
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)


def progress_display(*columns: str | ProgressColumn, console: Console,
                     transient: bool = False) -> Progress:
    """Live bars when `console` is a terminal, PlainProgress lines otherwise."""
    if console.is_terminal:
        return Progress(*columns, console=console, transient=transient)
    return PlainProgress(*columns, console=console)
