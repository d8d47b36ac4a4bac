"""Loader registry: a format name maps to the class reading it, imported on first use.

Adding a format is one module with a :class:`Loader` subclass and one line in :data:`LOADERS`.
"""

from __future__ import annotations

from typing import Any

from kgcert.loaders.base import Loader, LoadOptions
from kgcert.plugins.registry import Registry


def _checked(name: str, cls: Any) -> type[Loader]:
    if not (isinstance(cls, type) and issubclass(cls, Loader)) or cls.format != name:
        raise ValueError(f"KG format {name!r} must name a Loader whose format is {name!r}")
    return cls


LOADERS = Registry[type[Loader]]("KG format", "known formats", make=_checked)
LOADERS.add("primekg", "kgcert.loaders.primekg:PrimeKGLoader")
LOADERS.add("wikidata5m", "kgcert.loaders.wikidata5m:Wikidata5mLoader")
LOADERS.add("wikidatasets", "kgcert.loaders.wikidatasets:WikiDataSetsLoader")
LOADERS.add("neo4j-import", "kgcert.loaders.neo4j_import:Neo4jImportLoader")
LOADERS.add("triples", "kgcert.loaders.triples:TriplesLoader")


def formats() -> list[str]:
    return LOADERS.names()


def get_loader(name: str, options: LoadOptions | None = None) -> Loader:
    return LOADERS.load(name)(options)


__all__ = ["LOADERS", "Loader", "LoadOptions", "formats", "get_loader"]
