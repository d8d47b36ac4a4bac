"""The load manifest kept in each KG's database: what was loaded, from which files, by whom."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kgcert import __version__
from kgcert.store.cypher import statement
from kgcert.store.graph import GraphStore

LOADING = "loading"
COMPLETE = "complete"


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Manifest:
    kg: str
    format: str
    loader_version: str
    options: dict[str, Any]
    files: list[dict[str, Any]]
    status: str = LOADING
    counts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    kgcert_version: str = __version__
    started_at: str = field(default_factory=now)
    finished_at: str = ""

    @classmethod
    def for_files(cls, kg: str, fmt: str, loader_version: str, options: dict[str, Any],
                  files: list[Path]) -> Manifest:
        described = [
            {"path": str(p.resolve()), "name": p.name, "bytes": p.stat().st_size,
             "sha256": file_digest(p)}
            for p in files
        ]
        return cls(kg=kg, format=fmt, loader_version=loader_version, options=options,
                   files=described)

    @property
    def fingerprint(self) -> str:
        """Identifies the graph's content: same format, loader, options and file bytes."""
        basis = {
            "format": self.format,
            "loader_version": self.loader_version,
            "options": self.options,
            "files": sorted(f["sha256"] for f in self.files),
        }
        return hashlib.sha256(json.dumps(basis, sort_keys=True).encode()).hexdigest()

    def to_properties(self) -> dict[str, Any]:
        # JSON strings: Neo4j properties cannot hold maps.
        return {
            "kg": self.kg, "format": self.format, "loader_version": self.loader_version,
            "options": json.dumps(self.options, sort_keys=True),
            "files": json.dumps(self.files), "status": self.status,
            "counts": json.dumps(self.counts), "notes": json.dumps(self.notes),
            "kgcert_version": self.kgcert_version, "started_at": self.started_at,
            "finished_at": self.finished_at, "fingerprint": self.fingerprint,
        }

    @classmethod
    def from_properties(cls, props: dict[str, Any]) -> Manifest:
        return cls(
            kg=props["kg"], format=props["format"], loader_version=props["loader_version"],
            options=json.loads(props["options"]), files=json.loads(props["files"]),
            status=props["status"], counts=json.loads(props.get("counts") or "{}"),
            notes=json.loads(props.get("notes") or "[]"),
            kgcert_version=props.get("kgcert_version", ""),
            started_at=props.get("started_at", ""), finished_at=props.get("finished_at", ""),
        )

    def save(self, store: GraphStore) -> None:
        store.execute(statement("load", "write_manifest"), kg=self.kg,
                      fields=self.to_properties())


def read_manifest(store: GraphStore) -> Manifest | None:
    rows = store.query(statement("load", "read_manifest"))
    return Manifest.from_properties(rows[0]["manifest"]) if rows else None
