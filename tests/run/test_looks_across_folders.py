"""Issue 45 item 2: the data dir keeps a record of looks keyed by what makes prompts the
same, so the same seed run again into a new folder with another n is an extension of the
earlier run: refused in one line, or with --new-design certified as one (the anytime-valid
sequence, the joint level of every look stated). The publish-or-extend simulation runs
through the Runner and the record at CI size (full size: section (h) of
benchmarks/bench_stats.py); without the record the second certificate says "n fixed in
advance", which is what made the scenario miss more often than it stated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alzheimer_kg_fixture import ALZHEIMER_KG
from run_cli import kgcert

from kgcert.errors import InputError
from kgcert.run.look_record import LookRecord, prompts_key
from kgcert.simulate.rerun import run_into, simulate_rerun

RUNS = 300


def test_a_rerun_with_the_same_seed_and_another_n_is_refused_or_an_extension(tmp_path: Path):
    data = tmp_path / "data"
    first = run_into(tmp_path / "a", data, 7, 100).to_dict()
    assert first["validity"] == "fixed n"
    with pytest.raises(InputError) as info:
        run_into(tmp_path / "b", data, 7, 400)
    message = str(info.value)
    assert "\n" not in message and "were already looked at in" in message
    assert str((tmp_path / "a").resolve()) in message and "--new-design" in message
    assert not (tmp_path / "b" / "samples").exists()  # refused before the first answer
    # the same look again (same n, level and rule) states the same thing: allowed, and
    # it spends nothing more when the run is then extended
    again = run_into(tmp_path / "c", data, 7, 100).to_dict()
    assert (again["k"], again["validity"]) == (first["k"], "fixed n")
    grown = run_into(tmp_path / "b", data, 7, 400, new_design=True).to_dict()
    assert grown["method"].startswith("beta-binomial mixture confidence sequence")
    assert grown["looks"]["joint_confidence"] == pytest.approx(0.90)
    assert grown["guarantee"].startswith("With probability at least 0.9, jointly over every "
                                         "look at these samples (another run's look at these "
                                         "prompts:")
    assert "another run looked at the same prompts" in grown["validity"]
    # another seed is other prompts: nothing to refuse
    assert run_into(tmp_path / "d", data, 8, 400).to_dict()["validity"] == "fixed n"
    # without the record (as before), the second run claimed n fixed in advance
    blind = run_into(tmp_path / "e", None, 7, 400).to_dict()
    assert blind["validity"] == "fixed n"


def test_the_key_is_what_makes_prompts_the_same():
    context = {"kg_fingerprint": "f", "budget": "12000 characters", "few_shot": 3,
               "spec_file": "/one/place.yaml"}
    key = prompts_key(context, "h", "vanilla", 1, "m", {"provider": "x"})
    assert prompts_key({**context, "spec_file": "/another.yaml"}, "h", "vanilla", 1, "m",
                       {"provider": "x"}) == key  # where the spec file was found: the same
    for changed in (prompts_key({**context, "few_shot": 2}, "h", "vanilla", 1, "m", {}),
                    prompts_key(context, "h2", "vanilla", 1, "m", {"provider": "x"}),
                    prompts_key(context, "h", "distractor", 1, "m", {"provider": "x"}),
                    prompts_key(context, "h", "vanilla", 2, "m", {"provider": "x"}),
                    prompts_key(context, "h", "vanilla", 1, "m2", {"provider": "x"}),
                    prompts_key({**context, "kg_fingerprint": "g"}, "h", "vanilla", 1, "m",
                                {"provider": "x"})):
        assert changed != key


@pytest.mark.timeout(600)
def test_publish_or_extend_across_folders_misses_at_most_its_stated_level():
    found = simulate_rerun(RUNS, p=0.5, p0=0.5, n1=100, n2=400, seed=45_000)
    assert found.stated == pytest.approx(0.90) and found.extended > 0.8
    # at a miss rate of at most 0.10, more than 42 of 300 has probability about 1%
    assert found.miss * RUNS <= 42, found


def test_answers_from_the_response_cache_have_the_same_key(tmp_path: Path):
    from kgcert.models.base import GenerationConfig
    from kgcert.models.cache import CachedModel, ResponseCache
    from kgcert.models.registry import get_model

    model = get_model("bernoulli:0.7", GenerationConfig())
    cached = CachedModel(model, ResponseCache(tmp_path / "responses"))
    context = {"kg_fingerprint": "f"}
    assert (prompts_key(context, "h", "vanilla", 1, "m", cached.identity())
            == prompts_key(context, "h", "vanilla", 1, "m", model.identity()))


def test_a_cli_rerun_into_a_new_folder_is_refused_before_the_first_answer(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    """The real command: the record lives in the data dir."""
    def run(out: str, n: str, *extra: str):
        return kgcert(embedded_data_dir, "run", "--kg", ALZHEIMER_KG, "--spec",
                      "primekg.exposure_drug", "--model", "oracle", "--few-shot", "2",
                      "--seed", "4545", "--n", n, "--out", str(tmp_path / out), *extra)

    assert run("first", "10").exit_code == 0
    refused = run("second", "20")
    assert isinstance(refused.exception, InputError), refused.output
    assert "were already looked at in" in str(refused.exception)
    assert not (tmp_path / "second").exists()  # nothing left behind
    assert run("same", "10").exit_code == 0  # the same look again
    done = run("second", "20", "--new-design")
    assert done.exit_code == 0, done.output
    [path] = (tmp_path / "second" / "certificates").glob("*.json")
    body = json.loads(path.read_text())
    assert body["looks"]["joint_confidence"] == pytest.approx(0.90)
    assert list(LookRecord(embedded_data_dir.resolve()).folder.glob("*.jsonl"))


def test_a_declared_extension_of_a_repeated_look_is_not_refused(tmp_path: Path):
    """Run b states run a's look again; growing b then counts that look once, as its own."""
    from kgcert.run.look_record import RecordedLook

    record = LookRecord(tmp_path)
    record.add("k", RecordedLook("/a", "t1", "n20", 20, 0.95))
    record.add("k", RecordedLook("/b", "t2", "n20", 20, 0.95))
    assert record.elsewhere("k", "/b", "t2") == []  # a's look is b's own first look
    record.add("k", RecordedLook("/a", "t1", "n80", 80, 0.95))
    [other] = record.elsewhere("k", "/b", "t2")
    assert (other.run, other.n) == ("/a", 80)
    assert {look.run for look in record.elsewhere("k", "/c", None)} == {"/a", "/b"}


def test_run_help_says_what_new_design_covers():
    from click.testing import CliRunner

    from kgcert.cli.run import run_command

    shown = " ".join(CliRunner().invoke(run_command, ["--help"]).output.split())
    assert "the models of an --until race" in shown
    assert "run prompts another folder already looked at as its extension" in shown
    assert "(n, confidence, settings" not in shown  # settings change the prompts: refused
