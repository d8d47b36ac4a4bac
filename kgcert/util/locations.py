"""Where kgcert keeps its data, and which graph server it talks to."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir

DATA_DIR_ENV = "KGCERT_DATA_DIR"
NEO4J_URI_ENV = "KGCERT_NEO4J_URI"
NEO4J_USER_ENV = "KGCERT_NEO4J_USER"
NEO4J_PASSWORD_ENV = "KGCERT_NEO4J_PASSWORD"
NEO4J_DATABASE_ENV = "KGCERT_NEO4J_DATABASE"
NEO4J_DEFAULT_DATABASE = "neo4j"  # Community's only user database
EMBEDDED = "embedded"
CACHE_DIR_ENV = "KGCERT_CACHE_DIR"
NO_SERVER_ENV = "KGCERT_NO_SERVER"  # 1: the embedded server runs in-process, no warm server


def data_dir(override: str | Path | None = None) -> Path:
    """The kgcert data directory: flag, then $KGCERT_DATA_DIR, then the XDG user data dir."""
    from kgcert.util.paths import check_folder

    chosen = override or os.environ.get(DATA_DIR_ENV) or user_data_dir("kgcert", appauthor=False)
    path = Path(chosen).expanduser().absolute()
    # made private: its KGs and caches are the owner's alone
    return check_folder(path, f"the data dir (--data-dir or {DATA_DIR_ENV})",
                        create=True).resolve()


def cache_dir() -> Path:
    """kgcert's cache (model responses, parsed spec patterns): $KGCERT_CACHE_DIR, else the
    XDG user cache dir. Not created here."""
    from kgcert.util.paths import check_folder

    chosen = os.environ.get(CACHE_DIR_ENV) or user_cache_dir("kgcert", appauthor=False)
    path = Path(chosen).expanduser().absolute()
    return check_folder(path, f"the cache dir ({CACHE_DIR_ENV})").resolve()


@dataclass(frozen=True)
class StoreTarget:
    """Which server to use: the embedded default, or a Neo4j URI with credentials from the env."""

    uri: str = EMBEDDED
    data_dir: Path | None = None
    warm: bool = False  # embedded: reach it through the warm background server


    @property
    def is_embedded(self) -> bool:
        return self.uri == EMBEDDED

    @classmethod
    def resolve(cls, db: str | None, data: str | Path | None = None, *,
                no_server: bool = False) -> StoreTarget:
        uri = db or os.environ.get(NEO4J_URI_ENV) or EMBEDDED
        return cls(uri=uri, data_dir=data_dir(data),
                   warm=not (no_server or no_server_from_env()))


def no_server_from_env() -> bool:
    return os.environ.get(NO_SERVER_ENV, "").strip().lower() not in ("", "0", "false", "no")
