"""`kgcert specs list` from a cache while no spec file changed.

Listing validates every spec (pydantic models, Cypher patterns), and importing those models alone
takes longer than the listing should. The result is kept in kgcert's cache directory, keyed on
each file's path, size and modification time and on the source of the modules that validate
specs, so a changed spec or a new kgcert version lists afresh.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from kgcert.specs.folders import spec_files_in, spec_folders
from kgcert.util.atomicfile import write_cache_json

# the modules whose source decides what a spec file lists as
_VALIDATING = ("model.py", "pattern.py", "pattern_graph.py", "pattern_parser.py", "catalog.py",
               "folders.py", "listing.py")


@dataclass(frozen=True)
class Listed:
    name: str
    kind: str
    description: str
    path: str
    kg: str | None = None  # the KG family the spec is written for


@dataclass(frozen=True)
class Unusable:
    """A spec file `specs list` could not read, and why."""

    path: str
    error: str


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
    """Every usable spec `catalog` sees, as name, kind, description, file and KG family."""
    return listing(extra_dirs)[0]


def listing(extra_dirs: Iterable[Path] = ()) -> tuple[list[Listed], list[Unusable]]:
    """The usable specs and the files that could not be read (InputError for a missing
    folder); cached while no spec file changes."""
    from kgcert.util.locations import cache_dir

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
                return ([Listed(**entry) for entry in body["specs"]],
                        [Unusable(**entry) for entry in body["problems"]])
        except (OSError, ValueError, KeyError, TypeError):
            pass  # absent or not as written: list afresh
    from kgcert.specs.catalog import catalog_with_problems

    entries, problems = catalog_with_problems(extra_dirs)
    listed = [Listed(e.spec.name, e.spec.kind, e.spec.description, str(e.path), e.spec.kg)
              for e in entries]
    unusable = [Unusable(str(p.path), p.error) for p in problems]
    if key is not None:
        write_cache_json(cache, {"key": key, "specs": [asdict(item) for item in listed],
                                 "problems": [asdict(item) for item in unusable]})
    return listed, unusable


def family_of(spec_kg: str | None) -> str | None:
    """The KG format a spec's `kg:` names (`wikidatasets countries` -> wikidatasets)."""
    return spec_kg.split()[0].lower() if spec_kg and spec_kg.split() else None


def applies(spec_kg: str | None, kg_format: str | None, families: Iterable[str]) -> bool:
    """Whether a spec written for KG family `spec_kg` applies to a KG loaded from
    `kg_format`: the same family, or a spec with none, or a KG of a format no spec names
    (triples, neo4j-admin files: its family cannot be told, so every spec may apply)."""
    family = family_of(spec_kg)
    if family is None or kg_format is None or kg_format.lower() not in set(families):
        return True
    return family == kg_format.lower()


def kg_format(store: object) -> str | None:
    """The format a loaded KG was read from (its manifest's), if it has a manifest."""
    from kgcert.loading.manifest import read_manifest

    manifest = read_manifest(store)  # type: ignore[arg-type]
    return manifest.format if manifest else None
