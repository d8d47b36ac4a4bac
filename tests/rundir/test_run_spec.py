"""`RunSpec`: parsed once, written whole as run.yaml and read back by `RunDir` alone, hashed
to the same design hash and run-folder fingerprint as main 5e25278 computed (pinned here),
and run.yaml the same bytes as main wrote for the same commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from run_yaml_commands import run_yaml_of_commands

from kgcert.errors import InputError
from kgcert.run.start import saved_spec
from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.run_file_keys import load_run_file_keys
from kgcert.rundir.run_spec import RunSpec
from kgcert.writeback.run_files import read_config

PINNED_RUN_YAML = Path(__file__).with_name("run_yaml_at_5e25278.json")

CONFIGS = {
    "plain": {"kg": "toy", "specs": ("toy.treats",), "models": ("oracle",)},
    "rich": {"kg": "toy", "specs": ("a.b", "c.d"), "models": ("oracle", "random"), "n": 40,
             "confidence": 0.9, "seed": 7, "settings": ("vanilla", "distractor"),
             "few_shot": 2, "options": 5, "simultaneous": True, "context_tokens": 500,
             "budget": "per-model", "model_options": {"random": {"seed": 3}},
             "prices": {"oracle": "1/2"}},
    "extendable": {"kg": "toy", "specs": ("a.b",), "models": ("oracle",), "extendable": True,
                   "n": 10, "sequential": {"threshold": 0.8}},
    "race": {"kg": "toy", "specs": ("a.b",), "models": ("oracle", "random"),
             "until": "ranked", "margin": 0.05, "strategies": ("standard", "cot"),
             "baseline": 5},
    "suite": {"kg": "toy", "specs": ("a.b", "c.d"), "models": ("oracle",),
              "suite": {"name": "s", "specs": ("a.b", "c.d"), "weights": (0.25, 0.75),
                        "weighting": "explicit"}, "formats": ("list", "json")},
}
# (design hash, run-folder fingerprint) of each config, computed with main 5e25278's code
MAIN_HASHES = {
    "plain": ("2cb65cb26de29460", "b77e44b40ffcd390"),
    "rich": ("316c838bf03c811c", "545a0550968a0ee3"),
    "extendable": ("647ff08442ce1fa5", "f4528168aef41706"),
    "race": ("06217a54d7835798", "d86e33e4ec29303c"),
    "suite": ("b29daa49dd53bde4", "2195cfd94a020a45"),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_spec_parsed_written_and_read_back_is_equal_and_hashes_as_main(
        name: str, tmp_path: Path) -> None:
    spec = RunSpec.parse(None, CONFIGS[name])
    run = RunDir.create(tmp_path / "run")
    run.write_run_spec(spec)
    again = run.read_run_spec()
    assert again == spec and again.settings() == spec.settings()
    assert (spec.design_hash(), spec.fingerprint()) == MAIN_HASHES[name]
    assert (again.design_hash(), again.fingerprint()) == MAIN_HASHES[name]
    # the same file a run file passed back with --config reads as
    assert RunSpec.parse(run.layout.run_file, {}) == spec


def test_the_groups_hold_the_flat_keys(tmp_path: Path) -> None:
    spec = RunSpec.parse(None, CONFIGS["rich"])
    assert spec.kg.name == "toy" and spec.specs.names == ("a.b", "c.d")
    assert spec.models.options_of("random") == {"seed": 3} and spec.models.options_of("x") == {}
    assert (spec.prompts.options, spec.prompts.few_shot, spec.prompts.prompt_budget.limit) == (
        5, 2, 12000)
    assert spec.budget.per_model and spec.budget.context_tokens == 500
    assert (spec.design.n, spec.design.confidence, spec.design.simultaneous) == (40, 0.9, True)
    assert spec.seed.value == 7 and spec.seed.source == "given"
    suite = RunSpec.parse(None, CONFIGS["suite"])
    assert suite.specs.weights == (0.25, 0.75)


def test_written_twice_keeps_the_first_unless_replaced(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path / "run")
    first, second = (RunSpec.parse(None, CONFIGS[name]) for name in ("plain", "race"))
    run.write_run_spec(first)
    run.write_run_spec(second, replace=False)
    assert run.read_run_spec() == first
    run.write_run_spec(second)
    assert run.read_run_spec() == second


def test_a_run_without_run_yaml_reads_none_and_a_damaged_one_is_refused_in_one_line(
        tmp_path: Path) -> None:
    run = RunDir.create(tmp_path / "run")
    assert run.read_run_spec() is None
    run.layout.run_file.write_text("- a list\n")
    with pytest.raises(InputError, match="must be a YAML mapping"):
        run.read_run_spec()
    run.layout.run_file.write_text("kg: toy\nspecs: [a.b]\nmodels: [oracle]\nn: 0\n")
    with pytest.raises(InputError) as caught:
        run.read_run_spec()
    assert "\n" not in str(caught.value) and "n:" in str(caught.value)


OLDER_RUN_YAML = """\
kg: alz_shared
specs:
- primekg.exposure_drug
models:
- bernoulli:0.7
model_options: {}
settings:
- vanilla
formats:
- list
n: 4
confidence: 0.95
seed: 3
options: 4
few_shot: 1
batch_size: 16
max_new_tokens: 128
temperature: 0.0
mode: generate
context_chars: 12000
context_tokens: null
sequential: null
simultaneous: false
baseline: 0
cache: true
"""


def test_an_older_run_yaml_reads_as_main_read_it(tmp_path: Path) -> None:
    """A run.yaml from before runs had one budget (no seed_source, none of the later keys):
    a resume takes its budget as per-model, write-back its fingerprint as main did (pinned)."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.yaml").write_text(OLDER_RUN_YAML)
    spec = RunDir.open(folder).read_run_spec()
    assert spec is not None and spec.older_budget and spec.budget.mode == "run"
    resumed = saved_spec(folder)
    assert resumed is not None and resumed.budget.mode == "per-model"
    assert resumed.design_hash() == "3a87cfd2c18cd45c"
    written_back = read_config(folder)
    assert (written_back.budget.mode, written_back.fingerprint()) == ("run", "f83183297d49db6a")
    assert spec.design_hash() == "d00beb774ae0e353"
    # a run.yaml of today is not an older one
    RunDir.open(folder).write_run_spec(spec)
    assert not RunDir.open(folder).read_run_spec().older_budget  # type: ignore[union-attr]


