"""The `kgcert run` cases whose run directories issue 44 must leave as they were, and how to
run them on one checkout: shared by certificate_equivalence.py (today's tree against a
baseline commit) and make_old_run_fixtures.py (tests/fixtures/old_runs/).

Every case runs bernoulli test models on PrimeKG's Alzheimer extract in an embedded data dir
of its own side, with its own seed (the data dir's record of looks would otherwise see two
cases' prompts as one), each as a fresh `python -m kgcert` process importing the checkout
given (PYTHONPATH). The cases:

* fixed: fixed n, two models, one setting;
* extendable: `--extendable` at n, then resumed with a larger n (the extension);
* suite: one certificate for three specs with `--weights matches`;
* ranked: `--until ranked`, a race that writes comparisons/;
* resumed: a run killed (SIGKILL) part-way; the partial directory is made once and each side
  resumes its own copy of it, so both sides start from the same bytes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DATA = next((up / "shared" / "data" for up in HERE.parents if (up / "shared" / "data").is_dir()),
            HERE.parent / "shared" / "data")
ALZHEIMER_CSV = DATA / "primekg" / "kg_alzheimer_neighbourhood.csv"
KG = "alz_shared"  # the name the tests' session fixture gives the same extract
EXPOSURE, DUAL, OFF_LABEL = "primekg.exposure_drug", "primekg.dual_indication", "primekg.off_label"


@dataclass(frozen=True)
class Case:
    name: str
    steps: tuple[tuple[str, ...], ...]  # `kgcert run` arguments (without --kg and --out)
    kill_after: int = 0  # resumed case: samples written before the first step is killed


def cases(n: int, grown: int, race_n: int, small: bool = False) -> list[Case]:
    """The five cases at `n` samples (`grown` for the extension, `race_n` for the race).
    `small`: a tight prompt budget, so the sample files of the fixtures stay small."""
    common = ("--few-shot", "1", *(("--context-chars", "1500") if small else ()))
    fixed = ("--spec", EXPOSURE, "--model", "bernoulli:0.7", "--model", "bernoulli:0.4",
             "--setting", "vanilla", *common, "--seed", "4401", "--n", str(n))
    extendable = ("--spec", DUAL, "--model", "bernoulli:0.6", *common, "--seed", "4402",
                  "--extendable")
    suite = ("--suite", "alz.by_matches", "--spec", EXPOSURE, "--spec", DUAL, "--spec",
             OFF_LABEL, "--weights", "matches", "--model", "bernoulli:0.7", *common,
             "--seed", "4403", "--n", str(n))
    ranked = ("--spec", EXPOSURE, "--model", "bernoulli:0.95", "--model", "bernoulli:0.3",
              *common, "--seed", "4404", "--n", str(race_n), "--batch-size", "4",
              "--until", "ranked")
    resumed = ("--spec", EXPOSURE, "--model", "bernoulli:0.5", *common, "--seed", "4405",
               "--n", str(n), "--batch-size", "1")
    return [Case("fixed", (fixed,)),
            Case("extendable", ((*extendable, "--n", str(n)), (*extendable, "--n", str(grown)))),
            Case("suite", (suite,)),
            Case("ranked", (ranked,)),
            Case("resumed", (resumed,), kill_after=max(2, n // 3))]


def env(checkout: Path, data_dir: Path, cache_dir: Path) -> dict[str, str]:
    """A kgcert child's environment: the checkout's package, its own data and cache dirs, the
    embedded server (no Neo4j, no provider keys)."""
    keep = {k: v for k, v in os.environ.items()
            if not k.startswith(("KGCERT_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))}
    return {**keep, "PYTHONPATH": str(checkout.resolve()), "OMP_NUM_THREADS": "1",
            "KGCERT_DATA_DIR": str(data_dir), "KGCERT_CACHE_DIR": str(cache_dir),
            "KGCERT_SERVER_IDLE": "300", "COLUMNS": "200"}


def kgcert(checkout: Path, child_env: dict[str, str], *args: str) -> str:
    """`kgcert ARGS` in the checkout; its stdout, or SystemExit with its error."""
    done = subprocess.run([sys.executable, "-m", "kgcert", *args], cwd=checkout, env=child_env,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"kgcert {' '.join(args)} ({checkout}) failed:\n{done.stderr[-3000:]}")
    return done.stdout


def load_kg(checkout: Path, child_env: dict[str, str]) -> None:
    if not ALZHEIMER_CSV.is_file():
        raise SystemExit(f"no {ALZHEIMER_CSV}: the Alzheimer extract of ../shared/data")
    kgcert(checkout, child_env, "load", "primekg", str(ALZHEIMER_CSV), "--kg", KG)


def export_commit(commit: str, into: Path) -> Path:
    """The tree of `commit` of this repository, written to `into` (git archive)."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(HERE), "archive", commit], capture_output=True,
                             check=False)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {commit}: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _samples_written(run_dir: Path) -> int:
    total = 0
    for path in run_dir.glob("samples/**/*.jsonl"):
        with contextlib.suppress(OSError):  # a file being replaced
            total += path.read_bytes().count(b"\n")
    return total


def killed_part_way(checkout: Path, child_env: dict[str, str], case: Case, out: Path) -> None:
    """Run the case's first step into `out` and SIGKILL it once `kill_after` samples are
    written, before its certificate is (retried in a fresh folder if the run finished or
    certified first)."""
    for _ in range(5):
        shutil.rmtree(out, ignore_errors=True)
        process = subprocess.Popen([sys.executable, "-m", "kgcert", "run", "--kg", KG,
                                    *case.steps[0], "--out", str(out)], cwd=checkout,
                                   env=child_env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        while process.poll() is None and _samples_written(out) < case.kill_after:
            time.sleep(0.002)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=60)
            if not any(out.glob("certificates/*.json")):
                return
    raise SystemExit(f"{case.name}: no kill landed part-way in 5 tries")


def run_case(checkout: Path, child_env: dict[str, str], case: Case, out: Path,
             partial: Path | None = None) -> None:
    """Every step of `case` into `out`; a resumed case starts from a copy of `partial`."""
    if case.kill_after:
        if partial is None:
            raise ValueError(f"{case.name} resumes a partial run directory: give one")
        shutil.copytree(partial, out)
    for step in case.steps:
        kgcert(checkout, child_env, "run", "--kg", KG, *step, "--out", str(out))
