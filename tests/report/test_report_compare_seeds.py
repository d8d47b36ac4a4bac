"""`kgcert compare` of two runs drawn with different seeds (issue 47 item 7): index i is a
different prompt in each, so nothing pairs; it says so, names the seeds and how to pair them,
instead of "no prompt answered in every model"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from run_cli import kgcert


def test_compare_of_runs_with_different_seeds_says_how_to_pair_them(
        alzheimer_kg: Any, tmp_path: Path):
    for seed in ("1", "2"):
        done = kgcert(alzheimer_kg.data_dir, "run", "--kg", alzheimer_kg.name, "--spec",
                      "primekg.dual_indication", "--model", "bernoulli:0.5", "--mode", "choice",
                      "--n", "10", "--seed", seed, "--out", str(tmp_path / f"seed{seed}"))
        assert done.exit_code == 0, done.output
    done = kgcert(alzheimer_kg.data_dir, "compare", str(tmp_path / "seed1"),
                  str(tmp_path / "seed2"), "--out", str(tmp_path / "compare.json"))
    assert done.exit_code == 0, done.output
    text = " ".join(done.output.split())
    assert "no prompt in common (dropped: 10 with differing prompts)" in text
    assert ("nothing to test: the runs drew their prompts with different seeds (seed1 seed 1, "
            "seed2 seed 2), so index i is a different prompt in each; to pair them, run the "
            "others again with --seed 1 (the same spec, KG and budget) and compare those") in text
    assert "no prompt answered in every model" not in text
