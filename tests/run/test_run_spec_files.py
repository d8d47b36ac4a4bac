"""A run reproduces from its own folder (issue 32 item 10): run.yaml records --specs-dir, the
spec files the run used are copied into its folder with their hashes and the runnable Cypher
of their matches, and `kgcert run --config <run>/run.yaml` works after the user's spec folder
is gone and the run folder has moved. On a synthetic PrimeKG in the session's embedded server,
commands run in this process through the CLI's own error handling."""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from kg_helpers import load_kg

from kgcert.synth.primekg import SyntheticPrimeKG

KG = "specfiles_synth"
SPEC = (Path(__file__).resolve().parents[2] / "specs" / "primekg" / "dual_indication.yaml")


@pytest.fixture(scope="module")
def synth_kg(embedded_server, tmp_path_factory):
    folder = tmp_path_factory.mktemp("specfiles")
    SyntheticPrimeKG(scale=0.003, seed=3).write_kg_csv(folder / "kg.csv")
    store, _ = load_kg(embedded_server, "primekg", [folder / "kg.csv"], KG)
    return store


@pytest.fixture
def kgcert_here(synth_kg, embedded_data_dir, monkeypatch, capsys):
    """`kgcert ARGS` in this process on the session's server: (exit code, stdout, stderr)."""
    from kgcert.cli import _run
    from kgcert.cli import run as run_module

    catalog = importlib.import_module("kgcert.specs.catalog")
    monkeypatch.setenv("KGCERT_DATA_DIR", str(embedded_data_dir))
    monkeypatch.setattr(catalog, "_run_copies", {})  # as in a fresh process
    monkeypatch.setattr(catalog, "_run_copy_digests", {})

    def call(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["kgcert", *args])
        capsys.readouterr()
        code = _run()
        for lock in run_module._locks:
            lock.close()
        run_module._locks.clear()
        out = capsys.readouterr()
        return code, out.out, out.err

    return call


def _certificates(run: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (json.loads(p.read_text())["k"], json.loads(p.read_text())["n"])
            for p in (run / "certificates").glob("*.json")}


