"""Where spec files lie (the shipped folder, then any given) and which YAML files there are
specs rather than suites."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from kgcert.errors import InputError
from kgcert.util.paths import check_folder
from kgcert.util.resources import data_folder


def spec_folders(extra_dirs: Iterable[Path]) -> list[Path]:
    return [data_folder("specs"), *extra_dirs]


def spec_files_in(folders: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for folder in folders:
        if not os.path.lexists(folder):
            raise InputError(f"spec folder {folder} does not exist")
        check_folder(folder, "spec folder", writable=False)  # a file, a loop, unreadable
        found += sorted(p for p in folder.rglob("*.yaml") if p.is_file() and not is_suite_file(p))
    return found


_SUITE = re.compile(r"^kind:\s*['\"]?suite['\"]?\s*(#.*)?$", re.MULTILINE)


def is_suite_file(path: Path) -> bool:
    """A suite file (`kind: suite`, a mixture of specs, see kgcert.run.suite) lies among the
    spec files but is no spec: spec listings and the catalog leave it out."""
    try:
        return bool(_SUITE.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def suite_files_in(folders: Iterable[Path]) -> list[Path]:
    return sorted(p for folder in folders if folder.is_dir()
                  for p in folder.rglob("*.yaml") if p.is_file() and is_suite_file(p))
