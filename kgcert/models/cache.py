"""SQLite response cache: a re-run reuses earlier responses.

Key: sha256 of canonical JSON of (model identity, generation config, what the model sees, the
option count in choice mode, and the sample index when sampling). Only successful responses are
stored, so failed calls are retried on the next run. Identities hold no secrets.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kgcert.models.base import (
    GenerationConfig,
    Model,
    ModelRequest,
    ModelResponse,
    report_answers,
)

SCHEMA_VERSION = 1


def default_cache_dir() -> Path:
    from kgcert.util.locations import cache_dir

    return cache_dir() / "responses"


def cache_key(identity: Mapping[str, Any], config: GenerationConfig, request: ModelRequest) -> str:
    parts: dict[str, Any] = {
        "v": SCHEMA_VERSION,
        "model": dict(identity),
        "config": config.as_dict(),
        "input": request.content_key(),
    }
    if config.mode == "choice":
        parts["n_options"] = request.n_options
    if not config.greedy:
        parts["sample_index"] = request.sample_index
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ResponseCache:
    """A response store in ``directory/responses.sqlite``; safe to share between threads."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "responses.sqlite"
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses ("
            "key TEXT PRIMARY KEY, model TEXT NOT NULL, response TEXT NOT NULL, "
            "created REAL NOT NULL)"
        )
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, ModelResponse]:
        found: dict[str, ModelResponse] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, response FROM responses WHERE key IN ({marks})", chunk
                ).fetchall()
                for key, raw in rows:
                    found[key] = ModelResponse.from_json(raw)
        return found

    def put_many(self, items: Sequence[tuple[str, str, ModelResponse]]) -> None:
        """Store ``(key, model name, response)``; responses with an error are skipped."""
        rows = [(k, m, r.to_json(), time.time()) for k, m, r in items if r.error is None]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)", rows)
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class CachedModel:
    """Wraps a model: cached responses are returned, the rest generated and stored."""

    def __init__(self, model: Model, cache: ResponseCache) -> None:
        self.inner = model
        self.cache = cache
        self.name = model.name
        self.config = model.config
        self.cacheable = model.cacheable

    def identity(self) -> Mapping[str, Any]:
        return self.inner.identity()

    def close(self) -> None:
        self.inner.close()

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        config = config or self.config
        if not self.inner.cacheable:
            return self.inner.generate(requests, config)
        identity = self.inner.identity()
        keys = [cache_key(identity, config, r) for r in requests]
        hits = self.cache.get_many(keys)
        # each missing key is generated once, even if it repeats within the batch
        first: dict[str, int] = {}
        for i, key in enumerate(keys):
            if key not in hits and key not in first:
                first[key] = i
        todo = list(first.values())
        report_answers(self, len(keys) - len(todo), cached=True)
        fresh = self.inner.generate([requests[i] for i in todo], config) if todo else []
        self.cache.put_many([(keys[i], self.name, r) for i, r in zip(todo, fresh, strict=True)])
        made = {keys[i]: r for i, r in zip(todo, fresh, strict=True)}
        return [hits[k] if k in hits else made[k] for k in keys]
