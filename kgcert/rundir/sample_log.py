"""Sample files: one JSON sample record a line, appended and flushed to disk per batch.

A sample file holds one line per sample index. A run killed mid-write leaves at most one
partial last line; reading a file drops it (and cuts it from the file), so the resumed run
writes that sample again exactly once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.output import output_to
from kgcert.rundir.atomic import write_text
from kgcert.rundir.layout import failed_file


def complete_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each complete line of a sample file, for readers that leave
    the file as it is: a torn last line is skipped, blank lines are passed over, and anything
    but a JSON object with an index is refused naming the line."""
    raw = path.read_bytes()
    *complete, _torn = raw.split(b"\n")
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            raise InputError(f"{path}: line {number} is not a sample record") from None
        if not isinstance(record, dict) or "index" not in record:
            raise InputError(f"{path}: line {number} is not a sample record")
        yield number, record


@dataclass
class SampleLog:
    """One (spec, setting, model) sample file."""

    path: Path

    def read(self) -> dict[int, dict[str, Any]]:
        """Completed samples by index; a torn last line is removed from the file."""
        if not self.path.exists():
            return {}
        raw = self.path.read_bytes()
        *complete, tail = raw.split(b"\n")  # each whole line ends in a newline
        records: dict[int, dict[str, Any]] = {}
        for number, line in enumerate(complete, start=1):
            try:
                record = json.loads(line)
                index = int(record["index"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise InputError(f"{self.path}: line {number} is not a sample record; the file "
                                 "was edited or damaged") from None
            if index in records:
                raise InputError(f"{self.path}: sample {index} appears twice")
            records[index] = record
        if tail:  # a write cut short: drop it so the sample is written again, once
            with self.path.open("r+b") as handle:
                handle.truncate(len(raw) - len(tail))
        return records

    @property
    def failed_path(self) -> Path:
        """Beside the sample file: the failed calls a rerun asked again, one JSON line each
        (not ``*.jsonl``, so readers of sample files never take them for samples)."""
        return failed_file(self.path)

    def retry_failed(self, records: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
        """Set aside the samples whose model call failed, so this run asks them again: they
        are appended to `failed_path` (their history), then dropped from the sample file.
        Answered and skipped samples are kept and never asked again."""
        failed = {i: r for i, r in records.items() if call_failed(r)}
        if not failed:
            return records
        kept = {i: r for i, r in records.items() if i not in failed}
        history = self.failed_path
        with output_to(history):
            # a run killed between the two writes sets the same records aside again: once
            seen = set(history.read_text(encoding="utf-8").splitlines()) if history.exists() \
                else set()
            lines = [_line(r) for r in failed.values()]
            with history.open("a", encoding="utf-8") as out:
                out.writelines(line + "\n" for line in lines if line not in seen)
                out.flush()
                os.fsync(out.fileno())
        write_text(self.path, "".join(_line(r) + "\n" for r in kept.values()))
        return kept

    def append(self, records: list[dict[str, Any]]) -> None:
        """A write cut short (disk full) leaves at most a torn last line, which `read` drops."""
        with output_to(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                for record in records:
                    out.write(_line(record) + "\n")
                out.flush()
                os.fsync(out.fileno())


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, default=str)


def call_failed(record: dict[str, Any]) -> bool:
    """Whether the sample's model call failed (no answer arrived): the samples a rerun asks
    again. Skipped prompts made no call; answered ones, right or wrong, stand."""
    response = record.get("response")
    return isinstance(response, dict) and response.get("error") is not None
