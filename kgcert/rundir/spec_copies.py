"""The spec files a run used, copied into its folder: `specs/<file name>` and `specs/index.json`
(per spec as the run names it: the copy, the original path, the file's sha256, the spec hash
and, for relation specs, the Cypher of its matches as it runs on the run's server).

Read and written through `RunDir` (`save_specs`, `spec_index`, `spec_copies`). So a run
reproduces from its own folder (`kgcert run --config runs/x/run.yaml` finds its specs
there when the originals are gone), and the report shows the exact spec a certificate used.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgcert.rundir.layout import RunLayout
from kgcert.store.graph import GraphStore


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _copy_name(folder: Path, source: Path, data: bytes, taken: set[str]) -> str:
    """The original file name, unless another file of that name holds other bytes."""
    name, number = source.name, 1
    while name in taken or ((folder / name).is_file() and (folder / name).read_bytes() != data):
        number += 1
        name = f"{source.stem}-{number}{source.suffix}"
    return name


def matches_cypher(store: GraphStore, spec: Any) -> str | None:
    """A relation spec's matches as runnable Cypher on this store (no scope placeholder)."""
    from kgcert.specs import KGSchema, compile_relation_spec
    from kgcert.specs.kind import relation_spec

    relation = relation_spec(spec)
    if relation is None:
        return None
    compiled = compile_relation_spec(relation, KGSchema.read(store))
    return store.scoped(compiled.matches_cypher())


def save_run_specs(layout: RunLayout, store: GraphStore, names: Iterable[str],
                   spec_dirs: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """Copy every spec file of the run into its specs/ and write the index (through
    `RunDir.save_specs`)."""
    from kgcert.rundir.atomic import write_json
    from kgcert.specs import find_spec, spec_hash

    run_dir = layout.root
    folder = layout.specs_dir
    folder.mkdir(parents=True, exist_ok=True)
    index: dict[str, dict[str, Any]] = {}
    taken: set[str] = set()
    for name in names:
        entry = find_spec(name, spec_dirs)
        data = entry.path.read_bytes()
        copy = _copy_name(folder, entry.path, data, taken)
        taken.add(copy)
        if not (folder / copy).is_file():
            (folder / copy).write_bytes(data)
        index[name] = {"spec": entry.spec.name, "kind": entry.spec.kind,
                       "file": (folder / copy).relative_to(run_dir).as_posix(),
                       "source": str(entry.path.resolve()),
                       "sha256": _sha256(data), "spec_hash": spec_hash(entry.spec),
                       "cypher": matches_cypher(store, entry.spec)}
    write_json(layout.spec_index, index)
    return index


def copy_text(copy: Path) -> str | None:
    """A kept spec file's text (None when it is gone or unreadable)."""
    if not copy.is_file():
        return None
    try:
        return copy.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def copy_edited(copy: Path, sha256: str | None) -> bool:
    """Whether the copy a run kept no longer holds the bytes it recorded (None: unknown)."""
    try:
        return sha256 is not None and _sha256(copy.read_bytes()) != sha256
    except OSError:
        return False
