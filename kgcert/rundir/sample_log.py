"""Sample files: one JSON sample record a line, appended and flushed to disk per batch.

A sample file holds one line per sample index. A run killed mid-write leaves at most one
partial last line; reading a file drops it (and cuts it from the file), so the resumed run
writes that sample again exactly once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kgcert.errors import InputError
from kgcert.rundir.atomic import write_text
from kgcert.rundir.layout import failed_file
from kgcert.rundir.sample_record import SampleRecord, sample_record
from kgcert.util.output import output_to


def complete_records(path: Path) -> Iterator[tuple[int, SampleRecord]]:
    """(line number, record) for each complete line of a sample file, for readers that leave
    the file as it is: a torn last line is skipped, blank lines are passed over, and anything
    but a sample record is refused naming the line."""
    raw = path.read_bytes()
    *complete, _torn = raw.split(b"\n")
    for number, line in enumerate(complete, start=1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            data = json.loads(line)
        except ValueError:  # not JSON, or bytes that are not UTF-8 (binary garbage)
            raise InputError(f"{where} is not a sample record") from None
        yield number, sample_record(data, where)


@dataclass
class SampleLog:
    """One (spec, setting, model) sample file."""

    path: Path

    def read(self) -> dict[int, SampleRecord]:
        """Completed samples by index; a torn last line is removed from the file."""
        if not self.path.exists():
            return {}
        raw = self.path.read_bytes()
        *complete, tail = raw.split(b"\n")  # each whole line ends in a newline
        records: dict[int, SampleRecord] = {}
        for number, line in enumerate(complete, start=1):
            where = f"{self.path}: line {number}"
            try:
                record = sample_record(json.loads(line), where)
            except (ValueError, InputError):  # not JSON, not UTF-8, or no sample record
                raise InputError(f"{where} is not a sample record; the file was edited or "
                                 "damaged") from None
            if record.index in records:
                raise InputError(f"{self.path}: sample {record.index} appears twice")
            records[record.index] = record
        if tail:  # a write cut short: drop it so the sample is written again, once
            with self.path.open("r+b") as handle:
                handle.truncate(len(raw) - len(tail))
        return records

    @property
    def failed_path(self) -> Path:
        """Beside the sample file: the failed calls a rerun asked again, one JSON line each
        (not ``*.jsonl``, so readers of sample files never take them for samples)."""
        return failed_file(self.path)

    def retry_failed(self, records: dict[int, SampleRecord]) -> dict[int, SampleRecord]:
        """Set aside the samples whose model call failed, so this run asks them again: they
        are appended to `failed_path` (their history), then dropped from the sample file.
        Answered and skipped samples are kept and never asked again."""
        failed = {i: r for i, r in records.items() if r.call_failed}
        if not failed:
            return records
        kept = {i: r for i, r in records.items() if i not in failed}
        history = self.failed_path
        with output_to(history):
            # a run killed between the two writes sets the same records aside again: once
            seen = set(history.read_text(encoding="utf-8").splitlines()) if history.exists() \
                else set()
            lines = [record_line(r) for r in failed.values()]
            with history.open("a", encoding="utf-8") as out:
                out.writelines(line + "\n" for line in lines if line not in seen)
                out.flush()
                os.fsync(out.fileno())
        write_text(self.path, "".join(record_line(r) + "\n" for r in kept.values()))
        return kept

    def append(self, records: Iterable[SampleRecord],
               prompts: PromptLines | None = None) -> None:
        """A write cut short (disk full) leaves at most a torn last line, which `read` drops.
        `prompts`: the prompts' JSON, shared by the logs of a batch's models."""
        with output_to(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as out:
                for record in records:
                    out.write(record_line(record, prompts) + "\n")
                out.flush()
                os.fsync(out.fileno())


def _encoded(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


# Stands for a record's prompt in its line until the prompt's own JSON is put in its place.
_PROMPT_HOLE = _encoded("\x00kgcert:prompt\x00")


class PromptLines:
    """The JSON of each prompt mapping a batch's records share: each model's record of a
    prompt holds the same `Prompt.as_dict()`, some 10 kB of text, encoded once rather than
    once per model. Keyed by the mapping's identity, which the entry holds, so the key stays
    its own while the entry lives."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[object, str]] = {}

    def of(self, prompt: object) -> str:
        held = self._held.get(id(prompt))
        if held is None or held[0] is not prompt:
            held = self._held[id(prompt)] = (prompt, _encoded(prompt))
        return held[1]


def record_line(record: SampleRecord, prompts: PromptLines | None = None) -> str:
    """One line of a sample file (without its newline). With `prompts`, the same bytes: the
    prompt's JSON inside a record's is what encoding it alone gives (the same separators and
    key order), so it is put in the place of a stand-in that occurs nowhere else."""
    data = record.to_dict()
    prompt = data.get("prompt")
    if prompts is None or prompt is None:
        return _encoded(data)
    line = _encoded({**data, "prompt": "\x00kgcert:prompt\x00"})
    if line.count(_PROMPT_HOLE) != 1:  # the stand-in is also in another field's text
        return _encoded(data)
    return line.replace(_PROMPT_HOLE, prompts.of(prompt))


def failed_records(log: SampleLog) -> Iterator[SampleRecord]:
    """The failed calls a rerun set aside beside `log`'s file (none if it never did)."""
    path = log.failed_path
    if not path.exists():
        return
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        where = f"{path}: line {number}"
        try:
            data = json.loads(line)
        except ValueError:  # not JSON, or bytes that are not UTF-8
            raise InputError(f"{where} is not a sample record") from None
        yield sample_record(data, where)
