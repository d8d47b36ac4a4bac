"""Issue 45 item 3: a model added to a finished `--until` run makes another race (another
Holm family). It needs --new-design (recorded in design.json), the earlier comparisons are
kept in comparisons/earlier/, and the new file, the printed lines and the certificates state
the joint level. The simulation runs through settle, record_start, the Runner and its race at
CI size (full size: section (g) of benchmarks/bench_stats.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgcert.certify.comparison import decision_lines
from kgcert.errors import InputError
from kgcert.run.design import read_designs
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.run_dir import RunDir
from kgcert.simulate.race_growth import _run, simulate_growth, wrong_claims

RUNS, N = 150, 150
# three models of one accuracy under three names (each its own stream): every claim that one
# is more accurate than another is wrong
EQUAL = {"bernoulli:0.7": 0.7, "bernoulli:0.70": 0.7}
ADDED = {"bernoulli:0.700": 0.7}


def test_adding_a_model_to_an_until_run_needs_a_new_design_and_keeps_the_earlier_claims(
        tmp_path: Path):
    run = tmp_path / "race"
    first = ["bernoulli:0.9", "bernoulli:0.5"]
    _run(run, 5, first, 200, "ranked", new_design=False)
    path = RunLayout(run).comparison_file("toy", "vanilla")
    before = json.loads(path.read_text())
    assert before["earlier"] == [] and before["joint_confidence"] == pytest.approx(0.95)
    with pytest.raises(InputError) as info:
        _run(run, 5, [*first, "bernoulli:0.7"], 200, "ranked", new_design=False)
    message = str(info.value)
    assert "\n" not in message and "use --new-design to record it" in message
    assert json.loads(path.read_text()) == before  # refused before anything was written
    _run(run, 5, [*first, "bernoulli:0.7"], 200, "ranked", new_design=True)
    assert [d.reason for d in read_designs(run)] == ["start", "new design"]
    after = json.loads(path.read_text())
    [kept] = RunLayout(run).earlier_comparisons_dir.glob("*.json")
    earlier = json.loads(kept.read_text())
    assert earlier["pairs"] == before["pairs"] and earlier["design"] == before["design"]
    assert earlier["later"]["joint_confidence"] == pytest.approx(0.90)
    assert after["joint_confidence"] == pytest.approx(0.90)
    assert after["earlier"][0]["design"] == before["design"]
    assert "at least 0.9" in after["holds"]
    [line] = decision_lines(RunDir.open(run))
    assert "claims hold together at 0.95, and with the earlier designs' claims" in line
    assert "at 0.9)" in line
    certificates = {json.loads(p.read_text())["model"]: json.loads(p.read_text())
                    for p in (run / "certificates").glob("*.json")}
    for model in first:  # their samples were read under the first design
        assert certificates[model]["looks"]["joint_confidence"] == pytest.approx(0.90)
        assert certificates[model]["guarantee"].startswith("With probability at least 0.9,")
    # a resume of the new design keeps the record of the earlier one
    _run(run, 5, [*first, "bernoulli:0.7"], 200, "ranked", new_design=False)
    assert json.loads(path.read_text())["earlier"] == after["earlier"]


def test_wrong_claims_are_scored_against_the_true_accuracies():
    body = {"pairs": [{"first": "a", "second": "b", "decision": "first better"},
                      {"first": "a", "second": "c", "decision": "second better"},
                      {"first": "b", "second": "c", "decision": "undecided"}]}
    assert wrong_claims(body, {"a": 0.7, "b": 0.7, "c": 0.9}) == 1
    assert wrong_claims(body, {"a": 0.6, "b": 0.7, "c": 0.5}) == 2


@pytest.mark.timeout(600)
def test_a_grown_race_errs_at_most_at_the_joint_level_it_states():
    found = simulate_growth(RUNS, first=EQUAL, added=ADDED, n=N, seed=4500)
    assert found.earlier_kept == 1.0  # no earlier claim vanished
    assert found.stated == pytest.approx(0.90)
    # at an error of at most 0.10, more than 24 of 150 has probability about 1%
    assert found.joint_error * RUNS <= 24, found
