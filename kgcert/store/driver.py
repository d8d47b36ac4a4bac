"""The official neo4j driver, imported without its optional pandas and pyarrow support.

Importing `neo4j` imports pandas and pyarrow when they are installed (neo4j/_optional_deps.py),
only to offer `Result.to_df` and to accept pandas values as query parameters. kgcert uses
neither, and pandas alone costs 1-3 s at every command's start. Every kgcert module imports
the driver from here, so the driver never has pandas support, whatever was imported first.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING

_SKIPPED = ("pandas", "pyarrow")


def _import_driver() -> ModuleType:
    if "neo4j" in sys.modules:  # someone imported it directly (a test library): keep theirs
        return sys.modules["neo4j"]
    saved = {name: sys.modules.get(name) for name in _SKIPPED}
    for name in _SKIPPED:
        sys.modules[name] = None  # type: ignore[assignment]  # `import pandas` now raises ImportError
    try:
        import neo4j
    finally:
        for name, module in saved.items():
            if module is None:
                del sys.modules[name]
            else:
                sys.modules[name] = module
    return neo4j


if TYPE_CHECKING:
    import neo4j
    from neo4j.exceptions import AuthError, ClientError, Neo4jError, ServiceUnavailable
else:
    neo4j = _import_driver()
    AuthError = neo4j.exceptions.AuthError
    ClientError = neo4j.exceptions.ClientError
    Neo4jError = neo4j.exceptions.Neo4jError
    ServiceUnavailable = neo4j.exceptions.ServiceUnavailable

__all__ = ["AuthError", "ClientError", "Neo4jError", "ServiceUnavailable", "neo4j"]
