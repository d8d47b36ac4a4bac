"""Package attributes imported on first use (PEP 562), so importing a package stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(namespace: dict[str, Any], module_of: Mapping[str, str]
                    ) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `name` from `module_of[name]` on first access and
    keeps it in `namespace` (the module's globals), so later lookups skip it."""

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of[name]), name)
        namespace[name] = value
        return value

    return __getattr__
