"""`RunDir` reads and writes a run's comparisons, spec index, entity names, sample files and
lock at the paths runs of earlier kgcert versions used, and takes a missing or damaged file
as absent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcert.certify.comparison import decision_lines, write_comparison
from kgcert.errors import InputError
from kgcert.rundir.run_dir import RunDir, run_dir_of
from kgcert.rundir.sample_record import SampleRecord


def _comparison(design: str, confidence: float = 0.95) -> dict:
    return {"spec": "s", "setting": "vanilla", "design": design, "until": "ranked",
            "confidence": confidence, "n": 10, "indices_fed": 4, "finished": True,
            "holds": "every claim below holds", "models": [{"model": "a"}, {"model": "b"}],
            "pairs": [{"claim": "a is more accurate than b"}]}


def test_comparisons_live_where_earlier_runs_kept_them(tmp_path: Path):
    run = RunDir.create(tmp_path / "run")
    write_comparison(run, "s", "vanilla", _comparison("d1"))
    assert (run.root / "comparisons" / "s__vanilla.json").is_file()
    assert run.compare_file == run.root / "report" / "compare.json"
    assert run.read_comparison("s", "vanilla")["design"] == "d1"
    write_comparison(run, "s", "vanilla", _comparison("d2"))
    [kept] = (run.root / "comparisons" / "earlier").glob("*.json")
    assert kept.name == "s__vanilla__design-d1.json"
    [earlier] = run.earlier_comparisons()
    assert earlier["later"]["design"] == "d2"
    now = run.read_comparison("s", "vanilla")
    assert now["earlier"][0]["file"] == "earlier/s__vanilla__design-d1.json"
    assert now["joint_confidence"] == pytest.approx(0.90)
    [line] = decision_lines(run)
    assert line.startswith("s / vanilla (--until ranked, stopped after 4 of n = 10 indices")
    assert "a is more accurate than b" in line


def test_a_damaged_comparison_is_named_not_fatal(tmp_path: Path):
    run = RunDir.create(tmp_path / "run")
    (run.root / "comparisons").mkdir()
    (run.root / "comparisons" / "x__y.json").write_text("{not json")
    assert run.read_comparison("x", "y") is None
    [line] = decision_lines(run)
    assert line.endswith("x__y.json: not a comparison record")


def test_spec_index_and_entity_names_absent_read_empty_and_round_trip(tmp_path: Path):
    run = run_dir_of(tmp_path / "run")
    assert run.spec_index() == {} and run.spec_copies() == {} and run.entity_names() == {}
    assert not run.has_entity_names()
    run.write_entity_names({"e1": "Aspirin"})
    assert json.loads((run.root / "entity_names.json").read_text()) == {"e1": "Aspirin"}
    assert run.entity_names() == {"e1": "Aspirin"}
    (run.root / "specs").mkdir()
    (run.root / "specs" / "a.yaml").write_text("name: a\n")
    (run.root / "specs" / "index.json").write_text(json.dumps(
        {"a": {"file": "specs/a.yaml", "sha256": "0" * 64}, "b": "not an entry"}))
    assert run.spec_copies() == {"a": (run.root / "specs" / "a.yaml", "0" * 64)}
    copy = run.root / "specs" / "a.yaml"
    assert run.spec_copy_text(copy) == "name: a\n"
    assert run.spec_copy_edited(copy, "0" * 64) and not run.spec_copy_edited(copy, None)
    assert run.spec_copy_text(run.root / "specs" / "gone.yaml") is None


def test_sample_files_are_read_through_the_run(tmp_path: Path):
    run = RunDir.create(tmp_path / "run")
    log = run.sample_log("s", "vanilla", "m")
    log.append([SampleRecord(index=0, outcome="correct"), SampleRecord(index=1, outcome="wrong")])
    with log.path.open("a") as out:
        out.write('{"index": 2, "outc')  # a write cut short
    [path] = run.sample_files()
    assert path == log.path
    assert [r.index for _, r in run.sample_records(path)] == [0, 1]
    assert run.sample_lines(path) == 3
    assert run.sample_files_by_setting() == [[path]]
    assert list(run.failed_calls(log)) == []


def test_the_lock_is_held_once(tmp_path: Path):
    run = run_dir_of(tmp_path / "new" / "run")
    held = run.lock()
    try:
        assert run.holds_only_lock()
        with pytest.raises(InputError) as refused:
            run.lock()
        assert str(refused.value) == f"another kgcert run is writing to {run.root}"
    finally:
        held.close()
    run.lock().close()  # free again once the holder closed it
