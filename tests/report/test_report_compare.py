"""`kgcert compare` and the report commands on real run directories.

The bernoulli models share one seed and are coupled (one stream), so their outcomes are
nested: bernoulli:0.9 is correct on every prompt bernoulli:0.6 gets right (the same uniform
draw is compared with p), and the paired test must find 0.9 better with c = 0.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from test_report_tables import RELATION, N, make_runs, sample_records

from kgcert.errors import InputError
from kgcert.report import align, compare, compare_json, load_runs
from kgcert.stats import holm_adjust, mcnemar

ANSWERED = ("correct", "wrong", "unparseable")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_runs(tmp_path_factory.mktemp("compare-runs"))


def kgcert(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """Run the command line in-process (the report commands added to the group) and return
    its exit code as `kgcert` would."""
    from kgcert import cli as cli_module
    from kgcert.cli import report as report_cli

    for command in report_cli.COMMANDS:
        assert command.name is not None
        monkeypatch.setitem(cli_module.cli.commands, command.name, command)
    monkeypatch.setattr(sys, "argv", ["kgcert", *[str(a) for a in args]])
    return cli_module._run()


def aligned_from_files(runs: tuple[Path, ...], spec: str, setting: str
                       ) -> tuple[list[int], dict[str, np.ndarray]]:
    by_model: dict[str, dict[int, str]] = {}
    for record in sample_records(*runs):
        if record["spec"] == spec and record["setting"] == setting:
            by_model.setdefault(record["model"], {})[record["index"]] = record["outcome"]
    shared = sorted(set.intersection(*(set(v) for v in by_model.values())))
    kept = [i for i in shared if all(v[i] in ANSWERED for v in by_model.values())]
    return kept, {model: np.array([v[i] == "correct" for i in kept])
                  for model, v in by_model.items()}


def test_compare_finds_the_better_model_with_exact_p_values(runs):
    samples = load_runs(list(runs)).samples
    results = {(c.spec, c.setting): c for c in compare(samples, alpha=0.05)}
    # The relation spec's vanilla setting has four models (one from run B); every other
    # job has the three models of run A.
    assert len(results) == 9
    item = results[(RELATION, "vanilla")]
    indices, outcomes = aligned_from_files(runs, RELATION, "vanilla")
    assert list(item.alignment.indices) == indices
    assert all(i % 17 != 5 and i % 13 != 3 for i in indices)  # skipped and failed dropped
    assert item.alignment.failed == N - len(indices)
    assert set(item.alignment.outcomes) == set(outcomes) == {
        "bernoulli:0.9", "bernoulli:0.6", "bernoulli:0.75", "bernoulli:0.8"}
    ranked = item.hierarchy
    assert ranked is not None
    for first, second in combinations(sorted(outcomes), 2):
        pair = ranked.comparison(first, second)
        expected = mcnemar(outcomes[pair.test.model_a], outcomes[pair.test.model_b])
        assert (pair.test.b, pair.test.c, pair.test.n) == (expected.b, expected.c, expected.n)
        assert pair.test.p_value == expected.p_value
    raw = [pair.test.p_value for pair in ranked.comparisons]
    assert [pair.adjusted_p for pair in ranked.comparisons] == pytest.approx(holm_adjust(raw))
    best = ranked.comparison("bernoulli:0.9", "bernoulli:0.6")
    assert best.test.model_a == "bernoulli:0.9" and best.test.c == 0 and best.test.b > 0
    assert best.reject and best.better == "bernoulli:0.9"
    assert "bernoulli:0.9" in ranked.groups[0] and "bernoulli:0.6" not in ranked.groups[0]


def test_prompt_mismatch_is_dropped_and_counted(runs):
    samples = load_runs([runs[0]]).samples.copy()
    where = ((samples["spec"] == RELATION) & (samples["setting"] == "vanilla")
             & (samples["model"] == "bernoulli:0.9") & (samples["index"] == 0))
    samples.loc[where, "prompt_sha"] = "different"
    aligned = align(samples, RELATION, "vanilla")
    assert aligned.mismatched == 1 and 0 not in aligned.indices


def test_one_model_in_two_runs_is_told_apart(runs, tmp_path):
    copy = tmp_path / "run-c"
    shutil.copytree(runs[1], copy)
    (result,) = compare(load_runs([runs[1], copy]).samples)
    assert set(result.alignment.outcomes) == {"bernoulli:0.8 (run-b)", "bernoulli:0.8 (run-c)"}
    assert result.hierarchy is not None and len(result.hierarchy.groups) == 1  # identical
    with pytest.raises(InputError, match="nothing to compare"):
        compare(load_runs([runs[1]]).samples)
    with pytest.raises(InputError, match="no samples for spec 'nope'"):
        compare(load_runs([runs[0]]).samples, spec="nope")


def test_compare_command_writes_compare_json(runs, tmp_path, monkeypatch, capsys):
    out = tmp_path / "cmp"
    code = kgcert(monkeypatch, "compare", *runs, "--spec", RELATION, "--setting", "vanilla",
                  "--out", out)
    printed = capsys.readouterr().out
    assert code == 0, printed
    body = json.loads((out / "compare.json").read_text())
    expected = compare_json(compare(load_runs(list(runs)).samples, spec=RELATION,
                                    setting="vanilla"), alpha=0.05,
                            runs=[str(r) for r in runs])
    assert body == json.loads(json.dumps(expected))
    (only,) = body["comparisons"]
    assert only["hierarchy"]["ordering"][0] == "bernoulli:0.9"
    assert "hierarchy" in printed and "bernoulli:0.9" in printed and str(out) in printed
    # Issue 45 item 7: the pair's own test is labelled unadjusted and said to claim nothing;
    # only the Holm column is the family's claim
    assert "unadjusted" in printed and "Holm better" in printed and "no claim" in printed
    pair = only["pairwise"][0]
    assert "unadjusted_decision" in pair and "decision" not in pair


def test_compare_of_other_runs_never_overwrites_a_comparison(runs, tmp_path, monkeypatch,
                                                             capsys):
    """Issue 32 item 6: two runs compared go beside them under a name of both, one run into
    its report folder, and a .json --out is the file itself; each readable like the report."""
    copy = runs[0].parent / "run-c"
    if not copy.exists():
        shutil.copytree(runs[1], copy)
    assert kgcert(monkeypatch, "compare", *runs, "--spec", RELATION) == 0
    assert kgcert(monkeypatch, "compare", runs[1], copy, "--spec", RELATION) == 0
    assert kgcert(monkeypatch, "compare", runs[0], "--spec", RELATION) == 0
    named = runs[0].parent / f"compare-{runs[0].name}+{runs[1].name}.json"
    other = runs[0].parent / f"compare-{runs[1].name}+run-c.json"
    alone = runs[0] / "report" / "compare.json"
    assert json.loads(named.read_text())["runs"] == [str(r) for r in runs]
    assert json.loads(other.read_text())["runs"] == [str(runs[1]), str(copy)]
    assert json.loads(alone.read_text())["runs"] == [str(runs[0])]
    file = tmp_path / "mine.json"
    assert kgcert(monkeypatch, "compare", *runs, "--spec", RELATION, "--out", file) == 0
    printed = capsys.readouterr().out
    assert file.is_file() and str(file) in printed
    mask = os.umask(0)
    os.umask(mask)
    for path in (named, other, alone, file):  # as the report's files, not owner-only
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_report_command(runs, tmp_path, monkeypatch, capsys):
    out = tmp_path / "rep"
    code = kgcert(monkeypatch, "report", *runs, "--out", out, "--no-figures")
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert (out / "report.html").exists() and str(out / "report.html") in printed
    assert "Mean of the certificates' bounds over specs" in printed and RELATION in printed
    assert not (out / "figures").exists()


def test_default_out_is_inside_the_first_run(runs, tmp_path, monkeypatch, capsys):
    run = tmp_path / "run"
    shutil.copytree(runs[1], run)
    assert kgcert(monkeypatch, "report", run, "--no-figures") == 0
    assert (run / "report" / "report.html").exists()
    capsys.readouterr()


def test_bad_input_exits_2_with_one_line(runs, tmp_path, monkeypatch, capsys):
    (tmp_path / "plain").mkdir()
    for args in (("report", tmp_path / "plain"), ("report", tmp_path / "missing"),
                 ("compare", tmp_path / "plain"), ("compare", runs[1]),
                 ("compare", runs[0], "--setting", "nope"),
                 ("compare", runs[0], "--alpha", "1.5")):
        code = kgcert(monkeypatch, *args)
        captured = capsys.readouterr()
        assert code == 2, (args, captured)
        lines = [line for line in captured.err.splitlines() if line.strip()]
        assert len(lines) >= 1 and "Traceback" not in captured.err, captured.err
    assert kgcert(monkeypatch, "report", tmp_path / "plain") == 2
    assert "not a run directory" in capsys.readouterr().err


def test_runs_on_different_kgs_are_not_paired(runs, tmp_path, monkeypatch, capsys):
    """Issue 33: prompt i on another graph is another prompt; pairing the few whose text
    happens to match is refused, naming both fingerprints."""
    def on_kg(run: Path, fingerprint: str) -> Path:
        copy = tmp_path / f"{run.name}-{fingerprint[:4]}"
        shutil.copytree(run, copy, ignore=shutil.ignore_patterns("compare*.json"))
        for path in (copy / "certificates").glob("*.json"):
            body = json.loads(path.read_text())
            path.write_text(json.dumps({**body, "kg": "toy", "kg_fingerprint": fingerprint}))
        return copy

    first, second = on_kg(runs[0], "a" * 16), on_kg(runs[1], "b" * 16)
    code = kgcert(monkeypatch, "compare", first, second)
    captured = capsys.readouterr()
    assert code == 2, captured
    [line] = captured.err.splitlines()
    assert "a" * 16 in line and "b" * 16 in line and "cannot be paired" in line
    assert not (first / "report" / "compare.json").exists()  # nothing written, anywhere
    assert not list(tmp_path.glob("compare-*.json"))
    same = on_kg(runs[1], "a" * 16)  # one KG: compared as before
    assert kgcert(monkeypatch, "compare", first, same, "--out", tmp_path / "cmp") == 0
    capsys.readouterr()


def test_run_family_adjusts_every_pair_of_every_spec_and_setting_together(runs):
    samples = load_runs(list(runs)).samples
    apart = compare(samples, alpha=0.05)
    joint = compare(samples, alpha=0.05, family="run")
    raw = [p.test.p_value for c in apart if c.hierarchy for p in c.hierarchy.comparisons]
    together = [p.adjusted_p for c in joint if c.hierarchy for p in c.hierarchy.comparisons]
    assert together == pytest.approx(holm_adjust(raw))
    per_spec = [p.adjusted_p for c in apart if c.hierarchy for p in c.hierarchy.comparisons]
    assert all(j >= s - 1e-12 for j, s in zip(together, per_spec, strict=True))
    assert any(j > s for j, s in zip(together, per_spec, strict=True))  # a larger family
    body = compare_json(joint, alpha=0.05, family="run")
    assert body["family"] == "run" and f"all {len(raw)} pairs" in body["family_statement"]
    assert "no correction across them" in compare_json(apart, alpha=0.05)["family_statement"]
    with pytest.raises(InputError, match="family must be one of"):
        compare(samples, family="everything")
