"""The run directory's typed records: a record read gives back exactly what it was read from
(old records without a version too), and the layout names every file where runs put it."""

from __future__ import annotations

import json

import pytest

from kgcert.answer_format.checker import Outcome
from kgcert.errors import InputError
from kgcert.rundir.layout import RunLayout, check_run_dir, failed_file, slug
from kgcert.rundir.outcomes import ANSWERED, OUTCOMES, REFUSED, SKIPPED
from kgcert.rundir.run_dir import read_certificate
from kgcert.rundir.sample_log import PromptLines, SampleLog, record_line
from kgcert.rundir.sample_record import (
    SAMPLE_RECORD_VERSION,
    SampleRecord,
    SampleResponse,
    sample_record,
)

OLD_ANSWERED = {"index": 3, "spec": "primekg.x", "spec_hash": "abc", "setting": "vanilla",
                "model": "oracle", "prompt": {"text": "Q", "options": ["a", "b"]},
                "outcome": "correct", "parsed_option": 1, "chosen_id": "e1", "parse_note": "",
                "response": {"text": "1", "error": None, "prompt_tokens": 5,
                             "completion_tokens": 1, "latency_s": 0.1}}  # before `cached`
OLD_SKIPPED = {"index": 4, "spec": "primekg.x", "setting": "vanilla", "model": "oracle",
               "prompt": {"text": ""}, "outcome": "skipped", "skip_reason": "budget"}
TASK = {"index": 0, "spec": "t", "setting": "vanilla", "model": "m", "design": "d",
        "outcome": "error", "exact": None, "flexible": None, "error": "boom",
        "response": {"text": None, "error": "boom", "prompt_tokens": None,
                     "completion_tokens": None, "latency_s": 0.2, "cached": False,
                     "gpu_s": 0.5, "choice_probs": [0.25, 0.75]}, "record_version": 1}


@pytest.mark.parametrize("data", [OLD_ANSWERED, OLD_SKIPPED, TASK])
def test_a_record_reads_back_to_the_mapping_it_came_from(data):
    record = SampleRecord.from_dict(data)
    assert record.to_dict() == data
    assert json.dumps(record.to_dict(), sort_keys=True) == json.dumps(data, sort_keys=True)


def test_old_records_have_no_version_and_new_ones_write_it():
    assert SampleRecord.from_dict(OLD_ANSWERED).version is None
    made = SampleRecord(index=0, outcome="wrong", response=SampleResponse(text="2"))
    assert made.to_dict()["record_version"] == SAMPLE_RECORD_VERSION
    assert SampleRecord.from_dict(made.to_dict()) == made


def test_typed_fields_say_what_the_record_holds():
    record = SampleRecord.from_dict(TASK)
    assert record.call_failed and not record.answered and record.key == ("t", "vanilla", "m")
    assert record.response is not None and record.response.choice_probs == (0.25, 0.75)
    assert record.scoring == {"exact": None, "flexible": None, "error": "boom"}
    assert SampleRecord.from_dict(OLD_ANSWERED).correct


def test_a_record_from_a_newer_kgcert_or_no_record_is_refused_naming_it():
    with pytest.raises(InputError, match="f.jsonl: line 2 is not a sample record .*newer"):
        sample_record({**TASK, "record_version": SAMPLE_RECORD_VERSION + 1}, "f.jsonl: line 2")
    with pytest.raises(InputError, match="line 1 is not a sample record"):
        sample_record({"outcome": "correct"}, "f.jsonl: line 1")


def test_the_outcome_tuple_holds_the_checkers_outcomes_and_the_runs_own():
    assert {o.value for o in Outcome} | {REFUSED, SKIPPED} == set(OUTCOMES)
    assert REFUSED in ANSWERED and SKIPPED not in ANSWERED and "error" not in ANSWERED


def test_a_sample_log_keeps_old_lines_byte_for_byte_when_it_sets_failed_calls_aside(tmp_path):
    path = RunLayout(tmp_path).sample_file("primekg.x", "vanilla", "oracle")
    path.parent.mkdir(parents=True)
    lines = [json.dumps(OLD_ANSWERED, sort_keys=True), json.dumps(TASK, sort_keys=True)]
    path.write_text("".join(line + "\n" for line in lines))
    log = SampleLog(path)
    kept = log.retry_failed(log.read())
    assert list(kept) == [3]
    assert path.read_text() == lines[0] + "\n"
    assert failed_file(path).read_text() == lines[1] + "\n"


