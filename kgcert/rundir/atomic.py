"""Whole-file writes of a run directory's JSON and YAML files: written then renamed, so a
reader never sees half a file (nor loses the old one when the disk is full)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kgcert.util.atomicfile import replacing
from kgcert.util.output import output_to


def write_text(path: Path, text: str) -> None:
    with output_to(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())


def write_json(path: Path, data: Any, *, allow_nan: bool = True) -> None:
    """`allow_nan=False` refuses NaN and infinities, which are not JSON (certificates)."""
    write_text(path, json.dumps(data, indent=2, sort_keys=True, default=str,
                                allow_nan=allow_nan) + "\n")
