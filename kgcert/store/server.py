"""The graph servers kgcert can use: both are reached through the neo4j driver over Bolt."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager

from kgcert.errors import InputError, StoreError
from kgcert.store.bulk import BulkWriter
from kgcert.store.driver import neo4j
from kgcert.store.graph import GraphStore
from kgcert.util.paths import not_ascii

_KG_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,62}$")


def check_kg_name(name: str) -> str:
    if not _KG_NAME.match(name):
        raise InputError(
            f"invalid KG name {name!r}: use an ASCII letter, then ASCII letters, digits, '_' "
            f"or '-' (max 63){not_ascii(name)}"
        )
    return name


class GraphServer(ABC):
    """A server holding loaded KGs: one database each, or several in one shared database."""

    name: str
    driver: neo4j.Driver

    @abstractmethod
    def list_kgs(self) -> list[str]:
        """Names of the KGs kgcert loaded (or began to load) on this server."""

    @abstractmethod
    def store(self, kg: str) -> GraphStore:
        """The store of `kg`, whether or not it holds anything yet."""

    @abstractmethod
    def create(self, kg: str) -> GraphStore:
        """Make room for `kg` (its database, or its indexes in the shared one) and return it."""

    @abstractmethod
    def drop(self, kg: str) -> None:
        """Remove everything of `kg`, and nothing that kgcert did not write for it."""

    @abstractmethod
    def bulk_writer(self, store: GraphStore) -> BulkWriter:
        """The fastest writer this server offers for a fresh load."""

    @abstractmethod
    def close(self) -> None: ...

    @contextmanager
    def loading(self, kg: str) -> Iterator[None]:
        """Held while a load writes `kg`, so a second load of it at the same time stops with
        one line. The embedded server's data directory is one process's alone: nothing to
        hold there."""
        yield

    def write_refusal(self, kg: str, cypher: str) -> str | None:
        """Why `cypher` may not run as `kgcert query`'s read-only query on `kg`, where the
        server itself would run a write in a read transaction (the embedded one does). None:
        it only reads, or the server refuses writes in read transactions by itself (Neo4j)."""
        return None

    def damage(self, kg: str) -> str | None:
        """What is wrong with the stored files of `kg`, if the server found them damaged."""
        return None

    def full_disk(self, error: BaseException) -> str | None:
        """The folder whose disk ran full if that is why `error` happened (and can be told)."""
        return None

    def out_of_memory(self, error: BaseException) -> str | None:
        """What to do about it if `error` is the server running out of its memory."""
        return None

    def release_memory(self) -> None:
        """Give back the memory this process holds for reads so far (the server's caches),
        where the server runs inside it; later reads still work. Nothing to give back for
        a server in another process."""
        return None

    def exists(self, kg: str) -> bool:
        return kg in self.list_kgs()

    def open(self, kg: str) -> GraphStore:
        check_kg_name(kg)
        if not self.exists(kg):
            known = ", ".join(self.list_kgs()) or "none yet; run `kgcert load`"
            raise StoreError(f"no KG named {kg!r} on {self.name} (loaded KGs: {known})")
        problem = self.damage(kg)
        if problem:
            raise StoreError(f"KG {kg!r} is damaged: {problem}; load it again with "
                             f"`kgcert load FORMAT FILES --kg {kg} --replace`")
        return self.store(kg)

    def __enter__(self) -> GraphServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
