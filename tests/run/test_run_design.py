"""Every choice fixed before the first answer (the design, hashed into every certificate, a
drawn and recorded seed, resumes that cannot change the design), and extensions that hold
(a declared extension, a new design stating the joint level of its looks, n changes seen in
the samples themselves), through `kgcert run` on the Alzheimer extract with bernoulli."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from alzheimer_kg_fixture import ALZHEIMER_KG
from run_cli import kgcert

from kgcert.errors import InputError
from kgcert.run.design import DesignEntry
from kgcert.run.looks import plan_look
from kgcert.rundir.sample_record import SampleRecord

KG = ALZHEIMER_KG  # shared read-only: these tests only run on it
SPEC = "primekg.exposure_drug"


def _run(data: Path, out: Path, *extra: str):
    return kgcert(data, "run", "--kg", KG, "--spec", SPEC, "--model", "bernoulli:0.7",
                  "--setting", "vanilla", "--few-shot", "1", "--out", str(out), *extra)


def _certificate(out: Path) -> dict[str, Any]:
    [path] = (out / "certificates").glob("*.json")
    return json.loads(path.read_text())


def test_a_resume_that_changes_the_design_is_refused_naming_the_field(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    out = tmp_path / "run"
    assert _run(embedded_data_dir, out, "--n", "12").exit_code == 0
    body = _certificate(out)
    assert body["design"] and body["validity"] == "fixed n"
    for flags, field in ((("--n", "20"), "n"), (("--n", "12", "--confidence", "0.9"),
                                                "confidence"),
                         (("--n", "12", "--seed", "5"), "seed")):
        refused = _run(embedded_data_dir, out, *flags)
        assert isinstance(refused.exception, InputError), refused.output
        message = str(refused.exception)
        assert "\n" not in message and f"{field} was " in message, message
    resumed = _run(embedded_data_dir, out, "--n", "12", "--batch-size", "3")
    assert resumed.exit_code == 0, resumed.output  # batching is not part of the design
    assert _certificate(out)["design"] == body["design"]


def test_the_default_seed_is_drawn_fresh_per_run_and_a_given_one_reproduces(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    seeds = []
    for name in ("a", "b"):
        assert _run(embedded_data_dir, tmp_path / name, "--n", "6").exit_code == 0
        body = _certificate(tmp_path / name)
        assert body["seed_source"] == "drawn" and "drawn fresh" in body["guarantee"]
        seeds.append(body["seed"])
    assert seeds[0] != seeds[1]  # two new runs do not re-draw the same prompts
    for name in ("c", "d"):
        assert _run(embedded_data_dir, tmp_path / name, "--n", "6", "--seed", "7").exit_code == 0
    c, d = _certificate(tmp_path / "c"), _certificate(tmp_path / "d")
    assert c["seed_source"] == "given" and (c["k"], c["seed"]) == (d["k"], 7)


def test_a_new_design_is_recorded_and_both_looks_state_their_joint_level(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    out = tmp_path / "run"
    assert _run(embedded_data_dir, out, "--n", "10").exit_code == 0
    first = _certificate(out)
    extended = _run(embedded_data_dir, out, "--n", "20", "--new-design")
    assert extended.exit_code == 0, extended.output
    designs = json.loads((out / "design.json").read_text())["designs"]
    assert [d["reason"] for d in designs] == ["start", "new design"]
    body = _certificate(out)
    assert body["design"] != first["design"] and body["method"].startswith("beta-binomial")
    assert body["looks"]["joint_confidence"] == pytest.approx(0.90)
    assert "jointly over every look" in body["guarantee"]
    [earlier] = (out / "certificates" / "earlier").glob("*.json")
    kept = json.loads(earlier.read_text())
    assert (kept["k"], kept["n"]) == (first["k"], first["n"])
    assert kept["looks"]["joint_confidence"] == pytest.approx(0.90)
    assert "at least 0.9, jointly over every look" in kept["guarantee"]


def test_a_declared_extension_spends_half_of_delta_per_look_and_needs_no_new_design(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    out = tmp_path / "run"
    assert _run(embedded_data_dir, out, "--n", "10", "--extendable").exit_code == 0
    first = _certificate(out)
    assert first["method"].startswith("clopper") and first["confidence"] == pytest.approx(0.975)
    assert first["looks"]["joint_confidence"] == pytest.approx(0.95)
    grown = _run(embedded_data_dir, out, "--n", "20", "--extendable")
    assert grown.exit_code == 0, grown.output
    body = _certificate(out)
    assert body["method"].startswith("beta-binomial") and body["confidence"] == pytest.approx(
        0.975)
    assert body["looks"]["joint_confidence"] == pytest.approx(0.95)


def _drawn(index: int, design: str | None) -> SampleRecord:
    return SampleRecord(index=index, outcome="correct", design=design)


def _entry(name: str, n: int, extendable: bool = False) -> DesignEntry:
    return DesignEntry(name, 0.95, n, False, extendable, "start", "")


def test_n_changes_are_seen_in_the_samples_not_in_what_was_written():
    """Interrupt a run designed for 200 and restart it for 100: nothing was ever written,
    yet the samples past index 99 (and their design) show that n moved."""
    records = {i: _drawn(i, "big") for i in range(150)}
    look = plan_look(records, total=100, confidence=0.95, design="small", sequential=False,
                     extendable=False, designs=[_entry("big", 200), _entry("small", 100)])
    assert look.anytime and look.joint_confidence == pytest.approx(0.90)
    legacy = {i: _drawn(i, None) for i in range(150)}  # older samples carry no design
    look = plan_look(legacy, total=100, confidence=0.95, design="small", sequential=False,
                     extendable=False)
    assert look.anytime and look.joint_confidence == pytest.approx(0.90)
    untouched = plan_look({i: _drawn(i, "d") for i in range(100)}, total=100,
                          confidence=0.95, design="d", sequential=False, extendable=False,
                          designs=[_entry("d", 100)])
    assert not untouched.anytime and untouched.confidence == 0.95


@pytest.mark.parametrize("declared", [True, False])
def test_read_then_extend_misses_at_most_its_stated_level(declared: bool):
    from kgcert.simulate.extension import read_then_extend

    result = read_then_extend(np.random.default_rng(35), p=0.5, p0=0.5, n1=60, n2=200,
                              delta=0.05, declared=declared, reps=500)
    stated_miss = 1 - result.stated
    assert stated_miss == pytest.approx(0.05 if declared else 0.10)
    assert result.miss <= stated_miss + 3 * np.sqrt(stated_miss * (1 - stated_miss) / 500)


def test_interrupt_then_shrink_misses_at_most_its_stated_level():
    from kgcert.simulate.extension import interrupt_then_shrink

    result = interrupt_then_shrink(np.random.default_rng(36), p=0.5, n_big=200, n_min=30,
                                   delta=0.05, reps=500)
    assert result.miss <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 500)
    assert 1 - result.stated == pytest.approx(0.10)


def test_live_progress_shows_only_the_pre_registered_quantity():
    from kgcert.cli.run_display import _interim

    # fixed n: no interim interval, and at n the certificate's own in the table
    assert _interim(None, 250, 100) == "bounds once n = 250 is reached"
    assert _interim(None, 250, 250) == "bounds in the table below"
    assert _interim((0.4, 0.6), 250, 100) == "anytime-valid [0.400, 0.600]"
    assert _interim((0.4, 0.6), 250, 40, stopped=True) == (
        "stopped before n = 250, anytime-valid [0.400, 0.600]")


def test_a_run_from_before_designs_resumes_and_stays_readable(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    """run.yaml without the new keys and samples without a design: the resume keeps the
    per-model budgets those samples were drawn with and certifies them as before."""
    import yaml

    out = tmp_path / "old"
    assert _run(embedded_data_dir, out, "--n", "8", "--seed", "0").exit_code == 0
    saved = yaml.safe_load((out / "run.yaml").read_text())
    for key in ("seed_source", "budget", "run_budget", "extendable"):
        saved.pop(key)
    (out / "run.yaml").write_text(yaml.safe_dump(saved))
    (out / "design.json").unlink()
    [samples] = (out / "samples").glob("*/*/*.jsonl")
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    samples.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "design"}) + "\n"
                               for r in records))
    resumed = _run(embedded_data_dir, out, "--n", "8")
    assert resumed.exit_code == 0, resumed.output
    body = _certificate(out)
    assert body["validity"] == "fixed n" and body["seed"] == 0
    assert yaml.safe_load((out / "run.yaml").read_text())["budget"] == "per-model"
