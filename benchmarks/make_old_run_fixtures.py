"""Write tests/fixtures/old_runs/: small run directories made by an older kgcert (main 5e25278
for issue 44), which tests/rundir/test_old_run_dirs.py checks today's kgcert still reads,
reports, compares, shows and resumes.

    python benchmarks/make_old_run_fixtures.py --baseline 5e25278

The cases of run_record_cases.py at n = 10 (20 for the extension, 30 for the race) with a
1,500-character prompt budget, so the sample files stay small, on the Alzheimer extract loaded
as `alz_shared` (the name the tests' session fixture gives it):

* <case>/: the run directory as the baseline left it (extendable: after its first step;
  resumed: killed part-way); the `.lock` file is left out;
* expected/<case>/: the certificates (and comparisons) the baseline writes when the case's
  last step runs on a copy of <case>/ with an empty response cache: a completed run's own
  files, an extension's grown certificates, a killed run's finished ones;
* expected/<case>/compare.json (fixed, ranked) and expected/report/*.csv: what the
  baseline's `kgcert compare` and `kgcert report --no-figures` make of the fixtures;
* commands.json: per case, the `kgcert run` arguments of that last step (without --out).

The baseline runs from a temporary export, so the absolute path of its checkout (in
certificates' spec_file and specs/index.json's source) is written as `<checkout>`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from run_record_cases import HERE, KG, cases, env, export_commit, kgcert, killed_part_way, load_kg

FIXTURES = HERE / "tests" / "fixtures" / "old_runs"
COMPARED = ("fixed", "ranked")  # the cases with two models on the same prompts
REPORTED = ("fixed", "extendable", "suite", "ranked")  # the resumed one has no certificate
REPORT_TABLES = ("certificates.csv", "spec_certificates.csv", "suites.csv")
CHECKOUT = "<checkout>"


def _copy_without_paths(source: Path, target: Path, checkout: Path) -> None:
    """`source` into `target`, the lock left out and the checkout's path written CHECKOUT."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".lock"))
    for path in target.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".yaml"):
            text = path.read_text(encoding="utf-8")
            path.write_text(text.replace(str(checkout.resolve()), CHECKOUT), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="A commit of this repository.")
    parser.add_argument("--into", type=Path, default=FIXTURES)
    args = parser.parse_args()
    if args.into.exists():  # fixtures are replaced on purpose, never merged into
        raise SystemExit(f"{args.into} exists: remove it first to write new fixtures")
    with tempfile.TemporaryDirectory(prefix="kgcert-old-runs-") as temporary:
        work = Path(temporary)
        checkout = export_commit(args.baseline, work / "tree")
        # the expected files come from a second data dir: in the first, the record of looks
        # would take a copy of a run for a second run over the same prompts
        data, again = work / "data", work / "data-expected"
        servers = [env(checkout, data, work / "cache-load"), env(checkout, again, work / "c2")]
        for loading in servers:
            load_kg(checkout, loading)
            kgcert(checkout, loading, "server", "start")
        commands = {}
        try:
            for case in cases(10, 20, 30, small=True):
                out = work / "runs" / case.name
                child = env(checkout, data, work / "cache" / case.name)
                if case.kill_after:
                    killed_part_way(checkout, child, case, out)
                else:
                    for step in case.steps[:max(1, len(case.steps) - 1)]:
                        kgcert(checkout, child, "run", "--kg", KG, *step, "--out", str(out))
                last = ("--kg", KG, *case.steps[-1])
                commands[case.name] = list(last)
                _copy_without_paths(out, args.into / case.name, checkout)
                # the last step on a copy, with an empty cache, as the test will run it
                resumed = work / "resumed" / case.name
                shutil.copytree(out, resumed)
                kgcert(checkout, env(checkout, again, work / "cache-expected" / case.name),
                       "run", *last, "--out", str(resumed))
                for folder in ("certificates", "comparisons"):
                    if (resumed / folder).is_dir():
                        _copy_without_paths(resumed / folder,
                                            args.into / "expected" / case.name / folder, checkout)
        finally:
            for loading in servers:
                kgcert(checkout, loading, "server", "stop")
        _readers_output(checkout, env(checkout, data, work / "cache-read"), args.into)
    (args.into / "commands.json").write_text(json.dumps(commands, indent=2) + "\n",
                                             encoding="utf-8")


def _readers_output(checkout: Path, child: dict[str, str], into: Path) -> None:
    """What the baseline's compare and report make of the fixtures, run in their folder (so
    the files name the runs by relative paths)."""
    child = {**child, "PYTHONPATH": str(checkout.resolve())}
    for case in COMPARED:
        _in(into, child, "compare", case, "--out", f"expected/{case}/compare.json")
    with tempfile.TemporaryDirectory(prefix="kgcert-old-report-") as report:
        _in(into, child, "report", *REPORTED, "--no-figures", "--out", report)
        (into / "expected" / "report").mkdir(parents=True, exist_ok=True)
        for name in REPORT_TABLES:
            shutil.copyfile(Path(report) / name, into / "expected" / "report" / name)


def _in(folder: Path, child: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "kgcert", *args], cwd=folder, env=child,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise SystemExit(f"kgcert {' '.join(args)} failed:\n{done.stderr[-3000:]}")


if __name__ == "__main__":
    main()
