"""Loader registry: a format name maps to the module defining it, imported on first use."""

from __future__ import annotations

import importlib

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, LoadOptions

_MODULES = {
    "primekg": "kgcert.loaders.primekg",
    "wikidata5m": "kgcert.loaders.wikidata5m",
    "wikidatasets": "kgcert.loaders.wikidatasets",
    "neo4j-import": "kgcert.loaders.neo4j_import",
    "triples": "kgcert.loaders.triples",
}
_REGISTRY: dict[str, type[Loader]] = {}


def register(cls: type[Loader]) -> type[Loader]:
    _REGISTRY[cls.format] = cls
    return cls


def formats() -> list[str]:
    return sorted(_MODULES)


def get_loader(name: str, options: LoadOptions | None = None) -> Loader:
    if name not in _MODULES:
        raise InputError(f"unknown KG format {name!r}; known formats: {', '.join(formats())}")
    importlib.import_module(_MODULES[name])
    return _REGISTRY[name](options)


__all__ = ["Loader", "LoadOptions", "formats", "get_loader", "register"]
