"""The typed `Certificate` reads what kgcert 5e25278 wrote and writes it back unchanged.

main_5e25278/ holds real certificates written by kgcert 5e25278 (before the type existed, so
with no `record_version`): a fixed-n run of two models, an `--extendable` run grown from
n = 20 to 40 (its earlier look kept), a suite with `--weights matches`, an `--until ranked`
race and a run resumed at another n with `--new-design` (its earlier look kept), all with
bernoulli test models on the demo KG. Each reads as version 1 and re-serialises to the same
JSON; written again it carries `record_version` 2 and nothing else new; its sentences,
rendered again from its own fields, are the ones 5e25278 wrote.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from kgcert.certify.earlier import superseded_look
from kgcert.certify.record import CERTIFICATE_RECORD_VERSION, Certificate
from kgcert.certify.sentences import guarantee_sentence, warnings
from kgcert.errors import InputError
from kgcert.rundir.run_dir import RunDir, read_certificate

FIXTURES = Path(__file__).parent / "main_5e25278"
WRITTEN = sorted(FIXTURES.glob("*.json"))


def _body(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_fixtures_cover_every_kind_of_run():
    kinds = {path.name.split("__")[0] for path in WRITTEN}
    assert kinds == {"fixed", "grow", "suite", "ranked", "resumed"}
    assert sum("__earlier__" in path.name for path in WRITTEN) == 2


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.name[:40])
def test_a_certificate_of_5e25278_reads_as_version_1_and_writes_back_unchanged(path):
    body = _body(path)
    cert = read_certificate(path)
    assert cert.version == 1 and "record_version" not in body
    assert cert.to_dict() == body
    assert json.dumps(cert.to_dict()) == json.dumps(body)  # the keys in their order too
    written = cert.written()
    assert written == {**body, "record_version": CERTIFICATE_RECORD_VERSION}
    again = Certificate.read(json.loads(json.dumps(written)), path)
    assert again.version == CERTIFICATE_RECORD_VERSION and again.written() == written


@pytest.mark.parametrize("path", WRITTEN, ids=lambda p: p.name[:40])
def test_the_sentences_rendered_from_the_fields_are_the_ones_written(path):
    cert = read_certificate(path)
    assert guarantee_sentence(cert) == cert.guarantee
    shown = [w for w in cert.warnings if "degenerate choices" not in w]
    assert warnings(cert) == shown


def test_attributes_say_what_the_json_holds():
    suite = read_certificate(next(p for p in WRITTEN if p.name.startswith("suite")))
    assert suite.suite is not None and suite.suite.weighting == "matches"
    assert [c.spec for c in suite.suite.components] == [
        "primekg.dual_indication", "primekg.contraindication_indication", "primekg.off_label"]
    assert suite.suite_counts is not None
    assert sum(row.drawn for row in suite.suite_counts.per_spec) == suite.conditioning.drawn
    ranked = read_certificate(next(p for p in WRITTEN if p.name.startswith("ranked")))
    assert ranked.sequential is not None and ranked.sequential.until == "ranked"
    assert ranked.last_index == ranked.sequential.stopped_at_index
    assert ranked.cost is not None and ranked.cost.calls_saved == (
        ranked.cost.fixed_n_calls - ranked.cost.calls)
    fixed = read_certificate(next(p for p in WRITTEN if p.name.startswith("fixed")))
    assert fixed.counts.correct + fixed.counts.wrong == fixed.n
    assert fixed.unconditional is not None and fixed.unconditional.sided == "lower"
    assert fixed.key == (fixed.spec, fixed.setting, fixed.model)


def test_keys_keep_the_order_they_were_read_in():
    body = _body(WRITTEN[0])
    body["cost"] = dict(reversed(list(body["cost"].items())))
    shuffled = dict(reversed(list(body.items())))
    assert json.dumps(Certificate.read(shuffled, "c.json").to_dict()) == json.dumps(shuffled)


def test_keys_the_type_does_not_model_are_kept_in_place():
    body = {**_body(WRITTEN[0]), "textualization": "json", "future_field": {"a": [1, 2]}}
    body["conditioning"] = {**body["conditioning"], "new_count": 3}
    cert = Certificate.read(body, "c.json")
    assert cert.unmodelled["future_field"] == {"a": [1, 2]}
    assert cert.conditioning is not None and cert.conditioning.unmodelled == {"new_count": 3}
    assert cert.to_dict() == body


def test_an_older_certificate_without_later_fields_keeps_them_absent():
    body = _body(WRITTEN[0])
    for name in ("looks", "cost", "positions", "multiplicity", "population"):
        body.pop(name)
    body["outcomes"].pop("refused")
    cert = Certificate.read(body, "c.json")
    assert cert.looks is None and cert.outcomes is not None and cert.outcomes.refused is None
    assert cert.to_dict() == body


def test_a_newer_version_or_a_wrong_type_is_refused_in_one_line(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**_body(WRITTEN[0]), "record_version": 3}))
    with pytest.raises(InputError) as refused:
        read_certificate(path)
    assert str(refused.value) == (f"{path}: record_version 3 is newer than the 2 this kgcert "
                                  "reads: written by a newer kgcert; upgrade kgcert to read it")
    path.write_text(json.dumps({**_body(WRITTEN[0]), "looks": [1]}))
    with pytest.raises(InputError) as damaged:
        read_certificate(path)
    assert str(damaged.value) == (f"{path}: field looks is [1], expected a mapping; the "
                                  "certificate was edited or damaged")
    body = _body(WRITTEN[0])
    body["suite"] = {"name": "s", "components": ["a"]}
    path.write_text(json.dumps(body))
    with pytest.raises(InputError, match="field suite.components is .*expected a list of "
                                         "mappings"):
        read_certificate(path)


def test_the_run_directory_writes_a_later_look_and_keeps_the_earlier(tmp_path):
    """The grown run's certificates, written again through RunDir: the n = 20 look, then the
    n = 40 look, give the files 5e25278 wrote (with record_version 2)."""
    grown = read_certificate(next(p for p in WRITTEN if p.name.startswith("grow__primekg")))
    kept = read_certificate(next(p for p in WRITTEN if p.name.startswith("grow__earlier")))
    run = RunDir.create(tmp_path / "run")
    # the first look as it was written, before the later one said it was superseded
    first = dataclasses.replace(kept, looks=dataclasses.replace(
        kept.looks, later=None, absent=kept.looks.absent | {"later"}))
    first = dataclasses.replace(first, guarantee=guarantee_sentence(first))
    run.write_certificate(first)
    stored = run.certificate(first.spec, first.setting, first.model)
    assert stored is not None and stored.written() == first.written()
    assert run.history() == {run.certificate_path(first).name: [20]}
    path = run.write_certificate(grown)
    assert _body(path) == grown.written()
    [earlier] = run.earlier_looks()
    assert earlier.written() == kept.written()
    assert run.written_at(grown.spec, grown.setting, grown.model) == list(grown.written_at_n)
    assert [c.key for c in run.certificates()] == [grown.key]
    assert superseded_look(grown, grown) is None  # the same look again keeps nothing


def test_run_directories_of_5e25278_read_through_the_run_directory(tmp_path):
    run = tmp_path / "run"
    (run / "certificates").mkdir(parents=True)
    for path in WRITTEN:
        if path.name.startswith("fixed__"):
            shutil.copy(path, run / "certificates" / path.name.removeprefix("fixed__"))
    found = RunDir.open(run).certificates()
    assert [c.model for c in found] == ["bernoulli:0.6", "oracle"]
    assert all(c.version == 1 for c in found)
    assert RunDir.open(run).certificate("primekg.exposure_drug", "vanilla", "nobody") is None
