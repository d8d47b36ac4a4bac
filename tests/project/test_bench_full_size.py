"""benchmarks/bench_full_size.py: issue 48 item 2's figures from one command, run tiny here
(the full size is an on-demand run: tens of minutes and gigabytes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from benchmark_modules import BENCHMARKS, load_benchmark

REPO = BENCHMARKS.parent


def test_a_figure_is_said_to_meet_its_target_only_at_or_under_it() -> None:
    bench = load_benchmark("bench_full_size")
    assert bench.verdict(1.2, 1.2).endswith("meets")
    assert bench.verdict(1.21, 1.2).endswith("MISSES")


def test_a_scale_outside_a_fraction_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_full_size.py"), "--scale",
                           "1.5", "--work", str(tmp_path)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2 and "--scale takes a fraction in (0, 1]" in done.stderr
    assert not any(tmp_path.iterdir())  # refused before anything was synthesised


def test_loaded_without_a_loaded_work_folder_is_refused(tmp_path: Path) -> None:
    for extra in ([], ["--work", str(tmp_path)]):
        done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_full_size.py"),
                               "--loaded", *extra], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
        assert done.returncode == 2, done.stderr
        assert "--loaded takes the --work folder of an earlier call" in done.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_one_command_prints_every_figure_beside_its_target(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_full_size.py"), "--scale", "0.001",
         "--run-n", "3", "--pivot-n", "3", "--pivots", "3", "--work", str(tmp_path / "work"),
         "--out", str(out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for start, target in [("first `specs count primekg.dual_indication`", "<= 30.0"),
                          ("run loop:", "<= 1.2"), ("pivot run (3 specs", "<= 4,096.0")]:
        line = next(line for line in lines if line.startswith(start))
        assert f"target {target}: " in line
    figures = json.loads(out.read_text(encoding="utf-8"))
    primekg, wikidata5m = figures["primekg"], figures["wikidata5m"]
    assert primekg["first_count"]["cpu_s"] > 0 and primekg["first_count"]["peak_rss_mb"] > 50
    assert primekg["later_count"]["cpu_s"] > 0
    assert primekg["run_loop"]["prompts"] == 10 * 2 * 3  # shipped specs x settings x n
    assert primekg["run_loop"]["overhead_cpu_ms_per_prompt"] > 0
    run = wikidata5m["pivot_run"]
    assert run["specs"] == 3 and all(len(digest) == 64 for digest in run["prompts_sha256"])
    assert 50 < run["prepared_peak_rss_mb"] <= run["process"]["peak_rss_mb"]
    for parts in (run["prepared_resident_mb"], run["end_resident_mb"]):  # /proc/self/status
        assert parts["RssAnon"] > 50 and parts["RssFile"] > 0
        assert parts["RssAnon"] + parts["RssFile"] <= run["process"]["peak_rss_mb"] + 1
    assert wikidata5m["load"]["peak_rss_mb"] > 50
    # Again over what it loaded: the run loop alone, nothing synthesised or loaded anew.
    kg_csv = tmp_path / "work" / "primekg" / "kg.csv"
    written = kg_csv.stat().st_mtime_ns
    again = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_full_size.py"), "--loaded", "--run-n", "2",
         "--work", str(tmp_path / "work"), "--out", str(out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=900)
    assert again.returncode == 0, again.stderr[-2000:]
    said = again.stdout.splitlines()
    assert not [line for line in said if line.startswith(("PrimeKG", "Wikidata5m", "first"))]
    assert "run loop: 40 prompts" in again.stdout and "target <= 1.2: " in again.stdout
    assert kg_csv.stat().st_mtime_ns == written
    assert json.loads(out.read_text(encoding="utf-8"))["primekg"]["run_loop"]["prompts"] == 40


def test_reuse_runs_a_finished_step_once_and_hands_back_its_figures(tmp_path: Path) -> None:
    bench = load_benchmark("bench_full_size")
    marker = tmp_path / "ran"
    # Fails when run a second time: only the recorded figures can answer the second call.
    command = [sys.executable, "-c", f"import pathlib; pathlib.Path({str(marker)!r}).touch("
                                     "exist_ok=False)"]
    args = SimpleNamespace(work=tmp_path, reuse=True)
    first = bench.once(args, "step", command)
    assert marker.exists() and "reused" not in first and first["cpu_s"] > 0
    again = bench.once(args, "step", command)
    assert again == {**first, "reused": True}
    with pytest.raises(SystemExit, match="failed"):  # without --reuse the step runs again
        bench.once(SimpleNamespace(work=tmp_path, reuse=False), "step", command)


def test_reuse_without_a_work_folder_is_refused() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_full_size.py"), "--reuse"],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2 and "--reuse needs --work" in done.stderr


def test_reuse_at_another_pivot_n_is_refused_before_anything_runs(tmp_path: Path) -> None:
    (tmp_path / "pivot-n.json").write_text("20", encoding="utf-8")  # an earlier run's
    done = subprocess.run([sys.executable, str(BENCHMARKS / "bench_full_size.py"), "--reuse",
                           "--work", str(tmp_path), "--only", "wikidata5m", "--pivot-n", "5"],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2 and "measured at --pivot-n 20" in done.stderr
    assert "give --pivot-n 20 or a new --work" in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["pivot-n.json"]
