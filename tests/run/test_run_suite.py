"""Suite certificates: index i draws a spec by its weight from its own stream, then that
spec's own prompt i, so one certificate covers the mixture. The draws are checked against the
weights (chi-square), the prompts against the specs' own, and a suite run on the Alzheimer
extract writes one certificate whose numbers recompute from its sample file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from alzheimer_kg_fixture import ALZHEIMER_KG
from run_cli import kgcert

from kgcert.errors import InputError
from kgcert.run.suite import (
    SuiteConfig,
    drawn_component,
    load_suite_file,
    mixture,
    parse_weights,
    suite_of,
)

KG = ALZHEIMER_KG  # shared read-only: these tests only run on it
EXPOSURE, DUAL = "primekg.exposure_drug", "primekg.dual_indication"


def _suite(*weights: float, name: str = "s") -> SuiteConfig:
    return SuiteConfig(name=name, specs=tuple(f"spec{j}" for j in range(len(weights))),
                       weights=weights)


@pytest.mark.parametrize("weights", [(0.5, 0.3, 0.2), tuple(1 / 9 for _ in range(9)),
                                     (0.9, 0.05, 0.05)])
def test_spec_draws_fit_the_weights(weights: tuple[float, ...]):
    from scipy.stats import chisquare

    draws = 20_000
    suite = _suite(*weights)
    counts = Counter(drawn_component(11, suite, i) for i in range(draws))
    observed = [counts[j] for j in range(len(weights))]
    assert chisquare(observed, [w * draws for w in weights]).pvalue > 1e-3, observed


def test_a_wrong_mixture_is_told_apart_so_the_fit_test_can_fail():
    from scipy.stats import chisquare

    counts = Counter(drawn_component(11, _suite(0.5, 0.3, 0.2), i) for i in range(20_000))
    observed = [counts[j] for j in range(3)]
    assert chisquare(observed, [0.45 * 20_000, 0.35 * 20_000, 0.2 * 20_000]).pvalue < 1e-6


def test_draws_depend_on_seed_suite_and_index_only():
    suite = _suite(0.5, 0.5)
    first = [drawn_component(3, suite, i) for i in range(200)]
    assert [drawn_component(3, suite, i) for i in reversed(range(200))][::-1] == first
    assert [drawn_component(4, suite, i) for i in range(200)] != first
    assert [drawn_component(3, _suite(0.5, 0.5, name="t"), i) for i in range(200)] != first


def test_prompt_i_of_the_suite_is_the_drawn_specs_own_prompt_i():
    suite = _suite(0.2, 0.8)
    prompt = mixture(5, suite, [lambda i, j=j: (j, i) for j in range(2)])
    for i in range(300):
        assert prompt(i) == (drawn_component(5, suite, i), i)


def test_weights_equal_explicit_matches_and_refused():
    specs = [EXPOSURE, DUAL]
    assert parse_weights(None, specs) == ((0.5, 0.5), "equal")
    assert parse_weights("matches", specs) == ((), "matches")  # counted with the graph open
    assert parse_weights("exposure_drug=3,primekg.dual_indication=1", specs) == (
        (0.75, 0.25), "explicit")
    for bad in ("exposure_drug=1", "exposure_drug=1,dual_indication=0", "nope=1,dual=1",
                "exposure_drug=1,exposure_drug=2,dual_indication=1", "exposure_drug",
                "matches=1"):
        with pytest.raises(InputError) as caught:
            parse_weights(bad, specs)
        assert "\n" not in str(caught.value)


def test_suite_files_state_their_specs_and_weights(tmp_path: Path):
    table1 = suite_of("primekg.table1", (), None, [])
    assert len(table1.specs) == 9 and "primekg.side_effect_indication" not in table1.specs
    assert table1.weights == tuple(1 / 9 for _ in range(9)) and table1.weighting == "equal"
    path = tmp_path / "mine.yaml"
    path.write_text(f"kind: suite\nname: mine\nspecs:\n  - {{spec: {EXPOSURE}, weight: 1}}\n"
                    f"  - {{spec: {DUAL}, weight: 3}}\n")
    assert load_suite_file(path).weights == (0.25, 0.75)
    assert suite_of("mine", (), None, [tmp_path]).name == "mine"  # found by name
    path.write_text(f"kind: suite\nname: mine\nspecs:\n  - {{spec: {EXPOSURE}, weight: 1}}\n"
                    f"  - {DUAL}\n")
    with pytest.raises(InputError, match="give every spec a weight"):
        load_suite_file(path)
    with pytest.raises(InputError, match="no suite named 'nope'"):
        suite_of("nope", (), None, [tmp_path])


def test_suite_files_are_not_listed_as_specs():
    from kgcert.specs.catalog import catalog

    names = {entry.spec.name for entry in catalog()}
    assert "primekg.table1" not in names and EXPOSURE in names


def _run(data: Path, out: Path, *extra: str):
    return kgcert(data, "run", "--kg", KG, "--model", "bernoulli:0.7", "--few-shot", "1",
                  "--seed", "3", "--n", "40", "--out", str(out), *extra)


def _samples(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_suite_run_writes_one_certificate_that_recomputes_from_its_samples(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    from kgcert.stats import clopper_pearson

    out = tmp_path / "suite"
    done = _run(embedded_data_dir, out, "--suite", "alz.mix", "--spec", EXPOSURE, "--spec", DUAL,
                "--weights", "exposure_drug=0.7,dual_indication=0.3")
    assert done.exit_code == 0, done.output
    assert "not certified" in done.output
    [path] = (out / "certificates").glob("*.json")
    body = json.loads(path.read_text())
    assert body["spec"] == "alz.mix" and body["spec_kind"] == "suite"
    assert [(c["spec"], c["weight"]) for c in body["suite"]["components"]] == [
        (EXPOSURE, 0.7), (DUAL, 0.3)]
    assert "suite alz.mix" in body["guarantee"]
    assert f"{EXPOSURE} (weight 0.7)" in body["guarantee"]
    assert f"{DUAL} (weight 0.3)" in body["guarantee"]
    records = _samples(out / body["sample_file"])
    assert sorted(r["index"] for r in records) == list(range(40))
    answered = [r for r in records if r["outcome"] not in ("skipped", "error")]
    k = sum(r["outcome"] == "correct" for r in answered)
    assert (body["k"], body["n"]) == (k, len(answered))
    bounds = clopper_pearson(k, len(answered), body["confidence"])
    assert (body["lower"], body["upper"]) == pytest.approx((bounds.lower, bounds.upper))
    per_spec = body["suite_counts"]["per_spec"]
    assert body["suite_counts"]["certified"] is False
    assert sum(row["drawn"] for row in per_spec) == 40
    assert sum(row["correct"] for row in per_spec) == k
    suite = SuiteConfig(name="alz.mix", specs=(EXPOSURE, DUAL), weights=(0.7, 0.3),
                        weighting="explicit")
    for record in records:  # each sample is the drawn spec's prompt for the same index
        provenance = record["prompt"]["provenance"]
        assert provenance["spec"] == suite.specs[drawn_component(3, suite, record["index"])]
        assert provenance["index"] == record["index"]

    resumed = _run(embedded_data_dir, out, "--suite", "alz.mix", "--spec", EXPOSURE, "--spec",
                   DUAL, "--weights", "exposure_drug=0.7,dual_indication=0.3")
    assert resumed.exit_code == 0, resumed.output  # the same design resumes, asking nothing
    assert json.loads(path.read_text())["k"] == k and len(_samples(out / body["sample_file"])) == 40
    # the same specs' own runs at the same seed give the same prompt at those indices
    alone = tmp_path / "alone"
    assert _run(embedded_data_dir, alone, "--spec", EXPOSURE, "--spec", DUAL).exit_code == 0
    for spec in (EXPOSURE, DUAL):
        [single] = (alone / "samples").rglob(f"{spec}*/**/*.jsonl")
        own = {r["index"]: r["prompt"]["text"] for r in _samples(single)}
        drawn = [r for r in records if r["prompt"]["provenance"]["spec"] == spec]
        assert drawn and all(r["prompt"]["text"] == own[r["index"]] for r in drawn)
    _the_report_shows_the_suite_beside_the_mean_of_bounds(out, alone, tmp_path / "report",
                                                          body)
    _runs_lists_it_as_a_suite(out, body)


def _runs_lists_it_as_a_suite(run: Path, body: dict) -> None:
    from click.testing import CliRunner

    from kgcert.cli.runs import runs_command

    listed = CliRunner().invoke(runs_command, [str(run)])
    assert listed.exit_code == 0, listed.output
    [row] = [line for line in listed.output.splitlines() if "alz.mix" in line]
    assert "alz.mix (suite)" in row and f"{body['k']} / {body['n']}" in row
    as_json = CliRunner().invoke(runs_command, [str(run), "--json"])
    [cert] = json.loads(as_json.output)["certificates"]
    assert (cert["spec"], cert["spec_kind"]) == ("alz.mix", "suite")


def _the_report_shows_the_suite_beside_the_mean_of_bounds(suite_run: Path, specs_run: Path,
                                                          folder: Path, body: dict) -> None:
    from click.testing import CliRunner

    from kgcert.cli.report import report_command
    from kgcert.report import write_report

    report = write_report([suite_run, specs_run], folder, figures=False)
    own = {c["spec"]: c for c in map(json.loads, map(Path.read_text, (
        specs_run / "certificates").glob("*.json")))}
    # the mean of bounds is over the specs' own certificates only, never the suite's
    [summary] = report.summary.to_dict("records")
    assert summary["specs"] == 2 and summary["mean_lower"] == pytest.approx(
        sum(c["lower"] for c in own.values()) / 2)
    [row] = report.suites.to_dict("records")
    assert (row["suite"], row["k"], row["n"]) == ("alz.mix", body["k"], body["n"])
    assert (row["lower"], row["upper"]) == pytest.approx((body["lower"], body["upper"]))
    assert row["mean_of_bounds_lower"] == pytest.approx(
        0.7 * own[EXPOSURE]["lower"] + 0.3 * own[DUAL]["lower"])  # the suite's weights
    assert row["mean_of_bounds_upper"] == pytest.approx(
        0.7 * own[EXPOSURE]["upper"] + 0.3 * own[DUAL]["upper"])
    assert row["specs_with_certificates"] == "2 of 2"
    assert row["per_spec_not_certified"] == ", ".join(
        f"{r['spec']} {r['correct']}/{r['answered']}" for r in body["suite_counts"]["per_spec"])
    page = (folder / "report.html").read_text()
    summary_html = page[page.index('id="summary"'):page.index('id="reading"')]
    assert "alz.mix" in summary_html and "mean_of_bounds_lower" in summary_html
    assert "not a confidence statement" in summary_html and "not_certified" in summary_html
    assert (folder / "suites.csv").is_file()
    alone = write_report([suite_run], folder / "alone", figures=False).suites
    assert alone["mean_of_bounds_lower"].isna().all()  # no spec certified apart: no mean
    assert alone["specs_with_certificates"].tolist() == ["0 of 2"]

    printed = CliRunner().invoke(report_command, [str(suite_run), str(specs_run), "--out",
                                                  str(folder / "cli"), "--no-figures"])
    assert printed.exit_code == 0, printed.output
    text = " ".join(printed.output.split())
    assert "Suite certificates" in text and "(not certified)" in text
    assert "a mean of bounds, not a confidence statement" in text
    assert f"{body['k']}/{body['n']}" in text


def test_a_suite_naming_a_spec_without_matches_is_refused_at_start(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    for args in (("--suite", "bad", "--spec", EXPOSURE, "--spec", "primekg.synergistic"),
                 ("--suite", "primekg.table1")):
        refused = _run(embedded_data_dir, tmp_path / "bad", *args)
        assert isinstance(refused.exception, InputError), refused.output
        message = str(refused.exception)
        assert "\n" not in message and message.startswith("suite "), message
        assert not (tmp_path / "bad" / "samples").exists()
    refused = _run(embedded_data_dir, tmp_path / "bad", "--spec", EXPOSURE, "--weights", "equal")
    assert isinstance(refused.exception, InputError) and "--suite" in str(refused.exception)


def test_a_sequential_suite_run_stops_with_one_anytime_valid_certificate(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    out = tmp_path / "seq"
    done = kgcert(embedded_data_dir, "run", "--kg", KG, "--model", "bernoulli:0.95",
                  "--few-shot", "1", "--seed", "2", "--n", "400", "--threshold", "0.5",
                  "--suite", "seq", "--spec", EXPOSURE, "--spec", "primekg.off_label",
                  "--out", str(out))
    assert done.exit_code == 0, done.output
    [path] = (out / "certificates").glob("*.json")
    body = json.loads(path.read_text())
    assert body["validity"].startswith("anytime-valid") and body["lower"] > 0.5
    assert body["n"] < 400 and "suite seq" in body["guarantee"]


def test_a_suite_weighted_by_matches_certifies_that_mixture(
        alzheimer_kg, embedded_data_dir: Path, tmp_path: Path):
    """--weights matches through the real pipeline: weights from `specs count`'s exact
    counts, named in the guarantee, kept by a resume, fitted by the spec draws."""
    from scipy.stats import chisquare

    from kgcert.specs import find_spec, prepare_sampler
    from kgcert.stats import clopper_pearson

    specs = (EXPOSURE, DUAL, "primekg.off_label")
    store = alzheimer_kg.store
    counts = [prepare_sampler(find_spec(name, []).spec, store).count() for name in specs]
    assert all(c.matches for c in counts)  # enumerated on the extract: exact
    total = sum(c.matches or 0 for c in counts)
    out = tmp_path / "run"
    args = ("run", "--kg", KG, "--model", "bernoulli:0.7", "--few-shot", "1", "--seed", "4",
            "--n", "30", "--suite", "alz.by_matches", *(x for s in specs for x in ("--spec", s)),
            "--weights", "matches", "--out", str(out))
    done = kgcert(embedded_data_dir, *args)
    assert done.exit_code == 0, done.output
    [path] = (out / "certificates").glob("*.json")
    body = json.loads(path.read_text())
    components = body["suite"]["components"]
    assert body["suite"]["weighting"] == "matches"
    assert [c["matches"] for c in components] == [
        {"count": c.matches, "exact": True} for c in counts]
    weights = [c["weight"] for c in components]
    assert weights == pytest.approx([(c.matches or 0) / total for c in counts])
    for component, counted in zip(components, counts, strict=True):
        assert f"{component['spec']} (weight {component['weight']:.4g})" in body["guarantee"]
        assert f"{component['spec']} {counted.matches:,}" in body["guarantee"]
    assert "share of the specs' matches" in body["guarantee"]

    # the design records the counted weights, and the same command resumes with them
    recorded = yaml.safe_load((out / "run.yaml").read_text())["suite"]
    assert recorded["weights"] == pytest.approx(weights)
    again = kgcert(embedded_data_dir, *args)
    assert again.exit_code == 0, again.output
    assert json.loads(path.read_text())["design"] == body["design"]

    # the spec draws fit those weights (the suite's own stream, over many indices)
    suite = SuiteConfig.model_validate(recorded)
    drawn = Counter(drawn_component(4, suite, i) for i in range(20_000))
    observed = [drawn[j] for j in range(len(specs))]
    assert chisquare(observed, [w * 20_000 for w in weights]).pvalue > 1e-3, observed

    # and the certificate recomputes from its sample file
    records = _samples(out / body["sample_file"])
    assert sorted(r["index"] for r in records) == list(range(30))
    for record in records:
        assert record["prompt"]["provenance"]["spec"] == specs[
            drawn_component(4, suite, record["index"])]
    answered = [r for r in records if r["outcome"] not in ("skipped", "error")]
    k = sum(r["outcome"] == "correct" for r in answered)
    assert (body["k"], body["n"]) == (k, len(answered))
    bounds = clopper_pearson(k, len(answered), body["confidence"])
    assert (body["lower"], body["upper"]) == pytest.approx((bounds.lower, bounds.upper))
    per_spec = {row["spec"]: row for row in body["suite_counts"]["per_spec"]}
    for spec in specs:
        mine = [r for r in records if r["prompt"]["provenance"]["spec"] == spec]
        assert per_spec[spec]["drawn"] == len(mine)
        assert per_spec[spec]["correct"] == sum(r["outcome"] == "correct" for r in mine)
