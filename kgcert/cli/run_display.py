"""What `kgcert run` shows: a progress bar per certificate while it runs, then the table of
certificates."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from rich.progress import Progress, TaskID
from rich.table import Table
from rich.text import Text

from kgcert.certify.record import Certificate, SpecCount
from kgcert.cli.common import console
from kgcert.cli.console import keep_names, print_table
from kgcert.util.numbers import bound_text, interval_text, level_text


class RunDisplay:
    """Rich progress: one bar per certificate with the model's pace, correct so far and
    bounds; its first line comes before the first model call, then one after every answer."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}
        self.pace: dict[str, _Pace] = {}
        self.info: dict[str, str] = {}  # the last batch's correct count and bounds
        self.recorded: dict[str, int] = {}
        self.notes: dict[str, str] = {}  # what spares model calls (response cache, weights)

    def _task(self, label: str, total: int) -> TaskID:
        if label not in self.tasks:
            self.tasks[label] = self.progress.add_task(label, total=total, info="")
            self.pace[label] = _Pace(time.monotonic())
        return self.tasks[label]

    def begin(self, label: str, recorded: int, total: int, cached: str) -> None:
        task = self._task(label, total)
        self.recorded[label] = recorded
        if recorded >= total:  # nothing to ask: the tally's line (next) is its only one
            return
        self.notes[label] = cached  # shown until the first answer
        self.info[label] = f"n = {total}, {recorded} recorded"
        self.progress.update(task, completed=recorded, info=f"{self.info[label]}, {cached}")

    def answered(self, label: str, count: int, cached: bool) -> None:
        if label not in self.tasks:
            return
        pace = self.pace[label]
        pace.add(count, cached, time.monotonic())
        total = int(self.progress.tasks[self.tasks[label]].total or 0)
        # the batch's update (with its answers checked) is the one that reaches the total
        done = min(self.recorded.get(label, 0) + pace.batch, total - 1)
        pending = (f"{pace.batch} more answered, checked when the batch ends"
                   if pace.batch else "")
        self.progress.update(self.tasks[label], completed=done, info=", ".join(
            p for p in (self.info.get(label), pending, pace.text()) if p))

    def update(self, label: str, done: int, total: int, correct: int,
               bounds: tuple[float, float] | None, answered: int, failed: int,
               stopped: bool = False) -> None:
        task = self._task(label, total)
        pace = self.pace[label]
        pace.batch = 0
        self.recorded[label] = done
        # the tally rests on the answered samples (the certificate's k / n); failed calls
        # are no answer at all
        tally = f"{correct}/{answered} correct" if answered else "0 answered"
        if failed:
            tally += f", {failed} failed"
        self.info[label] = f"{tally}, {_interim(bounds, total, done, stopped)}"
        shown = pace.text() or (self.notes.get(label, "") if not pace.started else "")
        # a certificate its stopping rule ended is complete: its bar ends where it stopped
        self.progress.update(task, completed=done, total=done if stopped else total,
                             info=", ".join(p for p in (self.info[label], shown) if p))


def _interim(bounds: tuple[float, float] | None, total: int, done: int,
             stopped: bool = False) -> str:
    """Only the certificate's own pre-registered quantity: a sequential run's anytime-valid
    bounds (at its own level), and for n fixed in advance nothing until n is reached, since
    an interim fixed-n interval read mid-run is not what the certificate states."""
    if bounds is None:
        return ("bounds in the table below" if done >= total
                else f"bounds once n = {total} is reached")
    words = f"anytime-valid [{bounds[0]:.3f}, {bounds[1]:.3f}]"
    return f"stopped before n = {total}, {words}" if stopped else words


class _Pace:
    """The model's pace on one certificate: answers it computed (not those from the cache)
    over the time since it started computing."""

    def __init__(self, now: float) -> None:
        self.start, self.computed, self.cached, self.batch = now, 0, 0, 0
        self.last, self.begun = now, False

    @property
    def started(self) -> bool:
        """Whether the model started computing or an answer came from the cache."""
        return self.begun or bool(self.computed or self.cached)

    def add(self, count: int, cached: bool, now: float) -> None:
        if count == 0 and not cached:  # the model starts computing: its load is left out
            if self.computed == 0:
                self.start = now
            self.begun = True
            return
        self.batch += count
        if cached:
            self.cached += count
        else:
            self.computed += count
            self.last = now

    def text(self) -> str:
        parts = [f"{self.cached} from cache"] if self.cached else []
        if self.computed:
            parts.append(pace_text(self.computed, self.last - self.start))
        return ", ".join(parts)


def pace_text(answered: int, seconds: float) -> str:
    """`2.5 prompts/s`, or `31 s/prompt` for a model slower than one a second."""
    if seconds <= 0:
        return ""
    rate = answered / seconds
    return f"{rate:.1f} prompts/s" if rate >= 1 else f"{seconds / answered:.0f} s/prompt"