def test_run_yaml_is_the_bytes_main_wrote_for_the_same_commands(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path, monkeypatch) -> None:
    """A fresh run, a resume adding a model, an extendable race with a baseline, and a run
    from that race's run.yaml passed back with --config: each run.yaml as main 5e25278 wrote
    it (run_yaml_commands.py on that checkout pinned them)."""
    # a record of looks of its own: the session's data dir holds other tests' runs of these
    # prompts at another n, which would make these runs extensions of them
    monkeypatch.setattr("kgcert.run.look_record.LOOKS_DIR", str(tmp_path / "looks"))
    pinned = json.loads(PINNED_RUN_YAML.read_text(encoding="utf-8"))
    found = run_yaml_of_commands(embedded_data_dir, tmp_path)
    assert sorted(found) == sorted(pinned)
    for name, text in pinned.items():
        assert found[name] == text.encode(), name
    assert found["from_run_file"] == found["race"]
    assert yaml.safe_load(found["added_model"])["models"] == ["bernoulli:0.7", "bernoulli:0.4"]
    spec = RunDir.open(tmp_path / "race").read_run_spec()
    assert spec is not None and spec.design.until == "ranked"
    certificate = next((tmp_path / "race" / "certificates").glob("*.json"))
    assert json.loads(certificate.read_text())["design"] == spec.design_hash()


def test_the_flat_parser_and_the_spec_agree() -> None:
    config = load_run_file_keys(None, CONFIGS["race"])
    assert RunSpec.from_keys(config).settings() == config.model_dump(mode="json")


def test_run_settings_are_the_keys_as_written_for_summaries_and_reports(tmp_path: Path) -> None:
    """A partial or hand-edited run.yaml still shows in `runs` and reports, as before."""
    from kgcert.rundir.browse import summarize

    run = RunDir.create(tmp_path / "run")
    assert run.run_settings() == {}
    run.layout.run_file.write_text("kg: toy\nn: 60\nseed: 0\n")
    assert run.run_settings() == {"kg": "toy", "n": 60, "seed": 0}
    assert summarize(run.root).as_dict()["kg"] == "toy"
    with pytest.raises(InputError, match="no specs given"):
        run.read_run_spec()  # what a run resumes from must be whole
    run.layout.run_file.write_text("kg: [toy\n")
    [problem] = summarize(run.root).problems
    assert problem.startswith(f"{run.layout.run_file}: not valid YAML at line")


def test_few_shot_is_checked_once_by_prompt_settings_in_the_words_a_run_always_used(
        tmp_path: Path) -> None:
    """The parser leaves few_shot to PromptSettings (its one check); a run names the bad key
    as the parser names its own, a prompt command as its flag, and either is one line."""
    from cli_process import kgcert_process

    from kgcert.prompts.settings import PromptSettings
    from kgcert.rundir.run_file_keys import RunFileKeys

    keys = {"kg": "k", "specs": ("s",), "models": ("oracle",)}
    assert RunFileKeys.model_validate({**keys, "few_shot": 9}).few_shot == 9  # not checked here
    with pytest.raises(InputError, match=r"^few-shot examples: 0 to 5, got 9$"):
        PromptSettings(few_shot=9)
    with pytest.raises(InputError, match=r"^run settings: few_shot: Input should be less than "
                                         r"or equal to 5$"):
        RunSpec.of(**keys, few_shot=9)
    for shots, bound in (("9", "less than or equal to 5"), ("-1", "greater than or equal to 0")):
        done = kgcert_process("run", "--kg", "k", "--spec", "s", "--model", "oracle",
                              "--few-shot", shots, data_dir=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"error: run settings: few_shot: Input should be {bound}\n"
    run_file = tmp_path / "run.yaml"
    run_file.write_text("kg: k\nspecs: [s]\nmodels: [oracle]\nfew_shot: 9\n")
    done = kgcert_process("run", "--config", str(run_file), data_dir=tmp_path)
    assert (done.returncode, done.stderr) == (
        2, f"error: {run_file}: few_shot: Input should be less than or equal to 5\n")
