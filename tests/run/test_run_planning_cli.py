"""`kgcert plan` plans for what runs: Bonferroni families and the anytime-valid sequence."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from kgcert.cli import cli
from kgcert.stats import bonferroni_confidence, plan_sample_size, plan_sequential_size
from kgcert.stats.sequential import mixture_cs_limits


def _planned(*args: str) -> int:
    result = CliRunner().invoke(cli, ["plan", "--half-width", "0.05", *args])
    assert result.exit_code == 0, result.output
    found = re.search(r"n = (\d+)", result.output)
    assert found, result.output
    return int(found.group(1))


def test_plan_matches_fixed_n_sequence_and_family_sizes():
    assert _planned() == 402
    assert _planned("--simultaneous", "20") == 929
    assert _planned("--sequential") == 1262
    assert _planned("--sequential", "--simultaneous", "20") == 1899


@pytest.mark.parametrize("p", [0.5, 0.9, 0.02])
def test_sequential_plan_is_the_first_n_from_which_the_width_holds(p: float):
    plan = plan_sequential_size(0.05, confidence=0.95, p=p)
    ns = plan.n - 1 + np.arange(0, 3 * plan.n)
    ks = (ns * p + 0.5).astype(int)
    lower, upper = mixture_cs_limits(ks, ns, delta=0.05)
    widths = (upper - lower) / 2
    assert widths[0] > 0.05 and (widths[1:] <= 0.05).all()
    # the sequence costs more samples than a fixed-n interval at the same level
    assert plan.n > plan_sample_size(0.05, confidence=0.95, p=p).n


def test_plan_states_the_family_and_refuses_bad_input_in_one_line():
    result = CliRunner().invoke(cli, ["plan", "--half-width", "0.05", "--simultaneous", "20"])
    said = " ".join(result.output.split())  # the console wraps long lines
    assert f"each of 20 certificates at {bonferroni_confidence(0.95, 20):.6g}" in said
    bad = subprocess.run([sys.executable, "-m", "kgcert", "plan", "--half-width", "0.7"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0
    assert bad.stderr.strip().splitlines() == [
        "error: --half-width must be between 0 and 0.5, got 0.7"]


def test_run_half_width_warns_when_n_cannot_reach_it(capsys):
    from kgcert.cli.run import _warn_unreachable
    from kgcert.rundir.run_file_keys import SequentialConfig
    from kgcert.rundir.run_spec import RunSpec

    def said(n: int) -> str:
        config = RunSpec.of(kg="k", specs=("s",), models=("m",), n=n,
                            sequential=SequentialConfig(half_width=0.05))
        _warn_unreachable(config, 0.95)
        return " ".join(capsys.readouterr().out.split())

    assert "n = 250 cannot reach half-width 0.05" in said(250)
    assert "needs n = 1262" in said(250)
    assert said(1262) == ""


def test_plan_with_a_kg_measures_the_skip_rate_and_gives_the_n_to_draw(
        alzheimer_kg):
    """`plan` counts answered prompts and `run --n` drawn ones: on the Alzheimer extract at
    2,750 characters many dual_indication prompts are skipped, so more must be drawn."""
    from kgcert.cli.common import Context
    from kgcert.cli.plan import plan_command

    result = CliRunner().invoke(plan_command, [
        "--half-width", "0.05", "--kg", alzheimer_kg.name, "--spec", "primekg.dual_indication",
        "--budget", "2750", "--probe", "40"],
        obj=Context(db="embedded", data_dir=str(alzheimer_kg.data_dir)))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "n = 402 answered samples" in said
    found = re.search(r"skipped (\d+) \(.*\): draw n = (\d+) \(run --n \d+\)", said)
    assert found, said
    skipped, draw = int(found.group(1)), int(found.group(2))
    assert skipped > 0 and draw > 402 / (1 - skipped / 40)  # the skip rate's upper bound