def test_models_sharing_a_prompts_json_write_the_bytes_each_would_alone(tmp_path):
    """The runner encodes a batch's prompts once for all its models' logs: every line is the
    one a record encoded whole gives, a response that quotes the stand-in for the prompt
    included (that line is encoded whole)."""
    prompt = {"text": "Q: ¿which? \u2013 \x00 \"quoted\"", "options": ["a", "b"],
              "provenance": {"extra": {"nested": [1, 0.5, None, True]}, "nodes": {"b": "y"}}}
    responses = ["1", "\x00kgcert:prompt\x00", "é\n2"]
    records = [SampleRecord(index=7, outcome="correct", spec="primekg.x", setting="vanilla",
                            model=f"m{i}", prompt=prompt, scoring={"parsed_option": 1},
                            response=SampleResponse(text=text, error=None, prompt_tokens=5,
                                                    completion_tokens=1, latency_s=0.1))
               for i, text in enumerate(responses)]
    records.append(SampleRecord(index=8, outcome="skipped", prompt=None, skip_reason="x"))
    shared = PromptLines()
    assert [record_line(r, shared) for r in records] == [record_line(r) for r in records]
    alone, together = SampleLog(tmp_path / "alone.jsonl"), SampleLog(tmp_path / "both.jsonl")
    alone.append(records)
    together.append(records, PromptLines())
    assert together.path.read_bytes() == alone.path.read_bytes()


def test_the_layout_names_the_files_a_run_writes(tmp_path):
    layout = RunLayout(tmp_path / "run")
    assert layout.sample_file("a b", "vanilla", "m") == (
        tmp_path / "run" / "samples" / slug("a b") / "vanilla" / "m.jsonl")
    assert layout.certificate_file("s", "vanilla", "m").name == "s__vanilla__m.json"
    assert not layout.is_run_dir()
    with pytest.raises(InputError, match="does not exist"):
        check_run_dir(layout.root)
    layout.samples_dir.mkdir(parents=True)
    assert check_run_dir(layout.root) == layout.root


def test_a_certificate_with_a_wrongly_typed_field_is_named(tmp_path):
    path = tmp_path / "c.json"
    body = {"spec": "s", "setting": "vanilla", "model": "m", "k": 3, "n": 4, "lower": 0.2,
            "upper": 0.9, "samples_requested": 5, "sequential": None}
    path.write_text(json.dumps(body))
    record = read_certificate(path)
    assert record.to_dict() == body and record.version == 1 and record.last_index == 4
    path.write_text(json.dumps({**body, "k": "3"}))
    with pytest.raises(InputError, match="field k is \"3\", expected a whole number"):
        read_certificate(path)


@pytest.mark.parametrize("version", [True, "1", 0, -1, 1.0, [1]])
def test_what_is_no_version_is_called_so_not_newer(version, tmp_path):
    """`true` passed as version 1 and "1" was called newer (issue 46): each is refused in one
    line saying it is no version, for a sample and for a certificate."""
    with pytest.raises(InputError) as refused:
        sample_record({**TASK, "record_version": version}, "f.jsonl: line 2")
    assert "is not a version" in str(refused.value) and "newer" not in str(refused.value)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"spec": "s", "setting": "vanilla", "model": "m", "k": 1,
                                "n": 2, "record_version": version}))
    with pytest.raises(InputError, match="is not a version"):
        read_certificate(path)


def test_a_newer_version_is_called_newer(tmp_path):
    with pytest.raises(InputError, match=f"record_version {SAMPLE_RECORD_VERSION + 1} is newer"):
        sample_record({**TASK, "record_version": SAMPLE_RECORD_VERSION + 1}, "f.jsonl: line 2")
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"spec": "s", "setting": "vanilla", "model": "m", "k": 1,
                                "n": 2, "record_version": 99}))
    with pytest.raises(InputError, match="record_version 99 is newer.*upgrade kgcert"):
        read_certificate(path)
