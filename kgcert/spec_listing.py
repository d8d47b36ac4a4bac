"""`kgcert specs list` from a cache while no spec file changed.

Listing validates every spec (pydantic models, Cypher patterns), and importing those models alone
takes longer than the listing should. The result is kept in kgcert's cache directory, keyed on
each file's path, size and modification time and on the source of the modules that validate
specs, so a changed spec or a new kgcert version lists afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from kgcert.atomicfile import write_cache_json
from kgcert.errors import InputError
from kgcert.paths import check_folder
from kgcert.resources import data_folder

# kept outside kgcert.specs, whose package import loads the pydantic models
_VALIDATING = ("specs/model.py", "specs/pattern.py", "specs/pattern_parser.py", "specs/catalog.py",
               "spec_listing.py")


@dataclass(frozen=True)
class Listed:
    name: str
    kind: str
    description: str
    path: str


def spec_folders(extra_dirs: Iterable[Path]) -> list[Path]:
    return [data_folder("specs"), *extra_dirs]


def spec_files_in(folders: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for folder in folders:
        if not os.path.lexists(folder):
            raise InputError(f"spec folder {folder} does not exist")
        check_folder(folder, "spec folder", writable=False)  # a file, a loop, unreadable
        found += sorted(p for p in folder.rglob("*.yaml") if p.is_file())
    return found


def _key(files: list[Path]) -> str:
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _VALIDATING:
        digest.update((here / name).read_bytes())
    for path in files:
        stat = path.stat()
        digest.update(f"\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def listed_specs(extra_dirs: Iterable[Path] = ()) -> list[Listed]:
    """Every spec `catalog` sees, as name, kind, description and file (InputError as there)."""
    from kgcert.config import cache_dir

    extra_dirs = list(extra_dirs)
    files = spec_files_in(spec_folders(extra_dirs))
    try:
        key = _key(files)
    except OSError:
        key = None
    cache = cache_dir() / "spec-list.json"
    if key is not None:
        try:
            body = json.loads(cache.read_text(encoding="utf-8"))
            if body["key"] == key:
                return [Listed(**entry) for entry in body["specs"]]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # absent or not as written: list afresh
    from kgcert.specs.catalog import catalog

    listed = [Listed(e.spec.name, e.spec.kind, e.spec.description, str(e.path))
              for e in catalog(extra_dirs)]
    if key is not None:
        write_cache_json(cache, {"key": key, "specs": [asdict(item) for item in listed]})
    return listed
