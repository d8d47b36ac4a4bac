"""Run directories written by an older kgcert (main 5e25278, tests/fixtures/old_runs, made by
benchmarks/make_old_run_fixtures.py) still read, report, compare, show and resume as that
version did: `runs` lists what their certificate files hold, `compare` and `report` write what
the old version wrote, and the same `kgcert run` command on a copy of each ends with the
certificates the old version wrote (a completed run adds nothing, the extendable run grows to
its new n, the run killed part-way finishes).

The fixtures name the checkout that made them `<checkout>` (a certificate's spec_file); a
resumed certificate names this checkout, so the comparison writes it `<checkout>` too.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from alzheimer_kg_fixture import ALZHEIMER_KG
from cli_process import kgcert_process
from run_cli import kgcert as kgcert_in_process

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "old_runs"
COMMANDS: dict[str, list[str]] = json.loads((FIXTURES / "commands.json").read_text())
CASES = tuple(COMMANDS)  # fixed, extendable, suite, ranked, resumed
CERTIFIED = ("fixed", "extendable", "suite", "ranked")  # resumed was killed before its first
# what differs from one run to the next, or names the code: never the numbers or sentences
IGNORED_KEYS = frozenset({"record_version", "created_at", "started_at", "libraries"})
IGNORED_PATHS = frozenset({("cost", "wall_s"), ("cost", "gpu_s")})


def _kgcert(cwd: Path, *args: str) -> str:
    done = kgcert_process(*args, cwd=cwd, env={"COLUMNS": "300", "KGCERT_NO_SERVER": "1"},
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def _bodies(folder: Path) -> dict[str, Any]:
    """The JSON files directly in `folder`, by name, this checkout's path written
    <checkout>."""
    return {path.name: json.loads(path.read_text().replace(str(REPO), "<checkout>"))
            for path in sorted(folder.glob("*.json"))}


def _without_ignored(value: Any, where: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        return {k: _without_ignored(v, (*where, k)) for k, v in value.items()
                if k not in IGNORED_KEYS and (*where, k) not in IGNORED_PATHS}
    if isinstance(value, list):
        return [_without_ignored(v, where) for v in value]
    return value


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the old run directories (commands read them; none may change them)."""
    folder = tmp_path_factory.mktemp("old-runs")
    for case in CASES:
        shutil.copytree(FIXTURES / case, folder / case)
    return folder


def test_the_fixtures_are_old_run_directories():
    assert CASES == ("fixed", "extendable", "suite", "ranked", "resumed")
    for case in CASES:
        assert (FIXTURES / case / "run.yaml").is_file()
        assert (FIXTURES / case / "design.json").is_file()
        assert any((FIXTURES / "expected" / case / "certificates").glob("*.json"))
        assert any((FIXTURES / case / "samples").rglob("*.jsonl"))
    assert not any((FIXTURES / "resumed" / "certificates").glob("*.json"))
    assert (FIXTURES / "ranked" / "comparisons").is_dir()
    texts = [p.read_text() for p in FIXTURES.rglob("*") if p.is_file()]
    assert not any("/tmp/" in text or str(REPO) in text for text in texts)


def test_runs_lists_what_each_certificate_file_holds(runs: Path):
    listed = [json.loads(line) for line in _kgcert(runs, "runs", ".", "--json").splitlines()]
    assert sorted(Path(r["run"]).name for r in listed) == sorted(CASES)
    table = _kgcert(runs, "runs", ".")
    for record in listed:
        case = Path(record["run"]).name
        files = {p.relative_to(runs / case).as_posix(): json.loads(p.read_text())
                 for p in (runs / case / "certificates").glob("*.json")}
        assert sorted(c["file"] for c in record["certificates"]) == sorted(files)
        for listed_certificate in record["certificates"]:
            body = files[listed_certificate["file"]]
            for key in ("spec", "setting", "model", "k", "n", "lower", "upper", "confidence",
                        "seed", "method", "cost", "spec_kind"):
                assert listed_certificate[key] == body[key], (case, key)
            assert (f" {body['k']} / {body['n']} " in table
                    and f" {body['lower']:.3f} " in table and f" {body['upper']:.3f} " in table)
    assert "no certificates yet" in table  # the run killed before its first certificate


@pytest.mark.parametrize("case", CASES)
def test_show_prints_a_recorded_sample(runs: Path, case: str):
    [first, *_] = sorted((runs / case / "samples").rglob("*.jsonl"))
    records = [json.loads(line) for line in first.read_text().splitlines()
               if line.strip().endswith("}")]
    record = records[0]
    args = ("show", case, "--spec", record["spec"], "--setting", record["setting"], "--model",
            record["model"], str(record["index"]))
    assert json.loads(_kgcert(runs, *args, "--json")) == record
    text = _kgcert(runs, *args)
    assert text.startswith(f"sample {record['index']} of {record['spec']} / "
                           f"{record['setting']} / {record['model']}")
    assert f"outcome: {record['outcome']}\n" in text


@pytest.mark.parametrize("case", ("fixed", "ranked"))
def test_compare_writes_what_the_old_version_wrote(runs: Path, case: str, tmp_path: Path):
    _kgcert(runs, "compare", case, "--out", str(tmp_path / "compare.json"))
    expected = json.loads((FIXTURES / "expected" / case / "compare.json").read_text())
    assert json.loads((tmp_path / "compare.json").read_text()) == expected


def test_report_writes_its_page_and_the_old_tables(runs: Path, tmp_path: Path):
    out = tmp_path / "report"
    _kgcert(runs, "report", *CERTIFIED, "--no-figures", "--out", str(out))
    page = (out / "report.html").read_text()
    for case in CERTIFIED:
        for body in _bodies(runs / case / "certificates").values():
            assert body["model"] in page and body["spec"] in page
    for name in ("certificates.csv", "spec_certificates.csv", "suites.csv"):
        with (out / name).open() as made, (FIXTURES / "expected" / "report" / name).open() as old:
            assert list(csv.DictReader(made)) == list(csv.DictReader(old)), name


def _samples(run: Path) -> dict[str, list[str]]:
    return {p.relative_to(run).as_posix(): p.read_text().splitlines()
            for p in sorted((run / "samples").rglob("*.jsonl"))}


@pytest.mark.parametrize("case", CASES)
def test_the_same_command_resumes_as_the_old_version_did(alzheimer_kg, embedded_data_dir: Path,
                                                         tmp_path: Path, case: str):
    assert COMMANDS[case][:2] == ["--kg", ALZHEIMER_KG]
    out = tmp_path / case
    shutil.copytree(FIXTURES / case, out)
    before = _samples(out)
    done = kgcert_in_process(embedded_data_dir, "run", *COMMANDS[case], "--out", str(out))
    assert done.exit_code == 0, done.output
    after = _samples(out)
    expected = FIXTURES / "expected" / case
    for folder in ("certificates", "certificates/earlier", "comparisons"):
        made, old = _bodies(out / folder), _bodies(expected / folder)
        assert sorted(made) == sorted(old), folder
        for name in old:
            assert _without_ignored(made[name]) == _without_ignored(old[name]), (folder, name)
    if case in ("fixed", "suite", "ranked"):  # complete: nothing asked again, nothing added
        assert after == before
    elif case == "extendable":  # grown from n = 10 to 20, the first ten kept
        [(name, lines)] = after.items()
        assert len(lines) == 20 and lines[:10] == before[name]
    else:  # killed part-way: finished to its n, the samples written before kept
        [(name, lines)] = after.items()
        kept = [line for line in before[name] if line.endswith("}")]
        assert len(lines) == 10 and lines[:len(kept)] == kept
