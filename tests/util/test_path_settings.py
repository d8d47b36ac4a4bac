"""Path settings that name the wrong kind of thing (issue 33, cause 6): the data dir, the cache
dir, a run's --out and a spec folder naming a file, a named pipe, a link loop, a place under a
file or one that cannot be created each get one line naming the setting and exit 2, never an
internal error."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_process import kgcert_process

from kgcert.errors import InputError
from kgcert.util.paths import check_folder

WRONG: dict[str, tuple[Callable[[Path], Path], str]] = {
    "file": (lambda root: _file(root / "afile"), "is a file"),
    "under-file": (lambda root: _file(root / "afile") / "sub", "is under a path that is not a "
                   "folder"),
    "fifo": (lambda root: _fifo(root / "pipe"), "is a named pipe"),
    "loop": (lambda root: _loop(root), "is a symbolic link loop"),
}


def _file(path: Path) -> Path:
    path.write_text("keep me\n")
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _loop(root: Path) -> Path:
    (root / "loop-a").symlink_to(root / "loop-b")
    (root / "loop-b").symlink_to(root / "loop-a")
    return root / "loop-a"


def _kgcert(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    data = os.environ.get("KGCERT_DATA_DIR", str(tmp_path / "data"))
    return kgcert_process(*args, env={"KGCERT_DATA_DIR": data, **env}, cwd=tmp_path,
                          drop=("KGCERT_NEO4J_URI",), timeout=120)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr, done.stderr
    return done.stderr.strip()


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_the_data_dir(tmp_path: Path, wrong: str) -> None:
    make, said = WRONG[wrong]
    path = make(tmp_path)
    line = _one_line(_kgcert(tmp_path, "info", KGCERT_DATA_DIR=str(path)))
    assert "KGCERT_DATA_DIR" in line and str(path) in line and said in line
    if wrong == "file":
        assert path.read_text() == "keep me\n"


@pytest.mark.parametrize("wrong", ["file", "under-file", "loop"])
def test_the_cache_dir(tmp_path: Path, wrong: str) -> None:
    make, said = WRONG[wrong]
    path = make(tmp_path)
    line = _one_line(_kgcert(tmp_path, "specs", "list", KGCERT_CACHE_DIR=str(path)))
    assert "KGCERT_CACHE_DIR" in line and said in line


@pytest.mark.parametrize("wrong", ["under-file", "fifo", "loop"])
def test_a_runs_out(tmp_path: Path, wrong: str) -> None:
    make, said = WRONG[wrong]
    path = make(tmp_path)
    line = _one_line(_kgcert(tmp_path, "run", "--kg", "nokg", "--spec",
                             "primekg.dual_indication", "--model", "oracle", "--out", str(path)))
    assert line.startswith(f"error: --out {path}") and said in line


@pytest.mark.parametrize("wrong", ["file", "fifo", "loop"])
def test_a_spec_folder(tmp_path: Path, wrong: str) -> None:
    make, said = WRONG[wrong]
    path = make(tmp_path)
    line = _one_line(_kgcert(tmp_path, "specs", "list", "--specs-dir", str(path)))
    assert line.startswith(f"error: spec folder {path}") and said in line


def test_a_place_that_cannot_be_created(tmp_path: Path) -> None:
    line = _one_line(_kgcert(tmp_path, "info", KGCERT_DATA_DIR="/proc/kgcert-nowhere/data"))
    assert "cannot be created" in line and "KGCERT_DATA_DIR" in line


def test_unreadable_or_unwritable_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """The permission checks (root passes every access check, so the answer is given)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    monkeypatch.setattr(os, "access", lambda path, mode: not mode & os.W_OK)
    with pytest.raises(InputError, match=r"data dir .* is not readable and writable .*"
                                         r"\(.*folder is not\)"):
        check_folder(folder / "data", "data dir")
    assert check_folder(folder, "spec folder", writable=False) == folder
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(InputError, match=r"spec folder .* is not readable by this user"):
        check_folder(folder, "spec folder", writable=False)


def test_a_read_only_disk_is_named(tmpfs) -> None:
    data = tmpfs("64k", read_only=True) / "data"
    with pytest.raises(InputError, match=r"cannot be created: Read-only file system"):
        check_folder(data, "data dir", create=True)
    with pytest.raises(InputError, match=r"is on a read-only file system"):
        check_folder(data.parent, "data dir")
