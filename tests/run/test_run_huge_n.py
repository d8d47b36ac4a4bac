"""`--n` typos (issue 33, cause 3): an n above the cap is refused in one line before anything
starts; a huge n below it starts at once, with its first progress line, in little memory,
because indices are made as they are asked, not all up front."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_kg_fixture import CLI_KG, cli_env

from kgcert.errors import InputError
from kgcert.run.runner import _batches
from kgcert.rundir.run_file_keys import MAX_SAMPLES, load_run_file_keys


def _command(n: int, out: Path) -> list[str]:
    return [sys.executable, "-m", "kgcert", "run", "--kg", CLI_KG, "--spec",
            "primekg.dual_indication", "--model", "bernoulli:0.7", "--n", str(n),
            "--batch-size", "4", "--out", str(out)]


def test_batches_are_drawn_lazily() -> None:
    drawn: list[int] = []

    def indices():
        for i in range(10**12):  # never materialised
            drawn.append(i)
            yield i

    batches = _batches(indices(), 3)
    assert next(batches) == [0, 1, 2] and next(batches) == [3, 4, 5]
    assert len(drawn) == 6


@pytest.mark.parametrize("field", ["n", "baseline"])
def test_n_above_the_cap_is_refused(field: str) -> None:
    settings = {"kg": "k", "specs": ["s"], "models": ["oracle"], field: MAX_SAMPLES + 1}
    with pytest.raises(InputError, match="above the cap of 100,000,000"):
        load_run_file_keys(None, settings)
    assert load_run_file_keys(None, settings | {field: MAX_SAMPLES}).model_dump()[field] == (
        MAX_SAMPLES)


def test_a_typo_n_is_one_line_and_a_huge_n_starts_at_once(cli_kg: Path,
                                                          tmp_path: Path) -> None:
    typo = subprocess.run(_command(10**12, tmp_path / "typo"), env=cli_env(cli_kg),
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert typo.returncode == 2 and typo.stderr.count("\n") == 1, typo.stderr
    assert "1,000,000,000,000 samples" in typo.stderr and "cap" in typo.stderr
    assert not (tmp_path / "typo").exists()

    import psutil

    run = subprocess.Popen(_command(MAX_SAMPLES, tmp_path / "huge"), env=cli_env(cli_kg),
                           cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        assert run.stdout is not None
        first = run.stdout.readline()  # blocks until the first progress line
        assert "/100,000,000" in first, first
        deadline = time.monotonic() + 60
        samples = tmp_path / "huge" / "samples"
        while time.monotonic() < deadline and not any(samples.glob("**/*.jsonl")):
            time.sleep(0.2)
        assert any(samples.glob("**/*.jsonl")), "no sample was written within a minute"
        # a materialised index list alone would take gigabytes
        assert psutil.Process(run.pid).memory_info().rss < 1.5 * 2**30
    finally:
        run.kill()
        run.communicate(timeout=60)
