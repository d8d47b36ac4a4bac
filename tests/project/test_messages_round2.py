"""Small messages that said the wrong thing (issue 33, cause 10): a name refused for a
non-ASCII letter says ASCII, a symbolic link loop is called a loop rather than "not found",
and a file that grows while it loads is refused instead of leaving a manifest checksum of
content other than what was read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kgcert.errors import InputError
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.manifest import file_digest
from kgcert.loading.pipeline import read_source
from kgcert.specs.pattern_parser import parse_cypher_pattern
from kgcert.store.server import check_kg_name

TRIPLES = "head\trelation\ttail\n" + "".join(f"e{i}\trel\te{i + 1}\n" for i in range(20))


def test_a_non_ascii_variable_is_refused_as_not_ascii() -> None:
    with pytest.raises(InputError) as refused:
        parse_cypher_pattern("(d\u00e9:drug)-[:indication]->(x:disease)")
    message = str(refused.value)
    assert "ASCII letters, digits and _" in message and "'\u00e9' is not ASCII" in message


def test_a_non_ascii_kg_name_is_refused_as_not_ascii() -> None:
    with pytest.raises(InputError, match="ASCII.*'\u00fc' is not ASCII"):
        check_kg_name("gr\u00fcn")


def test_a_symbolic_link_loop_is_called_a_loop(tmp_path: Path) -> None:
    (tmp_path / "a.tsv").symlink_to(tmp_path / "b.tsv")
    (tmp_path / "b.tsv").symlink_to(tmp_path / "a.tsv")
    done = subprocess.run([sys.executable, "-m", "kgcert", "load", "triples",
                           str(tmp_path / "a.tsv"), "--kg", "looped"],
                          env={"KGCERT_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin",
                               "KGCERT_NO_SERVER": "1", **_pythonpath()},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (f"error: file {tmp_path / 'a.tsv'} is a symbolic link loop; "
                                   "name the file itself")


def _pythonpath() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k in ("PYTHONPATH", "HOME")}


def test_rows_appended_while_a_file_loads_are_not_vouched_for(tmp_path: Path) -> None:
    source = tmp_path / "kg.tsv"
    source.write_text(TRIPLES)
    loader = get_loader("triples", LoadOptions())
    read = loader.read

    def read_while_appended(files):  # another process appends as the load reads
        with source.open("a") as more:
            more.write("e100\trel\te101\n")
        return read(files)

    loader.read = read_while_appended  # type: ignore[method-assign]
    try:
        parsed = read_source(loader, [source], "grown")
    except InputError as error:
        assert f"{source} changed while it was loaded" in str(error)
        assert "load it again once it is complete" in str(error)
        return
    # on main: the rows were loaded, the checksum was of the earlier content
    [described] = parsed.manifest.files
    assert described["sha256"] == file_digest(source), "the manifest vouches for other bytes"


def test_a_file_left_alone_loads_with_the_checksum_of_what_was_read(tmp_path: Path) -> None:
    source = tmp_path / "kg.tsv"
    source.write_text(TRIPLES)
    parsed = read_source(get_loader("triples", LoadOptions()), [source], "steady")
    [described] = parsed.manifest.files
    assert described["sha256"] == file_digest(source)
    assert described["bytes"] == len(TRIPLES.encode())
