"""Typed parts of a record read from JSON that write back exactly what they were read from.

A `Part` is a frozen dataclass whose fields are the keys of one JSON object. Reading keeps
what the JSON held as it was (no number is coerced: a `1` stays `1`, never `1.0`), notes the
fields the object did not hold (`absent`, so an older file stays without them), and keeps the
keys the type does not model (`unmodelled`, e.g. context fields of older or newer run files). So
`Part.from_dict(d).to_dict() == d` for every object read, and a reader asks attributes.

A field holding another part names it in its metadata: `part(Bound)` for one object,
`parts(Component)` for a list of them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, TypeVar

P = TypeVar("P", bound="Part")
_OWN = ("absent", "unmodelled", "order")


def part(kind: type[Part]) -> Any:
    """A field holding one `kind` (or null)."""
    return dataclasses.field(default=None, metadata={"part": kind})


def parts(kind: type[Part]) -> Any:
    """A field holding a list of `kind` (or null)."""
    return dataclasses.field(default=None, metadata={"parts": kind})


def key(name: str, default: Any = None) -> Any:
    """A field whose JSON key is no Python name (e.g. `arcadedb-embedded`)."""
    return dataclasses.field(default=default, metadata={"key": name})


class PartTypeError(ValueError):
    """A field that should hold an object (or a list of them) holds something else."""

    def __init__(self, where: str, value: Any, expected: str) -> None:
        super().__init__(f"field {where} is {json.dumps(value, default=str)[:40]}, "
                         f"expected {expected}")


def _frozen(value: Any) -> Any:
    """Lists as tuples (a frozen record holds no list to append to)."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    return value


def _thawed(value: Any) -> Any:
    if isinstance(value, Part):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_thawed(item) for item in value]
    if isinstance(value, Mapping):
        return {name: _thawed(item) for name, item in value.items()}
    return value


@dataclasses.dataclass(frozen=True)
class Part:
    absent: frozenset[str] = dataclasses.field(default=frozenset(), kw_only=True, repr=False)
    # keys this kgcert does not model (a newer or older file's), kept to be written back
    unmodelled: Mapping[str, Any] = dataclasses.field(default_factory=dict, kw_only=True,
                                                      repr=False)
    # the keys in the order the object held them, so it is written back in that order
    order: tuple[str, ...] = dataclasses.field(default=(), kw_only=True, repr=False,
                                               compare=False)

    @classmethod
    def _fields(cls) -> list[dataclasses.Field[Any]]:
        return [f for f in dataclasses.fields(cls) if f.name not in _OWN]

    @classmethod
    def from_dict(cls: type[P], data: Mapping[str, Any], where: str = "") -> P:
        """The part `data` holds; PartTypeError naming the field where a nested object is
        not one."""
        values: dict[str, Any] = {}
        absent = set()
        known = set()
        for f in cls._fields():
            name = f.metadata.get("key", f.name)
            known.add(name)
            if name not in data:
                absent.add(f.name)
                continue
            value = data[name]
            inner = f"{where}{name}"
            if "part" in f.metadata and value is not None:
                if not isinstance(value, Mapping):
                    raise PartTypeError(inner, value, "a mapping")
                value = f.metadata["part"].from_dict(value, inner + ".")
            elif "parts" in f.metadata and value is not None:
                if not isinstance(value, list) or not all(isinstance(v, Mapping)
                                                          for v in value):
                    raise PartTypeError(inner, value, "a list of mappings")
                value = tuple(f.metadata["parts"].from_dict(v, inner + ".") for v in value)
            else:
                value = _frozen(value)
            values[f.name] = value
        unmodelled = {name: value for name, value in data.items() if name not in known}
        return cls(**values, absent=frozenset(absent), unmodelled=unmodelled,
                   order=tuple(data))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object again, its keys in the order it was read with (a field set since
        comes after them)."""
        out: dict[str, Any] = {}
        for f in self._fields():
            if f.name not in self.absent:
                out[f.metadata.get("key", f.name)] = _thawed(getattr(self, f.name))
        out.update({name: _thawed(value) for name, value in self.unmodelled.items()})
        first = [name for name in self.order if name in out]
        return {name: out[name] for name in (*first, *(n for n in out if n not in first))}
