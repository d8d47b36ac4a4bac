"""`kgcert specs ...` as a user runs it: subprocesses on their own data dir, one-line errors.

The embedded server locks its data dir, so these commands cannot share the test session's
server: the module loads the Alzheimer PrimeKG extract with `kgcert load` into a fresh data
dir and every command here runs against that.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from kgcert.specs.folders import is_suite_file

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "specs" / "primekg").glob("*.yaml")
                 if not is_suite_file(p))  # table1.yaml is a suite of these specs
DUAL = "primekg.dual_indication"  # sampled by name, counted by path
DUAL_PATH = str(REPO / "specs" / "primekg" / "dual_indication.yaml")
DUAL_MATCHES = 90  # in the Alzheimer extract (test_specs_shipped.py holds the whole table)


def _kgcert(data_dir: Path, *args: str, COLUMNS: str = "400"  # noqa: N803 (the variable)
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgcert", *args], capture_output=True, text=True, timeout=300,
        env={**os.environ, "KGCERT_DATA_DIR": str(data_dir), "COLUMNS": COLUMNS},
    )


def _one_error_line(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.fixture(scope="module")
def alzheimer_csv(shared_data: Path) -> Path:
    return shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, alzheimer_csv) -> Path:
    folder = tmp_path_factory.mktemp("specs-cli")
    done = _kgcert(folder, "load", "primekg", str(alzheimer_csv), "--kg", "alz")
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def three_samples(data_dir) -> str:
    done = _kgcert(data_dir, "specs", "sample", DUAL, "--kg", "alz", "--n", "3", "--seed", "1")
    assert done.returncode == 0, done.stderr
    return done.stdout


def _samples(stdout: str) -> dict[int, list[str]]:
    """Sample index -> its printed lines."""
    blocks: dict[int, list[str]] = {}
    current: list[str] = []
    for line in stdout.splitlines():
        head = re.match(r"#(\d+) ", line)
        if head:
            current = blocks.setdefault(int(head.group(1)), [])
        current.append(line)
    return blocks


# -- without a server -------------------------------------------------------------------------


def test_list_shows_the_shipped_specs_and_suites_with_whole_descriptions(tmp_path):
    """Issue 47 items 6 and 7: each spec and suite with its kind, KG family and file on a
    line, then its whole description (at 100 columns too, wrapped, never cut)."""
    done = _kgcert(tmp_path, "specs", "list", COLUMNS="100")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(map(len, lines)) <= 100
    heads = {line.split("  ")[0]: number for number, line in enumerate(lines)
             if line and not line.startswith(" ")}
    for path in SHIPPED:
        name = f"primekg.{path.stem}"
        assert name in heads, f"{name} missing from `specs list`"
        head = lines[heads[name]]
        assert "relation · primekg · " + path.name in head
    import yaml

    for suite in ("table1", "table1_extract"):
        data = yaml.safe_load((REPO / "specs" / "primekg" / f"{suite}.yaml").read_text())
        at = heads[f"primekg.{suite}"]
        assert f"suite · primekg · {suite}.yaml" in lines[at]
        block = []
        for line in lines[at + 1:]:
            if not line.startswith("    "):
                break
            block.append(line.strip())
        assert " ".join(block) == " ".join(data["description"].split())
    listed = [json.loads(line) for line in _kgcert(tmp_path, "specs", "list", "--json")
              .stdout.splitlines()]
    suites = {row["name"]: row for row in listed if row["kind"] == "suite"}
    assert set(suites) == {"primekg.table1", "primekg.table1_extract"}
    assert len(suites["primekg.table1"]["specs"]) == 9


def test_a_spec_with_a_10_mb_description_lists_it_once(tmp_path):
    """Issue 46 item 10: a huge description is printed once, wrapped (a table cell padded it to
    807 MB of output and 45 s); the text stays the size of the description, not a multiple."""
    shipped = (REPO / "specs" / "primekg" / "dual_indication.yaml").read_text()
    description = "word " * 2_000_000
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "big.yaml").write_text(shipped.replace(
        "name: primekg.dual_indication", "name: big.spec").replace(
        "description: >\n", "description: >\n  " + description + "\n", 1))
    for form in ((), ("--json",)):
        done = _kgcert(tmp_path, "specs", "list", "--specs-dir", str(folder), *form,
                       COLUMNS="100")
        assert done.returncode == 0, done.stderr
        assert "big.spec" in done.stdout
        assert len(description) < len(done.stdout) < 1.2 * len(description) + 100_000


@pytest.mark.parametrize(("text", "problem"), [
    ("kind: relations\nname: x\n", "kind must be relation, entity or task (got 'relations')"),
    ("kind: relation\nname: x\n  description: oops\n", "not valid YAML at line 3, column 14"),
    ("kind: relation\nname: x\ndescription: d\npattern: '(a:disease)-[:indication->(d:drug)'\n"
     "answer: d\ntemplates: ['{a}', '{a}', '{a}', '{a}', '{a}']\n",
     "pattern syntax error at line 1, column 25: mismatched input '-' expecting "),
    ("kind: relation\nname: x\ndescription: d\npattern: '(a:disease)-[:indication]->(d:drug)'\n"
     "answer: d\ntemplates: ['{a}', '{a}', '{a}', '{a}']\n",
     "templates: Tuple should have at least 5 items after validation, not 4"),
], ids=["kind", "yaml", "pattern", "templates"])
def test_validate_a_broken_file(tmp_path, text, problem):
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    done = _kgcert(tmp_path, "specs", "validate", str(path))
    assert done.stdout == ""
    assert _one_error_line(done, 2).startswith(f"error: {path}: {problem}")


def test_error_text_with_brackets_is_printed_verbatim(tmp_path):
    """Messages quote the user's pattern, brackets included; they are not console markup."""
    path = tmp_path / "variable.yaml"
    path.write_text("kind: relation\nname: x\ndescription: d\n"
                    "pattern: '(a:drug)-[r:indication]->(d:disease)'\nanswer: d\n"
                    "templates: ['{a}', '{a}', '{a}', '{a}', '{a}']\n")
    done = _kgcert(tmp_path, "specs", "validate", str(path))
    assert _one_error_line(done, 2) == (f"error: {path}: relationship -[r:indication]-> has a "
                                        "variable; the DAG's edges are fixed by their endpoints")