def print_certificates(certificates: list[Certificate], wide: bool = False) -> None:
    """The certificates as a table that fits 100 columns: spec, setting and seed said once
    above it when every row shares them, then k / n, the interval, the verdict in words and
    what the counts leave apart; `wide` gives every column instead."""
    table = _wide_table(certificates) if wide else _narrow_table(certificates)
    shared = _shared(certificates) if not wide else []
    if shared:  # said once, above the rows that share them
        console.print(Text(", ".join(f"{name} {value}" for name, value in shared)))
    warnings = [w for cert in certificates for w in cert.warnings]
    notes = [_suite_line(cert, counts.per_spec or ()) for cert in certificates
             if (counts := cert.suite_counts)]
    if not wide:  # what the counts leave apart, under the table rather than in a column
        notes = [f"{cert.where}: {apart}"
                 for cert in certificates if (apart := _apart(cert)) != "-"] + notes
    print_table(console, table)
    for note in notes:
        console.print(Text(note))
    for warning in warnings:
        console.print(Text(f"warning: {warning}"), style="yellow")
    console.print(Text("Each certificate's `guarantee` field says what it certifies; the "
                       "seed is the run's --seed, or one drawn fresh when the run began "
                       "(recorded in run.yaml), fixed before the first answer."))


def _labels(cert: Certificate) -> dict[str, Any]:
    """What names a row: spec, setting, model and seed."""
    return {"spec": cert.spec, "setting": cert.setting, "model": cert.model, "seed": cert.seed}


def _shared(certificates: list[Certificate]) -> list[tuple[str, Any]]:
    """Spec, setting and seed where every row (of more than one) has the same."""
    if len(certificates) < 2:
        return []
    first = _labels(certificates[0])
    return [(name, first[name]) for name in ("spec", "setting", "seed")
            if len({str(_labels(c)[name]) for c in certificates}) == 1]


def _verdict(cert: Certificate) -> str:
    """The interval against chance in a few words (the report says it in full)."""
    chance = cert.chance
    if not cert.n:
        return "no claim"
    if not chance:
        return "-"
    level = chance.level
    words = f"({level_text(level)})"
    if cert.lower > level:
        return f"above {words}"
    if cert.upper < level:
        return f"below {words}"
    return f"cannot tell {words}"


def _apart(cert: Certificate) -> str:
    """Unparseable answers (in n, counted wrong), failed calls and skipped prompts (not in
    n); '-' when there are none."""
    outcomes = cert.counts
    parts = [f"{count} {label}" for count, label in (
        (outcomes.unparseable, "unparseable (counted wrong)"),
        (outcomes.error, "failed (not in n)"), (outcomes.skipped,
                                                "skipped (not in n)")) if count]
    return ", ".join(parts) or "-"


def _narrow_table(certificates: list[Certificate]) -> Table:
    shared = [name for name, _ in _shared(certificates)]
    columns = [c for c in ("spec", "setting", "model") if c not in shared]
    table = Table(show_header=True, header_style="bold")
    for column in (*columns, "k / n", "interval", "vs chance"):
        table.add_column(column, no_wrap=column in ("k / n", "interval"))
    for cert in certificates:
        chance = cert.chance.level if cert.chance else None
        interval = interval_text(cert.lower, cert.upper, [chance]) if cert.n else "-"
        labels = _labels(cert)
        table.add_row(*(Text(str(labels[c])) for c in columns), f"{cert.k} / {cert.n}",
                      interval, _verdict(cert))
    return keep_names(table, *columns)


def _wide_table(certificates: list[Certificate]) -> Table:
    table = Table(show_header=True, header_style="bold")
    for column in ("spec", "setting", "model", "seed", "k / n", "lower", "upper", "chance",
                   "unparseable", "errors", "skipped"):
        table.add_column(column, no_wrap=column in ("k / n", "lower", "upper"))
    for cert in certificates:
        outcomes = cert.counts
        chance = cert.chance
        level = chance.level if chance else None
        table.add_row(Text(cert.spec), cert.setting, Text(cert.model),
                      str(cert.seed), f"{cert.k} / {cert.n}",
                      bound_text(cert.lower, [level]), bound_text(cert.upper, [level]),
                      f"{chance.level:.3f} ({chance.reading.split(' (')[0]})"
                      if chance else "-", str(outcomes.unparseable),
                      str(outcomes.error), str(outcomes.skipped))
    return keep_names(table, "spec", "setting", "model")


def _suite_line(cert: Certificate, per_spec: Sequence[SpecCount]) -> str:
    shown = ", ".join(f"{row.spec} {row.correct}/{row.answered}" for row in per_spec)
    return (f"{cert.where}: per spec (correct/answered, "
            f"not certified; the bounds are about the mixture): {shown}")
