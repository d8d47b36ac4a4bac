"""`RunDir`: the one reader and writer of a run directory.

    run = RunDir.open(path)     # an existing run directory, else InputError in one line
    run = RunDir.create(path)   # a new (or resumed) one, created if absent

Every file of a run (run.yaml, design.json, samples, certificates, comparisons, history,
spec copies, entity names) is read and written through a method here; `RunLayout` only
names the paths. Run directories written by earlier kgcert versions read as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kgcert.certify.earlier import superseded_look
from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.rundir.atomic import write_json
from kgcert.rundir.layout import RunLayout, check_run_dir


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

    # --- samples, comparisons, spec copies, entity names, lock (issue 44, part C) ---


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


__all__ = ["RunDir", "read_certificate"]
