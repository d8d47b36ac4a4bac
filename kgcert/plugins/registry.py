"""One registry for everything kgcert finds by name, imported only when used.

An entry names its target as ``"module:attribute"``; the module is imported the first time the
entry is loaded, so listing names (``kgcert --help``, ``kgcert formats``, an error message)
imports nothing. An unknown name is a one-line error that lists the known ones and suggests the
closest (``did you mean 'primekg'?``). Optional dependencies are checked before the import, so
a missing package is one line naming what to install.

    LOADERS = Registry[type[Loader]]("KG format", "known formats")
    LOADERS.add("primekg", "kgcert.loaders.primekg:PrimeKGLoader")
    LOADERS.load("primekg")          # imports kgcert.loaders.primekg now
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, NamedTuple, TypeVar, cast

from kgcert.errors import InputError, MissingDependencyError

T = TypeVar("T")


class Entry(NamedTuple):
    """Where a name's object lives, and what it needs."""

    target: str  # "module:attribute"
    help: str = ""  # one line, shown in listings without importing the target
    requires: tuple[str, ...] = ()  # optional modules the target imports
    install: str = ""  # how to get them


def _module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # a submodule of a missing package raises
        return False


class Registry(Mapping[str, Entry], Generic[T]):
    """Names of one kind (``kind``: "KG format") mapped to lazily imported objects.

    ``fold`` turns a name as typed into its registered form (case, spaces); ``aliases`` maps
    other accepted spellings to registered names; ``make`` turns the imported attribute into
    the object :meth:`load` returns (a class into its instance, checked), once per name.
    """

    def __init__(self, kind: str, listing: str, *,
                 fold: Callable[[str], str] = lambda name: name,
                 aliases: Mapping[str, str] | None = None,
                 make: Callable[[str, Any], T] | None = None) -> None:
        self.kind = kind
        self.listing = listing
        self.fold = fold
        self.aliases = dict(aliases or {})
        self.make = make
        self._entries: dict[str, Entry] = {}
        self._loaded: dict[str, T] = {}

    # -- the table ---------------------------------------------------------------------------

    def add(self, name: str, target: str, help: str = "", *, requires: tuple[str, ...] = (),
            install: str = "") -> None:
        module, sep, attribute = target.partition(":")
        if not (module and sep and attribute):
            raise ValueError(f"{self.kind} {name!r}: target {target!r} is not 'module:attribute'")
        if name in self._entries and self._entries[name].target != target:
            raise ValueError(f"{self.kind} name {name!r} is taken by "
                             f"{self._entries[name].target}")
        self._entries[name] = Entry(target, help, requires, install)

    def put(self, name: str, value: T, help: str = "") -> None:
        """Register an object already in memory (a class decorator's way in)."""
        self.add(name, f"{getattr(value, '__module__', '?')}:"
                       f"{getattr(value, '__qualname__', type(value).__qualname__)}", help)
        self._loaded[name] = value

    def copy(self) -> Registry[T]:
        twin = Registry[T](self.kind, self.listing, fold=self.fold, aliases=self.aliases,
                           make=self.make)
        twin._entries = dict(self._entries)
        twin._loaded = dict(self._loaded)
        return twin

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        return sorted(self._entries)

    # -- lookups -----------------------------------------------------------------------------

    def key(self, name: str, context: str = "") -> str:
        """The registered name ``name`` stands for; an unknown one is a one-line error
        (``context`` follows the name in it, e.g. " in 'mistral:large'")."""
        folded = self.fold(name)
        folded = self.aliases.get(name, self.aliases.get(folded, folded))
        if folded not in self._entries:
            raise self.unknown(name, context)
        return folded

    def unknown(self, name: str, context: str = "") -> InputError:
        candidates = [*self._entries, *self.aliases]
        close = difflib.get_close_matches(self.fold(name), candidates, n=1)
        hint = f"did you mean {self.aliases.get(close[0], close[0])!r}? " if close else ""
        return InputError(f"unknown {self.kind} {name!r}{context}; {hint}{self.listing}: "
                          + ", ".join(self.names()))

    def check_requires(self, key: str) -> None:
        entry = self._entries[key]
        missing = [m for m in entry.requires if not _module_available(m)]
        if missing:
            raise MissingDependencyError(
                f"{self.kind} {key!r} needs {', '.join(missing)}, which is not installed; "
                f"install it with: {entry.install}")

    def load(self, name: str) -> T:
        """The object registered as ``name``, importing its module now if need be."""
        loaded = self._loaded.get(name)
        if loaded is not None:
            return loaded
        key = self.key(name)
        if key not in self._loaded:
            self.check_requires(key)
            module, _, attribute = self._entries[key].target.partition(":")
            value: Any = importlib.import_module(module)
            for part in attribute.split("."):
                value = getattr(value, part)
            self._loaded[key] = self.make(key, value) if self.make else cast(T, value)
        return self._loaded[key]