def test_error_text_with_a_closing_tag_is_no_traceback(tmp_path):
    path = tmp_path / "closing.yaml"
    path.write_text("kind: relation\nname: x\ndescription: d\n"
                    "pattern: '(a:drug)-[/x]->(d:disease)'\nanswer: d\n"
                    "templates: ['{a}', '{a}', '{a}', '{a}', '{a}']\n")
    done = _kgcert(tmp_path, "specs", "validate", str(path))
    line = _one_error_line(done, 2)
    assert line.startswith(f"error: {path}: pattern syntax error at line 1, column 11: ")
    assert line.endswith("in '(a:drug)-[/x]->(d:disease)'")


def test_unknown_spec_name_suggests_close_names(tmp_path):
    done = _kgcert(tmp_path, "specs", "sample", "primekg.dual_indicaton", "--kg", "alz")
    line = _one_error_line(done, 2)
    assert line.startswith("error: no spec named 'primekg.dual_indicaton'; did you mean "
                           "primekg.dual_indication, ")  # the closest first
    assert line.endswith("?")


# -- against the loaded Alzheimer extract -----------------------------------------------------


def test_sample_prints_named_samples_reproducibly(data_dir, three_samples, alzheimer_csv):
    names: dict[str, str] = {}
    treats: dict[str, set[str]] = defaultdict(set)  # drug id -> diseases it is indicated for
    with alzheimer_csv.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            names[row["x_index"]] = row["x_name"]
            names[row["y_index"]] = row["y_name"]
            if row["relation"] == "indication" and row["x_type"] == "drug":
                treats[row["x_index"]].add(row["y_name"])
    blocks = _samples(three_samples)
    assert sorted(blocks) == [0, 1, 2]
    for index, lines in blocks.items():
        assert len(lines) == 2, lines
        head = re.fullmatch(r"#(\d+) answer d = (.+) \((\w+)\)", lines[0])
        assert head, lines[0]
        drug, drug_id = head.group(2), head.group(3)
        assert names[drug_id] == drug
        edges = lines[1].strip().split("; ")
        assert len(edges) == 2
        diseases = []
        for edge in edges:
            source, target = edge.split(" -[indication]-> ")
            assert target == drug
            assert source in treats[drug_id], f"#{index}: {drug} is not indicated for {source}"
            diseases.append(source)
        assert diseases[0] != diseases[1]
    again = _kgcert(data_dir, "specs", "sample", DUAL, "--kg", "alz", "--n", "3", "--seed", "1")
    assert again.returncode == 0, again.stderr
    assert again.stdout == three_samples


