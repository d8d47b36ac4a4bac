"""`kgcert plan --until`: expected calls of a comparison that stops, from the real stopping
code (a small simulation here)."""

from __future__ import annotations

import re

from click.testing import CliRunner

from kgcert.cli.common import Context
from kgcert.cli.plan import plan_command
from kgcert.errors import InputError


def _plan(*args: str) -> tuple[int, str]:
    """(exit code, output or the one-line error the CLI prints)."""
    result = CliRunner().invoke(plan_command, list(args),
                                obj=Context(db="embedded", data_dir=None))
    if isinstance(result.exception, InputError):
        return 2, str(result.exception)
    return result.exit_code, " ".join(result.output.split())


def test_plan_until_ranked_gives_expected_calls_below_fixed_n() -> None:
    code, said = _plan("--until", "ranked", "--accuracies", "0.97,0.6,0.2", "--runs", "200")
    assert code == 0, said
    found = re.search(r"expected (\d+) model calls .* against (\d+) with n = 250 fixed", said)
    assert found, said
    expected, fixed = int(found.group(1)), int(found.group(2))
    assert fixed == 750 and expected < fixed / 3  # well separated: decided early
    assert "3.00 of 3 pairs decided" in said


def test_plan_until_needs_accuracies_and_accuracies_need_until() -> None:
    code, said = _plan("--until", "best")
    assert code == 2 and "--until needs --accuracies" in said
    code, said = _plan("--accuracies", "0.9,0.8")
    assert code == 2 and "goes with --until" in said
    code, said = _plan("--until", "ranked", "--accuracies", "0.9,x")
    assert code == 2 and "must be numbers" in said
    code, said = _plan()
    assert code == 2 and "needs --half-width" in said
