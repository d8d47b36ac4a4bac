"""Start-up: the CLI lists and parses commands without importing their heavy libraries.

Each check runs the real `python -m kgcert ...` in a fresh interpreter and reads back which
modules were loaded when the command finished (a structural check, not a timing test).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from kgcert.cli import COMMANDS, import_command

HEAVY = ("scipy", "pandas", "torch", "transformers", "matplotlib", "rdflib", "jpype", "neo4j",
         "numpy")
REPO_ROOT = Path(__file__).resolve().parents[2]

# Runs kgcert as `python -m kgcert` does, then writes the loaded module names to argv[1].
WRAPPER = """
import json, runpy, sys
out = sys.argv.pop(1)
sys.argv[0] = "kgcert"
try:
    runpy.run_module("kgcert", run_name="__main__", alter_sys=True)
except SystemExit as done:
    code = done.code
else:
    code = 0
with open(out, "w") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""


def loaded_after(args: list[str], tmp_path: Path) -> set[str]:
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if k != "KGCERT_NEO4J_URI"}
    env |= {"KGCERT_DATA_DIR": str(tmp_path / "data"),
            "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", WRAPPER, str(out), *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert out.exists(), f"kgcert {args} ended before reporting its modules: {done.stderr}"
    report = json.loads(out.read_text())
    assert report["code"] in (0, None), f"kgcert {args} failed: {done.stderr}"
    return set(report["modules"])


def heavy_in(modules: set[str]) -> list[str]:
    return [name for name in HEAVY if name in modules]


def _subcommand_helps() -> list[list[str]]:
    """`<cmd> --help` for every command, and `<group> <sub> --help` for every subcommand."""
    calls = []
    for name in sorted(COMMANDS):
        calls.append([name, "--help"])
        command = import_command(name)
        if isinstance(command, click.Group):
            calls += [[name, sub, "--help"] for sub in sorted(command.commands)]
    return calls


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["formats"], ["specs", "list"]],
                         ids=" ".join)
def test_light_commands_import_no_heavy_library(args: list[str], tmp_path: Path) -> None:
    assert heavy_in(loaded_after(args, tmp_path)) == []


@pytest.mark.parametrize("args", _subcommand_helps(), ids=" ".join)
def test_command_help_imports_no_heavy_library(args: list[str], tmp_path: Path) -> None:
    assert heavy_in(loaded_after(args, tmp_path)) == []


def test_plan_loads_only_the_beta_quantiles(tmp_path: Path) -> None:
    """plan computes Clopper-Pearson limits, so numpy and scipy.special load; scipy.stats and
    the rest do not."""
    modules = loaded_after(["plan", "--half-width", "0.05"], tmp_path)
    assert heavy_in(modules) == ["scipy", "numpy"]
    assert "scipy.special" in modules
    assert "scipy.stats" not in modules


def test_top_help_lists_every_command_without_importing_it(tmp_path: Path) -> None:
    modules = loaded_after(["--help"], tmp_path)
    command_modules = {entry.target.partition(":")[0] for entry in COMMANDS.values()}
    assert command_modules.isdisjoint(modules)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_line_in_the_table_is_the_commands_own(name: str) -> None:
    listed = click.Command(name, help=COMMANDS[name].help).get_short_help_str(limit=500)
    assert listed == import_command(name).get_short_help_str(limit=500)


def test_every_command_a_module_declares_is_registered() -> None:
    registered = {entry.target for entry in COMMANDS.values()}
    modules = {target.partition(":")[0] for target in registered}
    for module_name in modules:
        module = importlib.import_module(module_name)
        for command in module.COMMANDS:
            attribute = next(name for name, value in vars(module).items() if value is command)
            assert f"{module_name}:{attribute}" in registered


def test_prompts_choices_match_the_prompt_builders() -> None:
    from kgcert.cli import prompts
    from kgcert.prompts.distractors import WEIGHTINGS
    from kgcert.prompts.settings import SETTINGS

    assert prompts.SETTINGS == SETTINGS
    assert prompts.WEIGHTINGS == WEIGHTINGS
