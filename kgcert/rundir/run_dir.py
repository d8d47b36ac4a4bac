"""`RunDir`: the one reader and writer of a run directory.

    run = RunDir.open(path)     # an existing run directory, else InputError in one line
    run = RunDir.create(path)   # a new (or resumed) one, created if absent

Every file of a run (run.yaml, design.json, samples, certificates, comparisons, history,
spec copies, entity names) is read and written through a method here; `RunLayout` only
names the paths. Run directories written by earlier kgcert versions read as they are.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from kgcert.certify.earlier import superseded_look
from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.rundir.atomic import write_json
from kgcert.rundir.layout import SAMPLE_SUFFIX, RunLayout, check_run_dir
from kgcert.rundir.sample_log import SampleLog, complete_records, failed_records
from kgcert.rundir.sample_record import SampleRecord

if TYPE_CHECKING:
    from kgcert.rundir.design_record import DesignEntry
    from kgcert.rundir.run_spec import RunSpec
    from kgcert.store.graph import GraphStore


@dataclass(frozen=True)
class RunDir:
    """One run directory (see the module docstring)."""

    layout: RunLayout

    @classmethod
    def open(cls, path: Path) -> RunDir:
        """The run directory at `path`; InputError if there is none."""
        return cls(RunLayout(check_run_dir(Path(path))))

    @classmethod
    def create(cls, path: Path) -> RunDir:
        """The run directory at `path`, created (with its parents) if absent."""
        root = Path(path)
        root.mkdir(parents=True, exist_ok=True)
        return cls(RunLayout(root))

    @property
    def root(self) -> Path:
        return self.layout.root

    # --- certificates, earlier looks and their history (issue 44, part A) ---

    def certificates(self) -> list[Certificate]:
        """The current certificates (not the earlier looks kept below them), by file name."""
        return [read_certificate(path) for path in self.layout.certificate_files()]

    def certificate_paths(self) -> list[Path]:
        """The current certificates' files, sorted (a caller that only watches them)."""
        return self.layout.certificate_files()

    def certificate_files(self) -> list[tuple[Path, Certificate]]:
        """The current certificates with the file each was read from, by file name."""
        return [(path, read_certificate(path)) for path in self.layout.certificate_files()]

    def certificate(self, spec: str, setting: str, model: str) -> Certificate | None:
        """The current certificate of (spec, setting, model), None if there is none yet."""
        path = self.layout.certificate_file(spec, setting, model)
        return read_certificate(path) if path.exists() else None

    def certificate_path(self, cert: Certificate) -> Path:
        return self.layout.certificate_file(cert.spec, cert.setting, cert.model)

    def earlier_looks(self) -> list[Certificate]:
        """The certificates a later look superseded (certificates/earlier/), by file name."""
        folder = self.layout.earlier_dir
        return ([read_certificate(path) for path in sorted(folder.glob("*.json"))]
                if folder.is_dir() else [])

    def write_certificate(self, cert: Certificate) -> Path:
        """Writes `cert` (at the newest record version) where its (spec, setting, model)
        belongs. The certificate it replaces is kept in certificates/earlier/ when this is a
        later look at other samples, and the n it was written at joins the history."""
        path = self.certificate_path(cert)
        old = _readable(path)
        kept = superseded_look(old, cert) if old is not None else None
        if kept is not None:
            write_json(self._earlier_file(path, kept), kept.written(), allow_nan=False)
        write_json(path, cert.written(), allow_nan=False)
        if cert.written_at_n is not None:
            history = self.history()
            history[path.name] = [int(n) for n in cert.written_at_n]
            write_json(self.layout.history_file, history)
        return path

    def _earlier_file(self, path: Path, kept: Certificate) -> Path:
        # certificates/earlier/: the certificates an n or design change superseded
        return self.layout.earlier_dir / (
            f"{path.stem}__design-{kept.design or 'none'}__n-"
            f"{'' if 'samples_requested' in kept.absent else kept.samples_requested}.json")

    def history(self) -> dict[str, list[int]]:
        """certificate_history.json: every n each certificate file was written at (a
        certificate rewritten at another n is a later look, which its validity counts)."""
        path = self.layout.history_file
        if not path.exists():
            return {}
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise InputError(f"{path} is not valid JSON; the file was edited or damaged") from None
        if not isinstance(loaded, dict):
            raise InputError(f"{path} must map certificate files to lists of n")
        return {str(name): [int(n) for n in ns] for name, ns in loaded.items()}

    def written_at(self, spec: str, setting: str, model: str) -> list[int]:
        """Every n the certificate of (spec, setting, model) was written at, in order."""
        return self.history().get(self.layout.certificate_file(spec, setting, model).name, [])

    # --- run.yaml (the RunSpec) and design.json (issue 44, part B) ---

    def _run_yaml(self) -> Any:
        """run.yaml parsed (None when the run has none yet): the one read of the file."""
        from kgcert.util.yamlfile import read_yaml

        path = self.layout.run_file
        return read_yaml(path, "run file") if path.is_file() else None

    def run_settings(self) -> dict[str, Any]:
        """run.yaml's keys as written, for summaries and reports: a partial or hand-edited
        file too ({} when there is none, or it is no mapping)."""
        raw = self._run_yaml()
        return raw if isinstance(raw, dict) else {}

    def read_run_spec(self) -> RunSpec | None:
        """run.yaml's settings, checked (None when the run has none yet). One written before
        runs had one budget (it has no seed_source) is marked `older_budget`: its samples
        hold per-model prompts."""
        from kgcert.rundir.run_file_keys import run_file_keys_from
        from kgcert.rundir.run_spec import RunSpec

        path = self.layout.run_file
        raw = self._run_yaml()
        if raw is None:
            return None
        if not isinstance(raw, dict):
            raise InputError(f"run file {path} must be a YAML mapping")
        return RunSpec.from_keys(run_file_keys_from(raw, str(path)),
                                 older_budget="seed_source" not in raw, source=str(path))

    def write_run_spec(self, spec: RunSpec, *, replace: bool = True) -> None:
        """run.yaml, whole: the flat run-file keys in their order (a run file users pass back
        with --config). `replace=False` keeps a run.yaml already there."""
        import yaml

        from kgcert.rundir.atomic import write_text

        path = self.layout.run_file
        if not replace and path.exists():
            return
        write_text(path, yaml.safe_dump(spec.settings(),
                                        sort_keys=False))

    def read_designs(self) -> list[DesignEntry]:
        """design.json's designs, in order ([] for a run older than design records)."""
        from kgcert.rundir.design_record import DesignEntry

        path = self.layout.design_file
        if not path.exists():
            return []
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
            return [DesignEntry(**entry) for entry in loaded["designs"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"{path} is not a design record; the file was edited or "
                             "damaged") from None

    def record_design(self, entry: DesignEntry) -> list[DesignEntry]:
        """Append `entry` unless the run's last design is the same one; returns the history."""
        from kgcert.rundir.atomic import write_json

        designs = self.read_designs()
        if not designs or designs[-1].hash != entry.hash:
            designs.append(entry)
            write_json(self.layout.design_file, {"designs": [d.as_dict() for d in designs]})
        return designs

    # --- samples, comparisons, spec copies, entity names, lock (issue 44, part C) ---

    def sample_log(self, spec: str, setting: str, model: str) -> SampleLog:
        """The (spec, setting, model) sample file, read, appended to and retried through."""
        return SampleLog(self.layout.sample_file(spec, setting, model))

    def sample_files(self) -> list[Path]:
        """Every sample file, sorted (failed-call files are not among them)."""
        return self.layout.sample_files()

    def sample_files_by_setting(self) -> list[list[Path]]:
        """The sample files of each samples/<spec>/<setting>/ folder (one per model), folders
        and files sorted."""
        return [sorted(folder.glob(f"*{SAMPLE_SUFFIX}")) for folder in self.layout.setting_dirs()]

    def sample_lines(self, path: Path) -> int:
        """How many non-blank lines one of the run's sample files holds (0 when unreadable):
        a count that needs no parse, for a page that refreshes as the run writes."""
        try:
            with path.open("rb") as handle:
                return sum(1 for line in handle if line.strip())
        except OSError:
            return 0

    def sample_records(self, path: Path) -> Iterator[tuple[int, SampleRecord]]:
        """(line number, record) of one of this run's sample files, the file left as it is
        (a torn last line skipped)."""
        return complete_records(path)

    def failed_calls(self, log: SampleLog) -> Iterator[SampleRecord]:
        """The failed calls a rerun set aside beside `log`'s file (none if it never did)."""
        return failed_records(log)

    def comparison_file(self, spec: str, setting: str) -> Path:
        return self.layout.comparison_file(spec, setting)

    @property
    def compare_file(self) -> Path:
        """report/compare.json: where `kgcert compare` of this run alone writes by default
        (`--out` and comparisons of several runs write outside any one run)."""
        return self.layout.compare_file

    def read_comparison(self, spec: str, setting: str) -> Any:
        """The (spec, setting)'s comparison as its JSON holds it; None when absent or
        unreadable."""
        return _read_json(self.layout.comparison_file(spec, setting))

    def comparisons(self) -> list[tuple[Path, Any]]:
        """Each current comparison file with its JSON (None where it is unreadable)."""
        return [(path, _read_json(path)) for path in self.layout.comparison_files()]

    def earlier_comparisons(self) -> list[Any]:
        """The comparisons of designs a `--new-design` superseded, sorted by file name."""
        folder = self.layout.earlier_comparisons_dir
        return [_read_json(path) for path in sorted(folder.glob("*.json"))] \
            if folder.is_dir() else []

    def write_comparison(self, spec: str, setting: str, body: Mapping[str, Any]) -> None:
        from kgcert.rundir.atomic import write_json

        write_json(self.layout.comparison_file(spec, setting), body)

    def write_earlier_comparison(self, name: str, body: Mapping[str, Any]) -> Path:
        """Keep a superseded design's comparison under comparisons/earlier/; its path."""
        from kgcert.rundir.atomic import write_json

        path = self.layout.earlier_comparisons_dir / name
        write_json(path, body)
        return path

    def spec_index(self) -> Mapping[str, dict[str, Any]]:
        """specs/index.json as the run wrote it (empty for runs made before runs kept their
        specs)."""
        found = _read_json(self.layout.spec_index)
        return found if isinstance(found, dict) else {}

    def save_specs(self, store: GraphStore, names: Iterable[str],
                   spec_dirs: Iterable[Path]) -> dict[str, dict[str, Any]]:
        """Copy every spec file of the run into specs/ and write the index."""
        from kgcert.rundir.spec_copies import save_run_specs

        return save_run_specs(self.layout, store, names, spec_dirs)

    def spec_copies(self) -> dict[str, tuple[Path, str | None]]:
        """Spec name as the run named it -> (its copy, the sha256 recorded for it)."""
        return {name: (self.root / str(item["file"]),
                       str(item["sha256"]) if item.get("sha256") else None)
                for name, item in self.spec_index().items()
                if isinstance(item, dict) and "file" in item}

    def use_spec_copies(self) -> None:
        """Let the run's spec names and paths fall back to its copied files."""
        from kgcert.specs.catalog import use_run_copies

        copies = self.spec_copies()
        use_run_copies({name: copy for name, (copy, _) in copies.items()},
                       {copy: sha256 for copy, sha256 in copies.values() if sha256})

    def spec_copy_text(self, copy: Path) -> str | None:
        """A kept spec file's text (None when it is gone or unreadable)."""
        from kgcert.rundir.spec_copies import copy_text

        return copy_text(copy)

    def spec_copy_edited(self, copy: Path, sha256: str | None) -> bool:
        """Whether a kept spec file no longer holds the bytes the run recorded."""
        from kgcert.rundir.spec_copies import copy_edited

        return copy_edited(copy, sha256)

    def entity_names(self) -> dict[str, str]:
        """entity_names.json: entity id -> name (empty when the run wrote none)."""
        found = _read_json(self.layout.entity_names_file)
        return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}

    def write_entity_names(self, names: Mapping[str, str]) -> None:
        from kgcert.rundir.atomic import write_json

        write_json(self.layout.entity_names_file, names)

    def has_entity_names(self) -> bool:
        return self.layout.entity_names_file.exists()

    def lock(self) -> IO[str]:
        """Hold the run's lock (for as long as the returned file stays open); InputError in
        one line when another process holds it."""
        from kgcert.util.output import output_to

        with output_to(self.root):
            self.root.mkdir(parents=True, exist_ok=True)
            handle = self.layout.lock_file.open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise InputError(f"another kgcert run is writing to {self.root}") from None
        return handle

    def holds_only_lock(self) -> bool:
        """Whether the folder holds nothing but the lock (a run that wrote nothing)."""
        return {p.name for p in self.root.iterdir()} == {self.layout.lock_file.name}

    def remove_lock(self) -> None:
        self.layout.lock_file.unlink()


def run_dir_of(path: Path) -> RunDir:
    """The run directory at `path` as it stands, unchecked (for readers that take a missing
    file as absent, and for folders a run is about to fill)."""
    return RunDir(RunLayout(Path(path)))


def _read_json(path: Path) -> Any:
    """The JSON a file holds; None when it is absent or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None

def read_certificate(path: Path) -> Certificate:
    """The certificate at `path`, else InputError naming the file and what is wrong (not
    JSON, a required field missing, a newer record version, a field of the wrong type)."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"{path} is not a certificate (not valid JSON)") from None
    return Certificate.read(body, path)


def _readable(path: Path) -> Certificate | None:
    """The certificate a write replaces, None if there is none or it cannot be read (it is
    replaced all the same, as kgcert always did)."""
    try:
        return read_certificate(path) if path.exists() else None
    except (OSError, InputError):
        return None


__all__ = ["RunDir", "read_certificate", "run_dir_of"]
