"""Racing at the largest n a run takes (10^8) builds no (n + 1)^2 table (issue 46, item 10):
above TABLE_MAX_N each lookup computes its entries, the same values a table holds, so
`run --until` starts at once; `plan --until`, which steps through every prompt of each
simulated run, refuses such an n in one line."""

from __future__ import annotations

import numpy as np
from click.testing import CliRunner

from kgcert.cli.common import Context
from kgcert.cli.plan import plan_command
from kgcert.errors import InputError
from kgcert.stats.discordant import (
    TABLE_MAX_N,
    DiscordantTable,
    mixture_limit_table,
    mixture_limits,
)
from kgcert.stats.race_sim import simulate_race
from kgcert.stats.racing import StopRule

BIG = 10**8


def test_lookups_above_the_table_size_give_the_tables_values() -> None:
    table = DiscordantTable(TABLE_MAX_N)
    computed = DiscordantTable(TABLE_MAX_N + 1)
    assert table.log_up is not None and computed.log_up is None
    rng = np.random.default_rng(46)
    wins, losses = rng.integers(0, TABLE_MAX_N, 500), rng.integers(0, TABLE_MAX_N, 500)
    np.testing.assert_allclose(computed.up(wins, losses), table.up(wins, losses), rtol=1e-12)
    np.testing.assert_allclose(computed.down(wins, losses), table.down(wins, losses),
                               rtol=1e-12)
    trials = rng.integers(0, 300, 200)
    successes = (trials * rng.random(200)).astype(np.int64)
    lower, upper = mixture_limit_table(300, 0.01)
    lo, hi = mixture_limits(BIG, 0.01, successes, trials)
    np.testing.assert_allclose(lo, lower[successes, trials], atol=1e-12)
    np.testing.assert_allclose(hi, upper[successes, trials], atol=1e-12)


def test_a_race_at_n_1e8_runs_without_a_table() -> None:
    rule = StopRule(n=BIG, until="best", confidence=0.95, threshold=0.7)
    summary, races = simulate_race([0.5, 0.95], rule, replicates=20, seed=1)
    assert summary.decided_pairs == 1.0 and summary.mean_drawn < 1_000
    assert races[0]._table is not None and races[0]._table.log_up is None


def test_plan_until_refuses_an_n_it_cannot_simulate_in_one_line() -> None:
    result = CliRunner().invoke(plan_command, ["--until", "best", "--accuracies", "0.7,0.7",
                                               "--n", str(BIG)],
                                obj=Context(db="embedded", data_dir=None))
    assert isinstance(result.exception, InputError)
    assert "100,000,000 is more than it simulates" in str(result.exception)


def test_run_until_at_n_1e8_starts_and_decides(cli_kg, tmp_path) -> None:
    """The whole command: built no (n + 1)^2 table (71 PiB) and stopped once decided."""
    import json
    import subprocess
    import sys

    from cli_kg_fixture import CLI_KG, cli_env

    done = subprocess.run(
        [sys.executable, "-m", "kgcert", "run", "--kg", CLI_KG, "--spec",
         "primekg.dual_indication", "--model", "bernoulli:0.5", "--model", "bernoulli:0.95",
         "--until", "best", "--n", str(BIG), "--seed", "3", "--out", str(tmp_path / "run")],
        env=cli_env(cli_kg), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "bernoulli:0.95 is more accurate than bernoulli:0.5" in done.stdout
    bodies = [json.loads(p.read_text()) for p in (tmp_path / "run" / "certificates").glob(
        "*.json")]
    assert len(bodies) == 2 and all(body["n"] < 1_000 for body in bodies)
