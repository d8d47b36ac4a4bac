"""certificate_history.json: every n each certificate of a run was written at (a certificate
rewritten at another n is a later look, which its validity must count)."""

from __future__ import annotations

import json

from kgcert.errors import InputError
from kgcert.rundir.atomic import write_json
from kgcert.rundir.layout import RunLayout


def read_history(layout: RunLayout) -> dict[str, list[int]]:
    path = layout.history_file
    if not path.exists():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise InputError(f"{path} is not valid JSON; the file was edited or damaged") from None
    if not isinstance(loaded, dict):
        raise InputError(f"{path} must map certificate files to lists of n")
    return {str(name): [int(n) for n in ns] for name, ns in loaded.items()}


def write_history(layout: RunLayout, history: dict[str, list[int]]) -> None:
    write_json(layout.history_file, history)