def test_a_run_keeps_its_specs_and_reruns_from_its_folder(kgcert_here, synth_kg, tmp_path):
    mine = tmp_path / "myspecs"
    mine.mkdir()
    text = SPEC.read_text().replace("primekg.dual_indication", "my.dual")
    (mine / "dual.yaml").write_text(text)
    run = tmp_path / "runs" / "a"
    code, _, err = kgcert_here("run", "--kg", KG, "--spec", "my.dual", "--spec",
                               "primekg.dual_indication", "--specs-dir", str(mine),
                               "--model", "bernoulli:0.7", "--n", "6", "--out", str(run))
    assert code == 0, err
    assert yaml.safe_load((run / "run.yaml").read_text())["specs_dirs"] == [str(mine.resolve())]
    index = json.loads((run / "specs" / "index.json").read_text())
    assert set(index) == {"my.dual", "primekg.dual_indication"}
    mine_entry = index["my.dual"]
    assert (run / mine_entry["file"]).read_text() == text
    assert mine_entry["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert mine_entry["source"] == str((mine / "dual.yaml").resolve())
    bodies = [json.loads(p.read_text()) for p in (run / "certificates").glob("*.json")]
    assert {b["spec_hash"] for b in bodies} == {e["spec_hash"] for e in index.values()}
    cypher = mine_entry["cypher"]
    assert "{{" not in cypher and "MATCH" in cypher
    rows = synth_kg.query(cypher)  # runnable as shown
    assert 0 < len(rows) <= 25 and {"a", "d", "b", "d_id"} <= set(rows[0])
    before = _certificates(run)

    shutil.rmtree(mine)  # the user's folder is gone, the run folder moves
    moved = tmp_path / "elsewhere" / "a"
    moved.parent.mkdir()
    shutil.move(run, moved)
    code, _, err = kgcert_here("run", "--config", str(moved / "run.yaml"), "--out", str(moved))
    assert code == 0, err
    assert _certificates(moved) == before  # resumed: nothing new to ask
    again = tmp_path / "again"
    code, _, err = kgcert_here("run", "--config", str(moved / "run.yaml"), "--out", str(again))
    assert code == 0, err
    assert _certificates(again) == before  # the same prompts and answers, from the copies


def test_specs_show_prints_runnable_cypher(kgcert_here):
    code, out, err = kgcert_here("specs", "show", "primekg.dual_indication", "--kg", KG)
    assert code == 0, err
    assert "MATCH" in out and "{{" not in out


def test_specs_list_and_validate_with_kg_keep_to_its_family(kgcert_here):
    """Issue 32 item 9: `--kg` lists and validates the specs written for the KG's family and
    says how many others were left out, and why."""
    code, out, err = kgcert_here("specs", "list", "--kg", KG, "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and {row["kg"] for row in rows} == {"primekg"}
    rows = [row for row in rows if row["kind"] != "suite"]  # validate checks the specs
    code, out, err = kgcert_here("specs", "list", "--kg", KG)
    assert code == 0 and "specs for other KG families left out" in out
    code, out, err = kgcert_here("specs", "validate", "--kg", KG)
    checked = [line for line in out.splitlines() if line.startswith("ok  ")]
    failed = [line for line in err.splitlines() if line.startswith("error: spec ")]
    assert len(checked) + len(failed) == len(rows)  # only this family's specs were checked
    assert all(".primekg." in f" .{line.split()[1]}" or "primekg." in line
               for line in checked)
    assert f"specs for other KG families left out (KG {KG} was loaded from primekg" in out


def test_info_shows_which_way_each_relation_points(kgcert_here):
    code, out, err = kgcert_here("info", "--kg", KG, "--json")
    assert code == 0, err
    [report] = [json.loads(line) for line in out.splitlines()]  # one object per line
    assert "drug -> disease" in report["directions"]["indication"]
    code, out, err = kgcert_here("info", "--kg", KG)
    assert "points from -> to" in out and "drug -> disease" in out


def test_count_describes_questions_and_run_warns_before_asking(kgcert_here, tmp_path):
    """Issue 32 item 9: `specs count` says how many answers a question accepts and how many
    questions have distractors; `run` warns before any model call when --n exceeds the
    matches, and (issue 35 item 5) refuses a distractor setting that would hold none."""
    code, out, err = kgcert_here("specs", "count", "primekg.dual_indication", "--kg", KG,
                                 "--json", "--draws", "30")
    assert code == 0, err
    [counted] = [json.loads(line) for line in out.splitlines()]
    assert counted["draws"] == 30 and 1 <= counted["answers_median"] <= counted["answers_max"]
    assert counted["with_distractors"] == 0  # both of its edges end at the answer
    assert counted["distractor_setting"]["with_distractor_candidates"] == 0
    assert counted["distractor_setting"]["keeping_a_distractor"] == 0
    matches = counted["matches"]
    assert matches is not None and matches < 400, counted
    code, out, err = kgcert_here("run", "--kg", KG, "--spec", "primekg.dual_indication",
                                 "--model", "bernoulli:0.7", "--setting", "distractor",
                                 "--n", str(matches + 1), "--limit", "3",
                                 "--out", str(tmp_path / "run"))
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "none of the run's first 3 prompts of setting distractor holds a distractor" in err
    assert not (tmp_path / "run").exists()  # refused before any model call
    code, out, err = kgcert_here("run", "--kg", KG, "--spec", "primekg.dual_indication",
                                 "--model", "bernoulli:0.7", "--n", str(matches + 1),
                                 "--out", str(tmp_path / "big"))
    assert code == 0, err
    warned = [line for line in err.splitlines() if "exceeds" in line]
    assert warned and warned[0].startswith(f"warning: primekg.dual_indication: --n "
                                           f"{matches + 1} exceeds its {matches:,} matches")


def test_the_readme_example_spec_runs_on_the_demo_kg(kgcert_here, alzheimer_kg, tmp_path):
    """The relation spec shown in README.md validates, with matches, on the demo extract."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.S)
                 if b.startswith("kind: relation"))
    spec = tmp_path / "off_label.yaml"
    spec.write_text(block)
    code, out, err = kgcert_here("specs", "validate", str(spec), "--kg", alzheimer_kg.name,
                                 "--json")
    assert code == 0, err
    [checked] = [json.loads(line) for line in out.splitlines()]
    assert checked["ok"] and checked["matches"] > 0


def test_an_edited_copy_is_refused_by_resume_and_flagged_by_report(kgcert_here, tmp_path):
    """The copy in the run folder stands for the spec the run used only while it holds the
    bytes recorded (issue 46, item 6)."""
    mine = tmp_path / "myspecs"
    mine.mkdir()
    text = SPEC.read_text().replace("primekg.dual_indication", "my.edited")
    (mine / "dual.yaml").write_text(text)
    run = tmp_path / "runs" / "a"
    code, _, err = kgcert_here("run", "--kg", KG, "--spec", "my.edited", "--specs-dir",
                               str(mine), "--model", "bernoulli:0.7", "--n", "6", "--out",
                               str(run))
    assert code == 0, err
    shutil.rmtree(mine)
    copy = run / json.loads((run / "specs" / "index.json").read_text())["my.edited"]["file"]
    copy.write_text(text.replace("description:", "description: edited later;"))
    code, _, err = kgcert_here("run", "--config", str(run / "run.yaml"), "--out", str(run))
    assert code == 2, err
    [line] = err.strip().splitlines()
    assert str(copy) in line and "was edited since its run copied it" in line
    code, _, err = kgcert_here("report", str(run), "--out", str(tmp_path / "report"))
    assert code == 0, err
    page = "".join(p.read_text() for p in (tmp_path / "report").rglob("*.html"))
    assert "was edited since run" in page and "The spec file as the run used it" not in page
