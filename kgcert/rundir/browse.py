"""Read run directories without changing them: list runs with their certificates, and find one
sample record for `kgcert show`.

Light on purpose (json and yaml only), so `kgcert runs` and `kgcert show` start fast. A sample
file whose last line is cut short (a run killed, or still writing) is read without that line,
and the file is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.rundir.layout import RunLayout, is_run_dir
from kgcert.rundir.run_dir import RunDir, read_certificate, run_dir_of
from kgcert.rundir.sample_record import SampleRecord


@dataclass(frozen=True)
class RunSummary:
    path: Path
    config: dict[str, Any]
    certificates: list[tuple[Certificate, str]]  # each with its file, relative to the run
    sample_files: int
    problems: list[str] = field(default_factory=list)  # unreadable files, named, not fatal

    def as_dict(self) -> dict[str, Any]:
        listed = [{**cert.listing(), "file": file} for cert, file in self.certificates]
        return {"run": str(self.path), "kg": self.config.get("kg"),
                "seed": self.config.get("seed"), "sample_files": self.sample_files,
                "certificates": listed, "problems": self.problems}


def find_runs(root: Path) -> list[Path]:
    """`root` itself when it is a run directory, else the run directories inside it."""
    if not root.exists():
        raise InputError(f"no run directory {root} (`kgcert run --out DIR` writes one)")
    if not root.is_dir():
        raise InputError(f"{root} is a file, not a folder of runs")
    if is_run_dir(root):
        return [root]
    return sorted(child for child in root.iterdir() if is_run_dir(child))


def summarize(run: Path) -> RunSummary:
    problems: list[str] = []
    config: dict[str, Any] = {}
    layout = RunLayout(run)
    try:
        config = RunDir(layout).run_settings()
    except InputError as error:  # a damaged run.yaml (named): the run is still listed
        problems.append(str(error))
    certificates = []
    for path in layout.certificate_files():
        try:  # a file that is no certificate (or of a newer kgcert) is named, not listed
            certificates.append((read_certificate(path), str(path.relative_to(run))))
        except InputError as problem:
            problems.append(str(problem))
    certificates.sort(key=lambda c: (str(c[0].spec), str(c[0].setting), str(c[0].model)))
    samples = len(run_dir_of(run).sample_files())
    return RunSummary(run, config, certificates, samples, problems)


@dataclass(frozen=True)
class SampleFile:
    run: Path
    path: Path
    spec: str
    setting: str
    model: str

    @property
    def label(self) -> str:
        return f"--spec {self.spec} --setting {self.setting} --model {self.model}"


def sample_files(run: Path) -> list[SampleFile]:
    """Every sample file of a run with the (spec, setting, model) its first record names."""
    found = []
    samples = run_dir_of(run)
    for path in samples.sample_files():
        first = next(samples.sample_records(path), None)
        if first is None:
            continue  # nothing recorded yet
        record = first[1]
        found.append(SampleFile(run, path, str(record.spec), str(record.setting),
                                str(record.model)))
    return found


def find_sample(run: Path, index: int, *, spec: str | None = None, setting: str | None = None,
                model: str | None = None, outcome: str | None = None
                ) -> tuple[SampleFile, SampleRecord]:
    """The record of sample `index` in the one sample file the filters leave, else InputError
    saying what to choose from; with `outcome`, the first sample with that outcome at or
    after `index`."""
    if not is_run_dir(run):
        raise InputError(f"{run} is not a run directory (no run.yaml, certificates/ or "
                         "samples/)")
    files = sample_files(run)
    chosen = [f for f in files if (spec is None or f.spec == spec)
              and (setting is None or f.setting == setting)
              and (model is None or f.model == model)]
    if not chosen:
        given = ", ".join(f"{name} {value}" for name, value in
                          (("spec", spec), ("setting", setting), ("model", model)) if value)
        where = f" with {given}" if given else ""
        have = "; ".join(f.label for f in files) or "none recorded yet"
        raise InputError(f"{run} has no samples{where} (it has: {have})")
    if len(chosen) > 1:
        raise InputError(f"{run} has {len(chosen)} sample files; choose one with "
                         + " or ".join(f"`{f.label}`" for f in chosen))
    [file] = chosen
    if outcome is not None:
        found = outcome_indices(file, outcome)
        at = next((i for i in found if i >= index), None)
        if at is None:
            where = f" at or after {index}" if index else ""
            raise InputError(f"no {outcome} sample{where} in {file.path} ("
                             + (f"{outcome} at {_spans(found)})" if found else
                                f"none is {outcome})"))
        index = at
    indexes = []
    for _, record in run_dir_of(run).sample_records(file.path):
        if record.index == index:
            return file, record
        indexes.append(record.index)
    shown = f"{min(indexes)}..{max(indexes)}" if indexes else "none"
    raise InputError(f"no sample {index} in {file.path} (recorded indexes: {shown})")


def outcome_indices(file: SampleFile, outcome: str) -> list[int]:
    """The indices of the file's samples with `outcome`, ascending."""
    return sorted(record.index for _, record in run_dir_of(file.run).sample_records(file.path)
                  if record.outcome == outcome)


def _spans(indices: list[int]) -> str:
    shown = ", ".join(map(str, indices[:10]))
    return shown + (f" and {len(indices) - 10} more" if len(indices) > 10 else "")
