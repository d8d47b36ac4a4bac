"""A record's `record_version`, checked the same way for samples and certificates."""

from __future__ import annotations

import json
from typing import Any


def version_problem(version: Any, newest: int) -> str | None:
    """What is wrong with `version` for a reader of formats 1..`newest`, else None (absent:
    written before records had versions). A number above `newest` was written by a newer
    kgcert; anything that is no whole number from 1 (`true`, "1", 0) is no version at all."""
    if version is None:
        return None
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return (f"record_version {json.dumps(version)[:40]} is not a version (a whole number "
                "from 1); the file was edited or damaged")
    if version > newest:
        return (f"record_version {version} is newer than the {newest} this kgcert reads: "
                "written by a newer kgcert; upgrade kgcert to read it")
    return None
