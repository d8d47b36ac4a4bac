"""`run --until ranked|best`: the models of a (spec, setting) are compared as they answer and
stop being asked once decided, through the real pipeline (Alzheimer extract, bernoulli
models); the decisions go to the run, its certificates are anytime-valid and its cost block
says the calls saved against fixed n."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from alzheimer_kg_fixture import ALZHEIMER_KG
from click.testing import CliRunner
from run_cli import kgcert

from kgcert.cli.runs import runs_command
from kgcert.rundir.sample_log import complete_records

KG = ALZHEIMER_KG  # shared read-only: these tests only run on it
SPEC = "primekg.exposure_drug"


def _run(data: Path, out: Path, *extra: str, seed: str = "5"):
    return kgcert(data, "run", "--kg", KG, "--spec", SPEC, "--model", "bernoulli:0.95",
                  "--model", "bernoulli:0.3", "--few-shot", "1", "--seed", seed, "--n", "250",
                  "--batch-size", "4", "--out", str(out), *extra)


def test_ranked_stops_far_before_n_with_the_right_decision(alzheimer_kg, embedded_data_dir,
                                                           tmp_path):
    out = tmp_path / "ranked"
    done = _run(embedded_data_dir, out, "--until", "ranked")
    assert done.exit_code == 0, done.output
    recorded = yaml.safe_load((out / "run.yaml").read_text())
    assert recorded["until"] == "ranked" and recorded["margin"] is None
    [decisions] = (out / "comparisons").glob("*.json")
    body = json.loads(decisions.read_text())
    [pair] = body["pairs"]
    assert pair["decision"] in ("first better", "second better")
    assert pair["claim"] == "bernoulli:0.95 is more accurate than bernoulli:0.3"
    assert body["finished"] and body["indices_fed"] < 100  # far before --n 250
    for path in (out / "certificates").glob("*.json"):
        cert = json.loads(path.read_text())
        assert cert["validity"].startswith("anytime-valid")
        assert cert["sequential"]["until"] == "ranked"
        stop = cert["sequential"]["stopped_at_index"]
        assert stop is not None and stop < 100
        # the certificate counts the samples up to the stop, and the bounds hold for the
        # model's true accuracy
        samples = [r for _, r in complete_records(out / cert["sample_file"])]
        assert cert["samples_recorded"] == sum(1 for r in samples if r.index <= stop)
        truth = float(cert["model"].split(":")[1])
        assert cert["lower"] <= truth <= cert["upper"]
        assert cert["design"] == body["design"]
        cost = cert["cost"]
        assert cost["fixed_n_calls"] > 150 and cost["calls_saved"] > 100
        assert cost["calls_saved"] == cost["fixed_n_calls"] - cost["calls"] - cost["cache_hits"]
    said = " ".join(done.output.split())
    assert "bernoulli:0.95 is more accurate than bernoulli:0.3" in said
    listed = CliRunner().invoke(runs_command, [str(tmp_path)])
    assert listed.exit_code == 0, listed.output
    said = " ".join(listed.output.split())
    assert "bernoulli:0.95 is more accurate than bernoulli:0.3" in said
    assert "saved vs fixed n" in said


def test_a_resume_replays_the_same_decisions_and_a_changed_rule_is_refused(
        alzheimer_kg, embedded_data_dir, tmp_path):
    out = tmp_path / "best"
    # another seed than the ranked test's: the same prompts raced under another rule in
    # another folder would be refused (the data dir's record of looks)
    first = _run(embedded_data_dir, out, "--until", "best", seed="6")
    assert first.exit_code == 0, first.output
    before = json.loads(next((out / "comparisons").glob("*.json")).read_text())
    again = _run(embedded_data_dir, out, "--until", "best", seed="6")
    assert again.exit_code == 0, again.output
    assert json.loads(next((out / "comparisons").glob("*.json")).read_text()) == before
    assert before["models"][1]["eliminated"] and not before["models"][0]["eliminated"]
    changed = _run(embedded_data_dir, out, "--until", "ranked", seed="6")
    assert changed.exit_code != 0 and "until" in str(changed.exception or changed.output)


def test_until_needs_two_models_and_margin_needs_until(alzheimer_kg, embedded_data_dir, tmp_path):
    one = kgcert(embedded_data_dir, "run", "--kg", KG, "--spec", SPEC, "--model",
                 "bernoulli:0.9", "--until", "ranked", "--out", str(tmp_path / "one"))
    assert one.exit_code != 0 and "at least two" in str(one.exception)
    margin = _run(embedded_data_dir, tmp_path / "m", "--margin", "0.1")
    assert margin.exit_code != 0 and "margin goes with until" in str(margin.exception)
