"""What every loader is: named in the registry, turns source files into KGData."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from anyascii import anyascii

from kgcert.errors import InputError
from kgcert.store.kg_data import KGData
from kgcert.util.paths import missing_file


@dataclass(frozen=True)
class LoadOptions:
    strict: bool = False
    ascii_fold: bool = True
    settings: dict[str, Any] = field(default_factory=dict)

    def fold(self, text: str) -> str:
        """ASCII-fold display text, as the LLMCert-C preprocessing does, when asked."""
        return anyascii(text) if self.ascii_fold else text

    def manifest_view(self) -> dict[str, Any]:
        return {"strict": self.strict, "ascii_fold": self.ascii_fold, **self.settings}


class Loader(ABC):
    """One KG file layout. Subclasses set `format`, listed in `kgcert.loaders.LOADERS`."""

    format: ClassVar[str]
    summary: ClassVar[str]
    version: ClassVar[str] = "1"

    def __init__(self, options: LoadOptions | None = None) -> None:
        self.options = options or LoadOptions()

    @abstractmethod
    def source_files(self, paths: Sequence[Path]) -> list[Path]:
        """The files this load reads, found in the given files or directories."""

    @abstractmethod
    def read(self, files: Sequence[Path]) -> KGData:
        """Parse and preprocess the files."""


def find_file(paths: Sequence[Path], names: Sequence[str], *, required: bool = True,
              what: str = "") -> Path | None:
    """The first path (or file inside a given directory) whose name is one of `names`."""
    for path in paths:
        if path.is_file() and path.name in names:
            return path
        if path.is_dir():
            for name in names:
                for candidate in (path / name, *path.glob(f"*/{name}")):
                    if candidate.is_file():
                        return candidate
    if required:
        shown = ", ".join(str(p) for p in paths)
        raise InputError(f"no {what or ' or '.join(names)} found in {shown}")
    return None


def check_paths_exist(paths: Sequence[Path]) -> None:
    for path in paths:
        if not path.exists():
            raise missing_file(path)  # or a link loop