def test_start_draws_the_same_sample(data_dir, three_samples):
    done = _kgcert(data_dir, "specs", "sample", DUAL, "--kg", "alz", "--n", "1", "--seed", "1",
                   "--start", "2")
    assert done.returncode == 0, done.stderr
    assert _samples(done.stdout) == {2: _samples(three_samples)[2]}


def test_count_with_cypher_agrees(data_dir):
    done = _kgcert(data_dir, "specs", "count", DUAL_PATH, "--kg", "alz", "--cypher")
    assert done.returncode == 0, done.stderr
    sampler = re.search(r"^primekg\.dual_indication: ([\d,]+) matches \(enumerated\);",
                        done.stdout, re.M)
    server = re.search(r"^server-side Cypher count: ([\d,]+)$", done.stdout, re.M)
    assert sampler and server, done.stdout
    assert sampler.group(1) == server.group(1) == f"{DUAL_MATCHES:,}"


def test_unknown_kg_exits_3(data_dir):
    done = _kgcert(data_dir, "specs", "sample", DUAL_PATH, "--kg", "nope")
    line = _one_error_line(done, 3)
    assert re.fullmatch(r"error: no KG named 'nope' on embedded server \(bolt://[\d.:]+\) "
                        r"\(loaded KGs: alz\)", line), line


def test_run_rejects_a_bad_half_width_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kgcert", "run", "--kg", "x", "--spec", "s",
                           "--model", "bernoulli:0.5", "--half-width", "0.7"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "KGCERT_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "half_width" in lines[0]


EXPOSURE = "primekg.exposure_drug"  # the one shipped spec with distractors in the extract


def test_count_and_validate_report_the_distractor_shares_at_a_budget(data_dir):
    """Issue 35 item 5: the share of questions with distractor candidates and of
    distractor-setting prompts that keep one, at the run's default budget or `--budget`."""
    def shares(*args: str) -> dict:
        done = _kgcert(data_dir, "specs", "count", EXPOSURE, "--kg", "alz", "--json",
                       "--draws", "40", *args)
        assert done.returncode == 0, done.stderr
        [counted] = [json.loads(line) for line in done.stdout.splitlines()]
        return counted["distractor_setting"]

    roomy, tight = shares(), shares("--budget", "2750")
    assert roomy["budget"] == "12000 characters" and tight["budget"] == "2750 characters"
    assert roomy["with_distractor_candidates"] == tight["with_distractor_candidates"] > 0
    assert roomy["keeping_a_distractor"] == roomy["with_distractor_candidates"]
    # at 2,750 characters the worked examples leave room for little more than the question's
    # own sentences: prompts with distractors are skipped by that cause, none keeps one
    assert tight["keeping_a_distractor"] == 0 and tight["skip_causes"]["no distractor fits"]
    done = _kgcert(data_dir, "specs", "validate", EXPOSURE, DUAL, "--kg", "alz", "--json")
    assert done.returncode == 0, done.stderr
    checked = {row["name"]: row["distractor_setting"]
               for row in map(json.loads, done.stdout.splitlines())}
    assert checked[DUAL]["probe"] == 20 and checked[DUAL]["with_distractor_candidates"] == 0
    assert checked[EXPOSURE]["keeping_a_distractor"] > 0


def test_run_refuses_a_distractor_setting_that_would_hold_none(data_dir, tmp_path):
    """Before any model call, in one line: a spec without distractor candidates, and one whose
    distractor sentences do not fit the budget."""
    base = ("run", "--kg", "alz", "--model", "oracle", "--setting", "distractor", "--seed", "0")
    line = _one_error_line(_kgcert(data_dir, *base, "--spec", DUAL, "--n", "50",
                                   "--out", str(tmp_path / "none")), 2)
    assert "none of the run's first 30 prompts of setting distractor holds a distractor" in line
    assert "has a Definition 2.3 distractor candidate" in line
    line = _one_error_line(_kgcert(data_dir, *base, "--spec", EXPOSURE, "--n", "50",
                                   "--budget", "2750", "--out", str(tmp_path / "tight")), 2)
    assert "no distractor sentence fits the budget of 2750 characters" in line
    assert not (tmp_path / "none").exists() and not (tmp_path / "tight").exists()
    done = _kgcert(data_dir, *base, "--spec", EXPOSURE, "--n", "20", "--json",
                   "--out", str(tmp_path / "held"))
    assert done.returncode == 0, done.stderr
    [certificate] = [json.loads(line) for line in done.stdout.splitlines()]
    assert certificate["conditioning"]["distractors_in_context"]["prompts_with"] > 0
