"""Faults at the command line and on disk: every one is a single `error:` line naming the file
and the problem, with a non-zero exit that is not 70 (internal error), and nothing already
written is lost.

Commands that need no KG run as subprocesses on their own data dir. Commands that need a KG
run in this process on the session's embedded server (which locks its data dir), so that an
OSError can be raised where the OS would not refuse root. Where `mount` works, a real
read-only or full tmpfs plays the disk.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import kgcert_process
from kg_helpers import load_kg

from kgcert.rundir.sample_log import SampleLog
from kgcert.rundir.sample_record import SampleRecord
from kgcert.synth.primekg import SyntheticPrimeKG

KG_HEADER = ("relation,display_relation,x_index,x_id,x_type,x_name,x_source,"
             "y_index,y_id,y_type,y_name,y_source\n")
GOOD_SPEC = """kind: relation
name: test.faults
description: d
pattern: '(a:disease)-[:indication]->(d:drug)'
answer: d
templates: ['{a}?', '{a}??', '{a}???', '{a}????', '{a}?????']
"""
SYNTH_KG = "clifaults_synth"
RING_KG = "clifaults_ring"
DUAL = "primekg.dual_indication"


def _kgcert(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return kgcert_process(*args, data_dir=data_dir, drop=())


@pytest.fixture
def kgcert_cli(tmp_path, monkeypatch, capsys):
    """Run `kgcert ARGS` in this process, through the CLI's own error handling (no Python
    start-up per command): (exit code, stderr). The data dir is a fresh one."""
    from kgcert.cli import _run
    from kgcert.cli import run as run_module

    monkeypatch.setenv("KGCERT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("KGCERT_NEO4J_URI", raising=False)

    def call(*args: str) -> tuple[int, str]:
        monkeypatch.setattr(sys, "argv", ["kgcert", *args])
        capsys.readouterr()
        code = _run()
        for lock in run_module._locks:  # as if the process ended: a rerun may lock again
            lock.close()
        run_module._locks.clear()
        return code, capsys.readouterr().err

    return call


def _one_line(code: int, stderr: str, expected: int) -> str:
    """The single error line of a failed command (beside kgcert's own pre-run warnings)."""
    lines = [line for line in stderr.splitlines()
             if line.strip() and not line.startswith("warning: ")]
    assert code == expected, stderr
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ") and "internal error" not in lines[0], lines[0]
    return lines[0]


def _failed(done: subprocess.CompletedProcess[str], expected: int) -> str:
    return _one_line(done.returncode, done.stderr, expected)


# -- spec and run files ----------------------------------------------------------------------

def test_a_spec_file_that_is_not_utf8_is_named(kgcert_cli, tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(GOOD_SPEC.replace("description: d", "description: caf\xe9").encode("latin-1"))
    line = _one_line(*kgcert_cli("specs", "validate", str(path)), 2)
    assert line == (f"error: {path}: not valid UTF-8 at line 3 (byte 0xe9); save the spec file "
                    "as UTF-8")


def test_a_spec_key_given_twice_is_refused(kgcert_cli, tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text(GOOD_SPEC + "answer: a\n")
    line = _one_line(*kgcert_cli("specs", "validate", str(path)), 2)
    assert line == f"error: {path}: key 'answer' is given twice (again at line 7); keep one"
    path.write_text(GOOD_SPEC)  # the same file without the repeat is a valid spec
    assert kgcert_cli("specs", "validate", str(path))[0] == 0


def test_a_run_file_key_given_twice_is_refused_before_anything_is_written(kgcert_cli, tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(f"kg: x\nspecs: [{DUAL}]\nmodels: [bernoulli:0.5]\nn: 10\nseed: 1\n"
                      "n: 500\n")
    out = tmp_path / "runs" / "r"
    line = _one_line(*kgcert_cli("run", "--config", str(config), "--out", str(out)), 2)
    assert line == f"error: {config}: key 'n' is given twice (again at line 6); keep one"
    assert not (tmp_path / "runs").exists()


def test_a_mapping_merge_may_still_override_keys(tmp_path):
    from kgcert.util.yamlfile import read_yaml

    path = tmp_path / "merge.yaml"
    path.write_text("base: &b {n: 1, seed: 2}\nrun:\n  <<: *b\n  n: 3\n")
    assert read_yaml(path, "run file")["run"] == {"n": 3, "seed": 2}


# -- certificates and reports ----------------------------------------------------------------

def _run_dir_by_hand(folder: Path, n: object = 10) -> Path:
    """A run directory with one certificate and its samples, in kgcert's own format."""
    from kgcert.certify.certificate import certificate
    from kgcert.rundir.atomic import write_json

    records = [{"index": i, "spec": "s", "spec_hash": "h", "setting": "vanilla", "model": "m",
                "outcome": "correct" if i % 3 else "wrong",
                "prompt": {"text": f"question {i}"}} for i in range(10)]
    SampleLog(folder / "samples" / "s" / "vanilla" / "m.jsonl").append(
        SampleRecord.from_dict(r) for r in records)
    body = certificate(records, confidence=0.95, context={
        "spec": "s", "setting": "vanilla", "model": "m", "samples_requested": 10}).to_dict()
    body["n"] = n
    write_json(folder / "certificates" / "s__vanilla__m.json", body)
    return folder


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_wrongly_typed_certificate_field_is_named(kgcert_cli, tmp_path, command):
    run = _run_dir_by_hand(tmp_path / "run", n="abc")
    line = _one_line(*kgcert_cli(command, str(run)), 2)
    file = run / "certificates" / "s__vanilla__m.json"
    assert line == (f'error: {file}: field n is "abc", expected a whole number; the '
                    "certificate was edited or damaged")


def test_report_out_naming_a_file_or_a_path_under_one(kgcert_cli, tmp_path):
    run = _run_dir_by_hand(tmp_path / "run")
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder\n")
    line = _one_line(*kgcert_cli("report", str(run), "--out", str(blocker), "--no-figures"),
                     2)
    assert line == f"error: --out {blocker} is a file; name a folder for the report"
    line = _one_line(*kgcert_cli("report", str(run), "--out", str(blocker / "report"),
                                 "--no-figures"), 1)
    assert line == f"error: cannot write {blocker / 'report'}: Not a directory"
    assert blocker.read_text() == "not a folder\n"


def test_report_out_on_a_read_only_disk(kgcert_cli, tmp_path, tmpfs):
    run = _run_dir_by_hand(tmp_path / "run")
    target = tmpfs("64k", read_only=True) / "report"
    line = _one_line(*kgcert_cli("report", str(run), "--out", str(target), "--no-figures"), 1)
    assert line == f"error: cannot write {target}: Read-only file system"


def test_report_out_on_a_full_disk(kgcert_cli, tmp_path, tmpfs):
    run = _run_dir_by_hand(tmp_path / "run")
    reference = tmp_path / "reference"
    assert kgcert_cli("report", str(run), "--out", str(reference), "--no-figures")[0] == 0
    written = sum(p.stat().st_size for p in reference.rglob("*") if p.is_file())
    disk = tmpfs("4k")  # one page: less than the report needs
    assert written > 4096
    target = disk / "report"
    line = _one_line(*kgcert_cli("report", str(run), "--out", str(target), "--no-figures"), 1)
    assert line.startswith(f"error: cannot write {target}")
    assert line.endswith(": No space left on device")


def test_report_out_without_permission(kgcert_cli, tmp_path, monkeypatch):
    """Root may write anywhere, so the refusal is raised where the OS would raise it."""
    run = _run_dir_by_hand(tmp_path / "run")
    target = tmp_path / "locked" / "report"
    real_mkdir = Path.mkdir

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        if self == target:
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", refuse)
    line = _one_line(*kgcert_cli("report", str(run), "--out", str(target), "--no-figures"), 1)
    assert line == f"error: cannot write {target}: Permission denied"


# -- the data directory ------------------------------------------------------------------------

def test_a_damaged_credentials_file_is_named_with_the_fix(tmp_path):
    data = tmp_path / "data"
    (data / "embedded").mkdir(parents=True)
    credentials = data / "embedded" / "credentials.json"
    credentials.write_text('{"user": "root", "password": ')
    line = _failed(_kgcert(data, "info"), 3)
    assert line == (f"error: {credentials} is damaged (no password in it); delete it and "
                    "kgcert makes a new one on the next start (the KGs are kept)")


def test_loaded_kg_and_credentials_are_private_then_a_new_password_keeps_them(tmp_path):
    csv = tmp_path / "kg.csv"
    csv.write_text(KG_HEADER + "indication,indication,1,DB1,drug,Aspirin,DrugBank,2,M2,"
                   "disease,pain,MONDO\n")
    data = tmp_path / "fresh" / "data"  # kgcert creates it
    done = _kgcert(data, "load", "primekg", str(csv), "--kg", "private")
    assert done.returncode == 0, done.stderr
    # Not a terminal: the phases as plain lines, each ending with its count, rate and time.
    ends = [line.split(", ")[0:2] for line in done.stderr.splitlines() if "took" in line]
    assert ends == [["reading files: 100%", "1 rows"], ["writing nodes: 100%", "2 nodes"],
                    ["writing edges: 100%", "2 edges"]]
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    found = list(data.rglob("*"))
    assert any(p.name == "credentials.json" for p in found)
    assert any("private" in p.parts and p.is_file() for p in found)  # the database's files
    loose = [f"{oct(stat.S_IMODE(p.lstat().st_mode))} {p.relative_to(data)}"
             for p in found if stat.S_IMODE(p.lstat().st_mode) & 0o077]
    assert loose == []
    (data / "embedded" / "credentials.json").unlink()  # as the damaged-file message advises
    done = _kgcert(data, "info", "--json")
    assert done.returncode == 0, done.stderr
    assert [kg["kg"] for kg in map(json.loads, done.stdout.splitlines())] == ["private"]


# -- in this process, on the session's embedded server -------------------------------------

@pytest.fixture(scope="module")
def kgs(embedded_server, tmp_path_factory) -> None:
    """A small synthetic PrimeKG for runs, and five drugs all linked to each other."""
    folder = tmp_path_factory.mktemp("clifaults")
    SyntheticPrimeKG(scale=0.003, seed=3).write_kg_csv(folder / "synth.csv")
    load_kg(embedded_server, "primekg", [folder / "synth.csv"], SYNTH_KG)
    rows = [f"links,links,{i},D{i},drug,Drug {i},X,{j},D{j},drug,Drug {j},X\n"
            for i in range(5) for j in range(5) if i != j]
    (folder / "ring.csv").write_text(KG_HEADER + "".join(rows))
    load_kg(embedded_server, "primekg", [folder / "ring.csv"], RING_KG)


@pytest.fixture
def kgcert_here(kgs, embedded_data_dir, monkeypatch, kgcert_cli):
    """`kgcert_cli` on the session's data dir, whose server holds the KGs above."""
    monkeypatch.setenv("KGCERT_DATA_DIR", str(embedded_data_dir))
    return kgcert_cli


def _run_args(out: Path, n: int = 40) -> list[str]:
    return ["run", "--kg", SYNTH_KG, "--spec", DUAL, "--model", "bernoulli:0.7",
            "--n", str(n), "--batch-size", "5", "--seed", "0", "--out", str(out)]


def test_specs_validate_fails_on_a_spec_with_no_match(kgcert_here, tmp_path):
    """A 20-node chain of distinct drugs cannot match a KG of five drugs, yet it has over a
    trillion tree-shaped candidates, too many to enumerate: only drawing settles it."""
    chain = "(v0:drug)" + "".join(f"-[:links]->(v{i}:drug)" for i in range(1, 20))
    path = tmp_path / "chain.yaml"
    path.write_text(f"kind: relation\nname: test.chain20\ndescription: d\npattern: '{chain}'\n"
                    "answer: v19\ntemplates: ['{v0}?', '{v0}??', '{v0}???', '{v0}????', "
                    "'{v0}?????']\n")
    line = _one_line(*kgcert_here("specs", "validate", str(path), "--kg", RING_KG), 2)
    assert line.startswith("error: spec test.chain20: 0 matches found in 1,000,000 draws "
                           "among 1,374,389,534,720 tree-shaped candidates")
    short = tmp_path / "pair.yaml"
    short.write_text("kind: relation\nname: test.pair\ndescription: d\n"
                     "pattern: '(a:drug)-[:links]->(b:drug)'\nanswer: b\n"
                     "templates: ['{a}?', '{a}??', '{a}???', '{a}????', '{a}?????']\n")
    assert kgcert_here("specs", "validate", str(short), "--kg", RING_KG)[0] == 0


def test_run_out_naming_a_file(kgcert_here, tmp_path):
    out = tmp_path / "results.txt"
    out.write_text("keep me\n")
    line = _one_line(*kgcert_here(*_run_args(out)), 2)
    assert line == f"error: --out {out} is a file; name a folder for the run"
    assert out.read_text() == "keep me\n"


@pytest.mark.parametrize(("args", "problem"), [
    (["--spec", "primekg.no_such_spec", "--model", "bernoulli:0.7"], "no spec named"),
    (["--spec", DUAL, "--model", "nosuchprovider:x"], "nosuchprovider"),
], ids=["unknown-spec", "bad-model"])
def test_a_failed_early_run_leaves_no_folder(kgcert_here, tmp_path, args, problem):
    out = tmp_path / "runs" / "first"
    line = _one_line(*kgcert_here("run", "--kg", SYNTH_KG, *args, "--out", str(out)), 2)
    assert problem in line
    assert list(tmp_path.iterdir()) == []  # neither runs/first/.lock nor runs/


def test_a_failed_run_keeps_a_folder_it_did_not_create(kgcert_here, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    code, _ = kgcert_here("run", "--kg", SYNTH_KG, "--spec", "primekg.no_such_spec",
                          "--model", "bernoulli:0.7", "--out", str(out))
    assert code == 2 and out.is_dir()


def test_run_dir_without_permission(kgcert_here, tmp_path, monkeypatch):
    """Root may write anywhere, so the refusal is raised where the OS would raise it."""
    out = tmp_path / "locked" / "run"
    real_mkdir = Path.mkdir

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        if self == out:
            raise PermissionError(13, "Permission denied", str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", refuse)
    line = _one_line(*kgcert_here(*_run_args(out)), 1)
    assert line == f"error: cannot write {out}: Permission denied"


def test_run_dir_on_a_read_only_disk(kgcert_here, tmpfs):
    out = tmpfs("64k", read_only=True) / "run"
    line = _one_line(*kgcert_here(*_run_args(out)), 1)
    assert line == f"error: cannot write {out}: Read-only file system"


def _certificates(run_dir: Path) -> dict[str, tuple[object, ...]]:
    found = {}
    for path in sorted((run_dir / "certificates").glob("*.json")):
        body = json.loads(path.read_text())
        found[path.name] = (body["k"], body["n"], body["lower"], body["upper"],
                            body["outcomes"])
    return found


def test_a_full_disk_mid_run_loses_nothing_and_the_run_resumes(kgcert_here, tmp_path, tmpfs):
    reference = tmp_path / "reference"
    assert kgcert_here(*_run_args(reference, n=120))[0] == 0
    disk = tmpfs("48k")
    out = disk / "run"
    line = _one_line(*kgcert_here(*_run_args(out, n=120)), 1)
    samples = next(out.glob("samples/*/*/*.jsonl"))
    assert line == f"error: cannot write {samples}: No space left on device"
    kept = SampleLog(samples).read()  # drops a torn last line, as a resumed run does
    assert 0 < len(kept) < 120
    assert sorted(kept) == list(range(len(kept)))
    subprocess.run(["mount", "-o", "remount,size=16m", str(disk)], check=True)
    assert kgcert_here(*_run_args(out, n=120))[0] == 0
    assert _certificates(out) == _certificates(reference)
    assert sorted(SampleLog(samples).read()) == list(range(120))
