"""Progress for long steps: rich live bars on a terminal, a plain line every few seconds
otherwise (a log or a pipe gets readable lines, not bar glyphs and cursor control codes)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import Progress, ProgressColumn, Task, TaskID

if TYPE_CHECKING:
    from kgcert.loading.progress import Tick

PLAIN_INTERVAL_S = 5.0


class PlainProgress(Progress):
    """Tracks tasks like rich's Progress but draws nothing live: it prints one line per task
    when the task first moves (or, with `quiet_start`, once it has run that many seconds),
    then at most every `interval` seconds, and a last line when the task reaches its total
    or at the end of the step. A step that fails prints no last lines: its error speaks."""

    def __init__(self, *columns: str | ProgressColumn, console: Console,
                 interval: float = PLAIN_INTERVAL_S, quiet_start: float = 0.0,
                 **options: Any) -> None:
        options.pop("transient", None)  # nothing live to clear
        super().__init__(*columns, console=console, disable=True, **options)
        self.interval, self.quiet_start = interval, quiet_start
        self._started: dict[TaskID, float] = {}
        self._printed: dict[TaskID, float] = {}
        self._ended: set[TaskID] = set()  # tasks that reached their total
        self._failed = False

    def update(self, task_id: TaskID, **changes: Any) -> None:
        super().update(task_id, **changes)
        if task_id in self._ended:
            return
        now = time.monotonic()
        started = self._started.setdefault(task_id, now)
        last = self._printed.get(task_id)
        ended = self._task(task_id).finished
        due = now - started >= self.quiet_start if last is None else now - last >= self.interval
        if due or ended:
            self._printed[task_id] = now
            self._print_line(task_id)
        if ended:  # its last line is out: the step is over
            self._ended.add(task_id)

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> None:
        self._failed = kind is not None
        super().__exit__(kind, value, traceback)

    def stop(self) -> None:
        for task_id in self._printed:
            if task_id not in self._ended and not self._failed:
                self._print_line(task_id)
        super().stop()

    def _task(self, task_id: TaskID) -> Task:
        return next(task for task in self.tasks if task.id == task_id)

    def _print_line(self, task_id: TaskID) -> None:
        task = self._task(task_id)
        done = task.fields.get("shown")  # a task's own count, where it has one
        if done is None:
            done = f"{task.completed:,.0f}"
            if task.total is not None:
                done += f"/{task.total:,.0f}"
        info = task.fields.get("info")
        line = f"{task.description}: " + ", ".join(part for part in (done, info) if part)
        self.console.print(line, markup=False, highlight=False, soft_wrap=True)


def progress_display(*columns: str | ProgressColumn, console: Console,
                     transient: bool = False, quiet_start: float = 0.0) -> Progress:
    """Live bars when `console` is a terminal, PlainProgress lines otherwise."""
    if console.is_terminal:
        return Progress(*columns, console=console, transient=transient)
    return PlainProgress(*columns, console=console, quiet_start=quiet_start)


def speed_text(done: int, unit: str, fraction: float | None, elapsed: float) -> str:
    """`1,200 rows, 300 rows/s, ETA 0:04` (or `took 0:04` at the end): the rate since the
    phase began, and the time left if the rest goes at the same pace."""
    parts = [f"{done:,} {unit}"]
    if elapsed > 0 and done:
        parts.append(f"{done / elapsed:,.0f} {unit}/s")
    if fraction is not None and fraction >= 1:
        parts.append(f"took {_clock(elapsed)}")
    elif fraction and elapsed > 0:
        parts.append(f"ETA {_clock(elapsed * (1 - fraction) / fraction)}")
    return ", ".join(parts)


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class PhaseBars:
    """Listens to a load's phases (loadprogress.Tick) and shows each as its own task of
    `bars`: a bar where the phase knows its share done, the count, rate and ETA beside it."""

    def __init__(self, bars: Progress) -> None:
        self.bars = bars
        self._tasks: dict[str, tuple[TaskID, float]] = {}  # phase -> task, start time

    def __call__(self, tick: Tick) -> None:
        now = time.monotonic()
        if tick.phase not in self._tasks:
            self._tasks[tick.phase] = (self.bars.add_task(tick.phase, total=None, info=""), now)
        task, started = self._tasks[tick.phase]
        if tick.done == 0:  # a phase starting: its clock runs from here, nothing to show yet
            return
        shown = f"{tick.fraction:.0%}" if tick.fraction is not None else ""
        self.bars.update(task, completed=tick.fraction or 0,
                         total=1.0 if tick.fraction is not None else None, shown=shown,
                         info=speed_text(tick.done, tick.unit, tick.fraction, now - started))
