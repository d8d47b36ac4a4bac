"""Textualizers by name.

Adding a format is one module in this package: define a :class:`Textualizer` subclass and
decorate it with :func:`register`. The package's modules are imported on the first lookup, so
nothing else needs to list the new format.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TypeVar

from kgcert.errors import InputError
from kgcert.textualize.base import Textualizer

T = TypeVar("T", bound=type[Textualizer])

_REGISTRY: dict[str, Textualizer] = {}
_discovered = False


def register(cls: T) -> T:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    name = getattr(cls, "name", "")
    description = getattr(cls, "description", "")
    if not name or name != name.strip().lower():
        raise ValueError(f"textualizer {cls.__qualname__} needs a lower-case name")
    if not description.strip() or "\n" in description or "\r" in description:
        raise ValueError(f"textualizer {name!r} needs a one-line description")
    existing = _REGISTRY.get(name)
    if existing is not None and type(existing).__qualname__ != cls.__qualname__:
        raise ValueError(f"textualizer name {name!r} is taken by {type(existing).__qualname__}")
    _REGISTRY[name] = cls()
    return cls


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    package = importlib.import_module("kgcert.textualize")
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"kgcert.textualize.{module.name}")
    _discovered = True


def names() -> list[str]:
    """The registered format names, sorted."""
    _discover()
    return sorted(_REGISTRY)


def get_textualizer(name: str) -> Textualizer:
    """The textualizer called ``name`` (case and surrounding spaces ignored)."""
    _discover()
    key = name.strip().lower()
    if key not in _REGISTRY:
        raise InputError(f"unknown textualization {name!r}; valid ones: {', '.join(names())}")
    return _REGISTRY[key]
