"""A run as Inspect AI eval logs (`kgcert export --inspect RUN`), built with inspect_ai's own
log types and written by its own writer, so `inspect view` opens them: one log per
certificate (Inspect's log is one task on one model), each sample with its prompt as input,
its options as choices, the correct option's letter as target, the model's reply as output
and kgcert's score; the certificate itself in the log's metadata.

Needs the `inspect` extra (pip install 'kgcert[inspect]')."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcert.certify.record import Certificate
from kgcert.errors import InputError, MissingDependencyError
from kgcert.report.run_frames import RunInfo, run_records
from kgcert.rundir.layout import slug
from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.sample_record import SampleRecord

SCORER = "kgcert"
CORRECT, INCORRECT = "C", "I"  # inspect_ai's CORRECT and INCORRECT score values


def _require() -> None:
    if importlib.util.find_spec("inspect_ai") is None:
        raise MissingDependencyError("export --inspect needs inspect_ai: pip install "
                                     "'kgcert[inspect]'")


def _letter(number: Any) -> str | None:
    return chr(ord("A") + number - 1) if isinstance(number, int) and 1 <= number <= 26 else None


@dataclass(frozen=True)
class Exported:
    certificate: Path
    log: Path
    samples: int


def _sample(record: SampleRecord) -> Any:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
    from inspect_ai.scorer import Score

    prompt = record.prompt or {}
    text = str(prompt.get("text") or "")
    options = [str(o) for o in prompt.get("options") or []]
    reply = record.response.text if record.response is not None else None
    chosen = record.scoring.get("parsed_option")
    target = (_letter(prompt.get("correct_option")) if options
              else [str(a) for a in prompt.get("answers") or []] or "")
    scores = {}
    if record.answered:  # what the certificate counts: right, or wrong (unparseable too)
        scores[SCORER] = Score(value=CORRECT if record.correct else INCORRECT,
                               answer=_letter(chosen) or reply,
                               explanation=record.scoring.get("parse_note"),
                               metadata={"outcome": record.outcome})
    messages: list[Any] = [ChatMessageUser(content=text)]
    if reply is not None:
        messages.append(ChatMessageAssistant(content=reply))
    provenance = prompt.get("provenance") or {}
    return EvalSample(
        id=record.index, epoch=1, input=text, choices=options or None, target=target or "",
        messages=messages,
        output=ModelOutput.from_content(str(record.model), reply or ""),
        scores=scores or None,
        metadata={"outcome": record.outcome, "spec": record.spec, "setting": record.setting,
                  "option_ids": list(prompt.get("option_ids") or []),
                  "answer_id": prompt.get("answer_id"),
                  "skip_reason": record.skip_reason, "seed": provenance.get("seed"),
                  "spec_hash": record.spec_hash})


def certificate_log(cert: Certificate, records: list[SampleRecord], run: Path) -> Any:
    """One certificate and its samples as an inspect_ai EvalLog."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalResults,
        EvalScore,
        EvalSpec,
    )

    scored = [r for r in records if r.answered]
    metrics = {"accuracy": EvalMetric(name="accuracy", value=float(cert.estimate or 0)),
               "lower": EvalMetric(name="lower", value=float(cert.lower)),
               "upper": EvalMetric(name="upper", value=float(cert.upper))}
    task = f"kgcert/{cert.spec}/{cert.setting}"
    given = cert.to_dict()  # the certificate itself, in the log's metadata
    return EvalLog(
        version=2, status="success",
        eval=EvalSpec(
            created=str(cert.created_at or ""), task=task,
            dataset=EvalDataset(name=str(cert.spec), samples=len(records),
                                sample_ids=[r.index for r in records]),
            model=str(cert.model), config=EvalConfig(),
            task_args={"spec": cert.spec, "setting": cert.setting, "kg": cert.kg,
                       "seed": cert.seed},
            metadata={"kgcert_certificate": given, "kgcert_run": run.name}),
        results=EvalResults(
            total_samples=len(records), completed_samples=len(scored),
            scores=[EvalScore(name=SCORER, scorer=SCORER, metrics=metrics,
                              metadata={"k": cert.k, "n": cert.n,
                                        "confidence": cert.confidence,
                                        "method": cert.method})]),
        samples=[_sample(r) for r in records])


def export_inspect(run: Path, out: Path) -> list[Exported]:
    """Write every certificate of `run` as an Inspect eval log under `out`."""
    _require()
    from inspect_ai.log import write_eval_log

    certificates = RunDir.open(run).certificate_files()
    if not certificates:
        raise InputError(f"{run} has no certificate yet: export it once `kgcert run` has "
                         "written one")
    by_key: dict[tuple[Any, ...], list[SampleRecord]] = {}
    for record in run_records(RunInfo(run.name, run, {})):
        by_key.setdefault(record.key, []).append(record)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path, cert in certificates:
        records = sorted(by_key.get(cert.key, []), key=lambda r: r.index)
        log = certificate_log(cert, records, run)
        target = out / f"{slug(cert.spec)}__{slug(cert.setting)}__{slug(cert.model)}.eval"
        write_eval_log(log, target)
        written.append(Exported(path, target, len(records)))
    return written
