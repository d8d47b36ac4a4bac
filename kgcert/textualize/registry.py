"""Textualizers by name.

Adding a format is one module in this package with a :class:`Textualizer` subclass and one
line in :data:`TEXTUALIZERS` (imported on first use), or, for a format defined elsewhere, the
class decorated with :func:`register`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from kgcert.plugins.registry import Registry
from kgcert.textualize.base import Textualizer

T = TypeVar("T", bound=type[Textualizer])


def _checked(name: str, cls: Any) -> Textualizer:
    """An instance of ``cls``, which must be a textualizer called ``name`` with a one-line
    description (prompts show it before the text)."""
    if not (isinstance(cls, type) and issubclass(cls, Textualizer)):
        raise ValueError(f"textualizer {name!r} must name a Textualizer subclass")
    own = getattr(cls, "name", "")
    description = getattr(cls, "description", "")
    if not own or own != own.strip().lower() or own != name:
        raise ValueError(f"textualizer {cls.__qualname__} needs the lower-case name {name!r}")
    if not description.strip() or "\n" in description or "\r" in description:
        raise ValueError(f"textualizer {name!r} needs a one-line description")
    return cls()


TEXTUALIZERS = Registry[Textualizer]("textualization", "valid ones",
                                     fold=lambda name: name.strip().lower(), make=_checked)
TEXTUALIZERS.add("list", "kgcert.textualize.edge_list:EdgeList")
TEXTUALIZERS.add("json", "kgcert.textualize.structured_json:StructuredJson")
TEXTUALIZERS.add("yaml", "kgcert.textualize.structured_yaml:StructuredYaml")
TEXTUALIZERS.add("turtle", "kgcert.textualize.rdf_turtle:RdfTurtle")
TEXTUALIZERS.add("jsonld", "kgcert.textualize.json_ld:JsonLd")


def register(cls: T) -> T:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name:
        raise ValueError(f"textualizer {cls.__qualname__} needs a lower-case name")
    TEXTUALIZERS.put(name, _checked(name, cls))
    return cls


def names() -> list[str]:
    """The registered format names, sorted."""
    return TEXTUALIZERS.names()


def get_textualizer(name: str) -> Textualizer:
    """The textualizer called ``name`` (case and surrounding spaces ignored)."""
    return TEXTUALIZERS.load(name)
