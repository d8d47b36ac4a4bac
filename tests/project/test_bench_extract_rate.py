"""benchmarks/bench_extract_rate.py's comparison: per pair, each side's median rate and the
median and range of the rounds' ratios, and whether both sides built the same prompts."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_modules import load_benchmark


def _bench() -> ModuleType:
    return load_benchmark("bench_extract_rate")


def _round(this: float, baseline: float, sha: str = "same") -> dict[str, dict]:
    def side(rate: float, digest: str) -> dict:
        return {"pairs": {"s/vanilla": {"per_cpu_s": rate, "sha256": digest}}}

    return {"this": side(this, sha), "baseline": side(baseline, "same")}


def test_ratios_are_this_over_the_baseline_round_by_round() -> None:
    bench = _bench()
    summary = bench.compare([_round(1100, 1000), _round(900, 1000), _round(1300, 1000)])
    row = summary["s/vanilla"]
    assert row["ratio_median"] == pytest.approx(1.1)
    assert (row["ratio_min"], row["ratio_max"]) == (pytest.approx(0.9), pytest.approx(1.3))
    assert row["this_per_cpu_s"] == 1100 and row["baseline_per_cpu_s"] == 1000
    assert row["same_prompts"]
    assert not bench.compare([_round(1, 1), _round(1, 1, sha="other")])["s/vanilla"][
        "same_prompts"]


def test_a_baseline_that_is_no_checkout_is_refused(tmp_path: Path, monkeypatch) -> None:
    bench = _bench()
    monkeypatch.setattr(sys, "argv", ["bench_extract_rate.py", "--baseline", str(tmp_path)])
    with pytest.raises(SystemExit, match="a checkout of kgcert"):
        bench.main()
