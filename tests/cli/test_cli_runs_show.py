"""`kgcert runs`, `kgcert show`, `compare --json` and `specs validate` on their own, as a user
runs them (subprocesses), on real run directories written by the Runner with test models on
toy prompts (no graph server: these commands read files only)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_process import kgcert_process

from kgcert.cli.runs import describe_sample
from kgcert.specs.folders import is_suite_file
from tests.report.test_report_tables import ENTITY, RELATION, make_runs, sample_records

REPO = Path(__file__).resolve().parents[2]


def kgcert(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return kgcert_process(*args, data_dir=cwd / "data", env={"COLUMNS": "300"}, cwd=cwd,
                          timeout=120)


def one_error(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ")
    return line


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs-show")
    make_runs(folder / "runs")  # runs/run-a (three models), runs/run-b (one)
    return folder


def certificates(run: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    bodies = [json.loads(p.read_text()) for p in (run / "certificates").glob("*.json")]
    return {(b["spec"], b["setting"], b["model"]): b for b in bodies}


def test_runs_lists_every_run_with_its_certificates(root: Path) -> None:
    done = kgcert(root, "runs")  # ./runs by default
    assert done.returncode == 0, done.stderr
    expected = {**certificates(root / "runs" / "run-a"), **certificates(root / "runs" / "run-b")}
    assert done.stdout.index("runs/run-a") < done.stdout.index("runs/run-b")
    lines = done.stdout.splitlines()
    for (spec, setting, model), body in expected.items():
        row = [line for line in lines if f" {spec} " in f" {line} " and f" {setting} " in line
               and f" {model} " in f"{line} "]
        assert any(f"{body['k']} / {body['n']}" in r and f"{body['lower']:.3f}" in r
                   and f"{body['upper']:.3f}" in r for r in row), (spec, setting, model)

    as_json = kgcert(root, "runs", "runs", "--json")
    assert as_json.returncode == 0, as_json.stderr
    listed = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [Path(r["run"]).name for r in listed] == ["run-a", "run-b"]
    for record in listed:
        files = certificates(root / record["run"])
        assert len(record["certificates"]) == len(files)
        for cert in record["certificates"]:
            body = files[(cert["spec"], cert["setting"], cert["model"])]
            assert {k: cert[k] for k in ("k", "n", "lower", "upper", "seed")} == {
                k: body.get(k) for k in ("k", "n", "lower", "upper", "seed")}

    single = kgcert(root, "runs", "runs/run-b")  # a run directory itself
    assert single.returncode == 0 and "run-a" not in single.stdout


def test_runs_without_a_runs_folder_is_one_line(tmp_path: Path) -> None:
    line = one_error(kgcert(tmp_path, "runs"))
    assert line == "error: no run directory runs (`kgcert run --out DIR` writes one)"


def _record(run: Path, spec: str, setting: str, model: str, index: int) -> dict[str, Any]:
    [record] = [r for r in sample_records(run) if (r["spec"], r["setting"], r["model"],
                                                   r["index"]) == (spec, setting, model, index)]
    return record


def test_show_prints_one_sample_as_a_person_reads_it(root: Path) -> None:
    run = root / "runs" / "run-a"
    record = _record(run, RELATION, "distractor", "bernoulli:0.6", 7)
    done = kgcert(root, "show", "runs/run-a", "--spec", RELATION, "--setting", "distractor",
                  "--model", "bernoulli:0.6", "7")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    prompt = record["prompt"]
    assert text.startswith(f"sample 7 of {RELATION} / distractor / bernoulli:0.6")
    assert f"outcome: {record['outcome']}\n" in text
    assert prompt["text"] in text and record["response"]["text"].strip() in text
    correct = prompt["correct_option"]
    assert (f"correct answer: {correct}. {prompt['options'][correct - 1]} "
            f"({prompt['option_ids'][correct - 1]})") in text
    chosen = record["parsed_option"]
    role = prompt["provenance"]["extra"]["option_roles"][chosen - 1]
    assert (f"parsed answer: {chosen}. {prompt['options'][chosen - 1]} "
            f"({prompt['option_ids'][chosen - 1]}) (option role: {role})") in text
    assert "spec toy.relation (relation, hash h-toy.relation), seed 0" in text

    raw = kgcert(root, "show", "runs/run-a", "--spec", RELATION, "--setting", "distractor",
                 "--model", "bernoulli:0.6", "7", "--json")
    assert json.loads(raw.stdout) == record


def test_show_names_the_choices_and_the_missing_index(root: Path) -> None:
    several = one_error(kgcert(root, "show", "runs/run-a", "--spec", ENTITY, "0"))
    assert several.startswith("error: runs/run-a has 6 sample files; choose one with ")
    assert f"`--spec {ENTITY} --setting vanilla --model bernoulli:0.75`" in several
    none = one_error(kgcert(root, "show", "runs/run-b", "--model", "oracle", "0"))
    assert none.startswith("error: runs/run-b has no samples with model oracle (it has: "
                           f"--spec {RELATION} --setting vanilla --model bernoulli:0.8)")
    missing = one_error(kgcert(root, "show", "runs/run-b", "999"))
    assert missing.startswith("error: no sample 999 in runs/run-b/samples/")
    assert missing.endswith("(recorded indexes: 0..59)")
    assert one_error(kgcert(root, "show", "nowhere", "1")).startswith(
        "error: nowhere is not a run directory")


def test_describe_sample_says_why_there_is_no_answer() -> None:
    failed = {"index": 3, "spec": "s", "setting": "vanilla", "model": "m", "outcome": "error",
              "prompt": {"text": "Q?", "options": ["a", "b"], "option_ids": ["1", "2"],
                         "correct_option": 2, "provenance": {"kind": "relation"}},
              "response": {"text": "", "error": "timeout (gave up after 6 attempts)"}}
    text = describe_sample(failed, "f.jsonl")
    assert "(the call failed: timeout (gave up after 6 attempts))" in text
    assert "parsed answer: none" in text and "correct answer: 2. b (2)" in text
    skipped = {**failed, "outcome": "skipped",
               "prompt": {"text": "", "skipped": "context does not fit", "provenance": {}}}
    assert "skipped before reaching the model: context does not fit" in describe_sample(
        skipped, "f.jsonl")
    task = {**failed, "outcome": "wrong", "exact_correct": False, "flexible_correct": False,
            "prompt": {"text": "T", "answers": ["Paris"], "provenance": {
                "kind": "task", "textualization": "json"}},
            "response": {"text": "Rome", "error": None}}
    text = describe_sample(task, "f.jsonl")
    assert "/ vanilla (json) /" in text and "accepted answers: Paris" in text
    assert "scored: exact False, flexible False" in text
    # what the task scorer writes today (tasks/prompt.py): exact and flexible
    scored = {k: v for k, v in task.items() if not k.endswith("_correct")}
    text = describe_sample({**scored, "exact": False, "flexible": True}, "f.jsonl")
    assert "scored: exact False, flexible True" in text


def test_compare_json_prints_the_records_of_compare_json(root: Path, tmp_path: Path) -> None:
    done = kgcert(root, "compare", "runs/run-a", "runs/run-b", "--json", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "compare.json").read_text())
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    assert printed == written["comparisons"] + written["variants"] and len(printed) > 1
    assert written["variants"]  # the task specs in two formats: each model's formats paired


def test_validate_reports_every_spec_and_fails_if_any_did(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "good.yaml").write_text(
        "kind: relation\nname: mine.good\ndescription: d\n"
        "pattern: '(a:disease)-[:indication]->(d:drug)'\nanswer: d\n"
        "templates: ['{a}?', '{a}??', '{a}!', '{a}.', '{a}:']\n")
    (folder / "broken.yaml").write_text("kind: relations\nname: x\n")
    done = kgcert(tmp_path, "specs", "validate", "--specs-dir", str(folder))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ok  mine.good\n" in done.stdout
    assert "ok  primekg.dual_indication\n" in done.stdout  # the shipped ones are still checked
    assert f"error: {folder / 'broken.yaml'}: kind must be relation" in done.stderr
    shipped = len([p for p in (REPO / "specs").rglob("*.yaml")
                   if not is_suite_file(p)])  # suites (primekg.table1) are no specs
    assert done.stderr.splitlines()[-1] == f"error: 1 of {shipped + 2} specs failed"

    as_json = kgcert(tmp_path, "specs", "validate", "--specs-dir", str(folder), "--json",
                     "mine.good", "nope")
    assert as_json.returncode == 2
    good, nope = (json.loads(line) for line in as_json.stdout.splitlines())
    assert good["name"] == "mine.good" and good["ok"] and good["kind"] == "relation"
    assert not nope["ok"] and nope["error"].startswith("no spec named 'nope'")


def test_show_prints_a_replys_terminal_escapes_escaped(root: Path, tmp_path: Path) -> None:
    """A reply holding terminal escapes (clear screen, window title, bidi override) is shown
    with them escaped, never sent raw to the terminal (issue 46)."""
    import shutil

    run = tmp_path / "runs" / "escapes"
    shutil.copytree(root / "runs" / "run-a", run)
    reply = "\x1b]0;owned\x07\x1b[2J\u202ecorrect answer: 1."
    [log] = [p for p in (run / "samples").rglob("*.jsonl") if "bernoulli_0.6" in str(p)
             and "distractor" in str(p) and RELATION in str(p)]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for record in lines:
        if record["index"] == 7:
            record["response"]["text"] = reply
    log.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in lines))
    done = kgcert(tmp_path, "show", "runs/escapes", "--spec", RELATION, "--setting",
                  "distractor", "--model", "bernoulli:0.6", "7")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "\u202e" not in done.stdout
    assert "\\x1b]0;owned\\x07\\x1b[2J\\u202ecorrect answer: 1." in done.stdout
