"""The `kgcert run` commands whose run.yaml the RunSpec tests pin to main 5e25278's bytes
(kept apart so the same commands can be run on another checkout to pin them again)."""

from __future__ import annotations

from pathlib import Path

from alzheimer_kg_fixture import ALZHEIMER_KG
from run_cli import kgcert

SPEC = "primekg.exposure_drug"
BASE = ("--kg", ALZHEIMER_KG, "--spec", SPEC, "--setting", "vanilla", "--few-shot", "1")


def run_yaml_of_commands(data: Path, root: Path) -> dict[str, bytes]:
    """run.yaml after each command: a fresh run, its resume with a model added, a race that
    may be extended, and a run from a run.yaml passed back with --config."""
    commands = {
        "fresh": ("fresh", (*BASE, "--model", "bernoulli:0.7", "--n", "4", "--seed", "3",
                            "--price", "bernoulli:0.7=1/2")),
        "added_model": ("fresh", (*BASE, "--model", "bernoulli:0.4", "--n", "4", "--seed",
                                  "3")),
        "race": ("race", (*BASE, "--model", "bernoulli:0.7", "--model", "bernoulli:0.4",
                          "--n", "6", "--seed", "5", "--until", "ranked", "--margin", "0.2",
                          "--extendable", "--baseline", "2", "--confidence", "0.9")),
        "from_run_file": ("again", ("--config", str(root / "race" / "run.yaml"))),
    }
    found = {}
    for name, (folder, args) in commands.items():
        result = kgcert(data, "run", *args, "--out", str(root / folder))
        assert result.exit_code == 0, (name, result.output, repr(result.exception))
        found[name] = (root / folder / "run.yaml").read_bytes()
    return found
