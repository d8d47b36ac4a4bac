"""Where each file of a run directory lives: the one place that names them.

    run.yaml                          the resolved run settings (resume, report, write-back)
    design.json                       every design of the run, in order
    certificate_history.json          certificate file -> every n it was written at
    entity_names.json                 the entity names the prompts showed
    specs/index.json, specs/*         the spec files the run used
    certificates/<spec>__<setting>__<model>.json
    certificates/earlier/*.json       certificates a later look superseded
    samples/<spec>/<setting>/<model>.jsonl          one sample record a line
    samples/<spec>/<setting>/<model>.jsonl.failed   failed calls a rerun asked again
    comparisons/<spec>__<setting>.json              a race's decisions (`run --until`)
    comparisons/earlier/*.json        decisions of designs a `--new-design` superseded
    report/, report/compare.json      `kgcert report` and `kgcert compare` write here by default
    .lock                             held while `kgcert run` writes

A new kind of file gets a name here (and a line above), and its readers and writers ask
`RunLayout` for its path rather than joining names of their own.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from kgcert.errors import InputError

RUN_FILE = "run.yaml"
DESIGN_FILE = "design.json"
HISTORY_FILE = "certificate_history.json"
ENTITY_NAMES_FILE = "entity_names.json"
SPECS_DIR = "specs"
SPEC_INDEX = "index.json"
CERTIFICATES_DIR = "certificates"
EARLIER_DIR = "earlier"  # inside certificates/ and comparisons/
COMPARISONS_DIR = "comparisons"
SAMPLES_DIR = "samples"
SAMPLE_SUFFIX = ".jsonl"
FAILED_SUFFIX = ".failed"  # appended to a sample file's name (so it is no `*.jsonl`)
REPORT_DIR = "report"
COMPARE_FILE = "compare.json"  # in report/ (or in the folder `compare --out` names)
LOCK_FILE = ".lock"
# a folder holding any of these is a run directory (a run killed early may have only one)
MARKERS = (RUN_FILE, CERTIFICATES_DIR, SAMPLES_DIR)


def slug(text: str) -> str:
    """A file-name-safe form of a spec, model or setting name (distinct names stay distinct)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"
    if not safe.strip("."):  # "." and ".." lead out of the folder: never a file name
        safe = "_" * len(safe)
    if safe != text:
        digest = hashlib.sha256(text.encode()).digest()
        safe += "-" + format(int.from_bytes(digest[:3], "little"), "06x")
    return safe


@dataclass(frozen=True)
class RunLayout:
    """The paths of one run directory's files (nothing is read or created here)."""

    root: Path

    @property
    def run_file(self) -> Path:
        return self.root / RUN_FILE

    @property
    def design_file(self) -> Path:
        return self.root / DESIGN_FILE

    @property
    def history_file(self) -> Path:
        return self.root / HISTORY_FILE

    @property
    def entity_names_file(self) -> Path:
        return self.root / ENTITY_NAMES_FILE

    @property
    def specs_dir(self) -> Path:
        return self.root / SPECS_DIR

    @property
    def spec_index(self) -> Path:
        return self.specs_dir / SPEC_INDEX

    @property
    def certificates_dir(self) -> Path:
        return self.root / CERTIFICATES_DIR

    @property
    def earlier_dir(self) -> Path:
        return self.certificates_dir / EARLIER_DIR

    @property
    def comparisons_dir(self) -> Path:
        return self.root / COMPARISONS_DIR

    @property
    def earlier_comparisons_dir(self) -> Path:
        return self.comparisons_dir / EARLIER_DIR

    @property
    def samples_dir(self) -> Path:
        return self.root / SAMPLES_DIR

    @property
    def report_dir(self) -> Path:
        return self.root / REPORT_DIR

    @property
    def compare_file(self) -> Path:
        return self.report_dir / COMPARE_FILE

    @property
    def lock_file(self) -> Path:
        return self.root / LOCK_FILE

    def sample_file(self, spec: str, setting: str, model: str) -> Path:
        return (self.samples_dir / slug(spec) / slug(setting)
                / f"{slug(model)}{SAMPLE_SUFFIX}")

    def certificate_file(self, spec: str, setting: str, model: str) -> Path:
        return self.certificates_dir / f"{slug(spec)}__{slug(setting)}__{slug(model)}.json"

    def comparison_file(self, spec: str, setting: str) -> Path:
        return self.comparisons_dir / f"{slug(spec)}__{slug(setting)}.json"

    def comparison_files(self) -> list[Path]:
        """The current comparisons (not the earlier designs' kept below them), sorted."""
        folder = self.comparisons_dir
        return sorted(folder.glob("*.json")) if folder.is_dir() else []

    def certificate_files(self) -> list[Path]:
        """The current certificates (not the earlier looks kept below them), sorted."""
        folder = self.certificates_dir
        return sorted(folder.glob("*.json")) if folder.is_dir() else []

    def sample_files(self) -> list[Path]:
        """Every sample file, sorted (failed-call files are not `*.jsonl`)."""
        folder = self.samples_dir
        return sorted(folder.rglob(f"*{SAMPLE_SUFFIX}")) if folder.is_dir() else []

    def setting_dirs(self) -> list[Path]:
        """samples/<spec>/<setting>/ folders, sorted: one sample file per model in each."""
        folder = self.samples_dir
        return sorted(folder.glob("*/*")) if folder.is_dir() else []

    def is_run_dir(self) -> bool:
        return self.root.is_dir() and any((self.root / name).exists() for name in MARKERS)


def failed_file(sample_file: Path) -> Path:
    """Beside a sample file: the failed calls a rerun asked again, one JSON line each."""
    return sample_file.with_name(sample_file.name + FAILED_SUFFIX)


def is_run_dir(path: Path) -> bool:
    return RunLayout(path).is_run_dir()


def check_run_dir(path: Path) -> Path:
    """`path` if it is a run directory (run.yaml, certificates/ or samples/), else InputError."""
    if not path.exists():
        raise InputError(f"run directory {path} does not exist")
    if not path.is_dir():
        raise InputError(f"{path} is not a run directory (it is a file)")
    if not is_run_dir(path):
        raise InputError(f"{path} is not a run directory (it has no run.yaml, certificates/ or "
                         "samples/)")
    return path
