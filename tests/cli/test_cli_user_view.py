"""The terminal as a user reads it (issue 32 items 7 and 9): names never cut in tables, `specs
list --json`, one bad spec file reported without hiding the others, a broken spec named by
name shows its real error, `run --help` describes every option, readable run folder names.
No graph server: the commands here read spec files and run folders only."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.table import Table

from kgcert.cli.common import Context
from kgcert.cli.console import PipeFriendlyConsole, keep_names, print_table
from kgcert.cli.run import run_command
from kgcert.cli.run_folder import default_run_dir
from kgcert.cli.specs import specs_group
from kgcert.rundir.run_spec import RunSpec

LONG = "wikidata5m.a_spec_name_long_enough_to_be_cut_at_sixty_columns"
GOOD = """\
kind: relation
name: mine.pair
description: Uniform over drug pairs. A description long enough to be wrapped in a table.
pattern: "(a:drug)-[:indication]->(b:disease)"
answer: b
templates: ['{a}?', '{a}??', '{a}???', '{a}????', '{a}?????']
"""


@pytest.mark.parametrize("width", [60, 100, 120])
def test_names_are_never_cut_and_other_columns_wrap(width: int, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    out = io.StringIO()
    console = PipeFriendlyConsole(file=out)
    table = Table()
    for column in ("spec", "model", "description", "k / n"):
        table.add_column(column)
    table.add_row(LONG, "primekg-bernoulli:0.7", "words " * 30, "12 / 40")
    print_table(console, keep_names(table, "spec", "model"))
    text = out.getvalue()
    assert LONG in text and "primekg-bernoulli:0.7" in text and "…" not in text
    assert "12 / 40" in text  # the last column is whole too
    lines = text.splitlines()
    assert len({len(line) for line in lines}) == 1  # a complete box: no row cut short
    if width >= 120:
        assert max(map(len, lines)) <= width  # fits where it can, description wrapped


def test_specs_list_json_and_a_bad_file_among_good_ones(tmp_path: Path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "good.yaml").write_text(GOOD)
    (folder / "broken.yaml").write_text(GOOD.replace("mine.pair", "mine.broken")
                                        .replace("answer: b", "answer: z"))
    runner = CliRunner()
    listed = runner.invoke(specs_group, ["list", "--specs-dir", str(folder), "--json"],
                           obj=Context(db=None, data_dir=str(tmp_path / "data")))
    assert listed.exit_code == 0, listed.output
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    names = {row["name"] for row in rows}
    assert "mine.pair" in names and "primekg.dual_indication" in names  # the others still work
    assert "mine.broken" not in names
    assert str(folder / "broken.yaml") in listed.stderr  # the bad file is reported
    shipped = next(row for row in rows if row["name"] == "primekg.dual_indication")
    assert shipped["kg"] == "primekg" and shipped["kind"] == "relation"
    checked = runner.invoke(specs_group, ["validate", "mine.broken", "--specs-dir",
                                          str(folder)], obj=Context(db=None, data_dir=None))
    assert checked.exit_code == 2
    assert "no spec named" not in checked.output and "answer" in checked.output


def test_run_help_describes_every_option():
    text = CliRunner().invoke(run_command, ["--help"]).output
    for param in run_command.params:
        if param.param_type_name == "option":
            assert param.help, f"{param.opts} has no help text"  # type: ignore[attr-defined]
    assert re.search(r"--format TEXT\s+Textualization.*\(repeatable", text, re.S)


def test_default_run_folders_are_readable_and_found_again(tmp_path: Path):
    config = RunSpec.of(kg="primekg", specs=("primekg.dual_indication", "primekg.off_label"),
                        models=("bernoulli:0.7",), n=5)
    first = default_run_dir(config, tmp_path)
    assert re.fullmatch(r"primekg-dual_indication\+1-\d{8}-[0-9a-f]{8}", first.name)
    assert first.name.endswith(config.fingerprint()[:8])
    # the same run another day: its folder is found by the hash, whatever the date says
    older = tmp_path / f"primekg-dual_indication+1-20200101-{config.fingerprint()[:8]}"
    older.mkdir()
    (older / "run.yaml").write_text(json.dumps(config.settings()))
    assert default_run_dir(config, tmp_path) == older
