"""Path settings (data dir, cache dir, a run's --out, spec folders) checked before use: one
that names a file or another non-folder, lies under a file, or cannot be created, read or
written is refused in one line naming the setting, never an internal error."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kgcert.errors import InputError


def kind_of(path: Path) -> str:
    """What a non-folder path is, in words."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return "missing"
    if stat.S_ISLNK(mode):
        try:
            path.stat()
        except OSError as error:
            return "a symbolic link loop" if error.errno == 40 else "a broken symbolic link"
        mode = path.stat().st_mode
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a folder"


def _first_existing(path: Path) -> Path:
    """`path` or its nearest ancestor that exists (a dangling link counts as existing)."""
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(path.anchor or ".")


def check_folder(path: Path, setting: str, *, create: bool = False, writable: bool = True,
                 fix: str = "name a folder") -> Path:
    """`path` as a folder `setting` can use, made when `create`; else an InputError naming
    the setting, the path and what is wrong with it."""
    existing = _first_existing(path)
    if not existing.is_dir():
        where = "" if existing == path else f" ({existing} is {kind_of(existing)})"
        what = kind_of(existing) if existing == path else "under a path that is not a folder"
        raise InputError(f"{setting} {path} is {what}{where}; {fix}")
    if create and not path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            raise InputError(f"{setting} {path} cannot be created: "
                             f"{error.strerror or error}") from None
    target = path if path.is_dir() else existing
    needed = os.R_OK | os.X_OK | (os.W_OK if writable else 0)
    if not os.access(target, needed):
        inside = f" ({target} is not)" if target != path else ""
        if writable and _read_only_disk(target):
            raise InputError(f"{setting} {path} is on a read-only file system")
        what = "readable and writable" if writable else "readable"
        raise InputError(f"{setting} {path} is not {what} by this user{inside}")
    return path


def _read_only_disk(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def not_ascii(text: str) -> str:
    """`` ('é' is not ASCII)`` for the first non-ASCII character of `text`, else ``""``: a
    name refused for a letter that looks like one is told why."""
    odd = next((char for char in text if not char.isascii()), None)
    return f" ({odd!r} is not ASCII)" if odd is not None else ""


def missing_file(path: Path, what: str = "file") -> InputError:
    """The error for an input path that cannot be opened: not found, or a symbolic link
    loop or a broken link (which `Path.exists` also calls missing)."""
    if os.path.lexists(path):
        return InputError(f"{what} {path} is {kind_of(path)}; name the file itself")
    return InputError(f"{what} not found: {path}")
