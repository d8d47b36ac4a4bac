"""YAML files people write (specs, run files): UTF-8, safe types, and no key given twice.

PyYAML keeps the last of two equal keys without a word, so a spec or run file with `n:` twice
would silently run with whichever came last; this loader refuses it instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kgcert.errors import InputError

_MERGE = "tag:yaml.org,2002:merge"


class _DuplicateKey(yaml.MarkedYAMLError):
    def __init__(self, key: Any, mark: yaml.Mark) -> None:
        super().__init__(problem=f"duplicate key {key!r}", problem_mark=mark)
        self.key = key
        self.line = mark.line + 1


# libyaml's parser when PyYAML was built with it: much faster than the pure-Python one, which
# matters when a command reads every spec file to find one.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """SafeLoader that raises `_DuplicateKey` for a key repeated in one mapping (keys brought
    in by a `<<` merge may still be overridden, as YAML intends)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in seen
            except TypeError:  # an unhashable key: SafeLoader reports it below
                continue
            if repeated:
                raise _DuplicateKey(key, key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path, what: str) -> Any:
    """The parsed file; InputError naming the file (and line) when it is missing, unreadable,
    not UTF-8, not YAML, or repeats a key. `what` names the kind of file, e.g. "spec file"."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} {path} does not exist") from None
    except OSError as error:
        raise InputError(f"cannot read {what} {path}: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise InputError(f"{path}: not valid UTF-8 at line {line} (byte 0x{raw[error.start]:02x}); "
                         f"save the {what} as UTF-8") from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as error:
        raise InputError(f"{path}: key {error.key!r} is given twice (again at line {error.line}); "
                         "keep one") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise InputError(f"{path}: not valid YAML{where}") from None
