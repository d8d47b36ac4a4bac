"""A suite's name becomes a folder name in its run: only plain names are taken, and no name
leads a sample or certificate file out of its folder (issue 46, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgcert.errors import InputError
from kgcert.run.suite import load_suite_file, suite_of
from kgcert.rundir.layout import RunLayout, slug

EXPOSURE, DUAL = "primekg.exposure_drug", "primekg.dual_indication"
NOT_PLAIN = ["..", ".", "../escape", "a/b", "/tmp/x", "a..b", ".hidden", "x.", "a b", ""]


@pytest.mark.parametrize("name", NOT_PLAIN)
def test_a_suite_name_that_is_not_plain_is_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a plain name|needs a name|at least 1 character"):
        suite_of(name, (EXPOSURE, DUAL), None, [])
    path = tmp_path / "suite.yaml"
    path.write_text(f"kind: suite\nname: {name!r}\nspecs: [{EXPOSURE}, {DUAL}]\n")
    with pytest.raises(InputError, match="not a plain name|needs a name|at least 1 character"):
        load_suite_file(path)


@pytest.mark.parametrize("name", ["mine", "primekg.table1", "my-suite_2", "A.b-c.d"])
def test_plain_names_are_taken(name: str) -> None:
    assert suite_of(name, (EXPOSURE, DUAL), None, []).name == name


@pytest.mark.parametrize("name", ["..", ".", "...", "suite:..", "a/../b"])
def test_no_name_leads_a_sample_file_out_of_samples(name: str, tmp_path: Path) -> None:
    layout = RunLayout(tmp_path)
    for path in (layout.sample_file(name, "vanilla", "m"),
                 layout.sample_file("s", name, "m"), layout.sample_file("s", "vanilla", name),
                 layout.certificate_file(name, "vanilla", "m")):
        assert path.resolve().is_relative_to((tmp_path).resolve())
        assert ".." not in path.relative_to(tmp_path).parts
    assert layout.sample_file(name, "vanilla", "m").resolve().is_relative_to(
        layout.samples_dir.resolve())
    assert slug(name) not in (".", "..")
