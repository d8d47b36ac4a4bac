"""Read a run directory into the rows that write-back puts into the graph.

Reads only: a sample file that a running `kgcert run` is appending to may end in a partial
line, which is left out here (and never cut from the file, unlike a resuming run).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.outcomes import OUTCOMES
from kgcert.rundir.run_dir import RunDir, run_dir_of
from kgcert.rundir.run_spec import RunSpec
from kgcert.rundir.sample_record import SampleRecord, SampleResponse

TEXT_LIMIT = 500  # characters of question and response kept on a sample node
QUESTION_PREFIX = "Question: "


def run_id(run_dir: Path, config: RunSpec) -> str:
    """The run's graph id: its directory name and its config fingerprint."""
    return f"{run_dir.resolve().name}@{config.fingerprint()}"


def certificate_key(run: str, spec: str, setting: str, model: str) -> str:
    return f"{run}|{spec}|{setting}|{model}"


def sample_key(certificate: str, index: int) -> str:
    return f"{certificate}|{index}"


def question_of(text: str) -> str | None:
    """The prompt's question: its last `Question: ` line (the few-shot examples come before
    it), else the first characters of the prompt (task prompts)."""
    for line in reversed(text.splitlines()):
        if line.startswith(QUESTION_PREFIX):
            return line[len(QUESTION_PREFIX):].strip()[:TEXT_LIMIT]
    return text[:TEXT_LIMIT] or None


def _clip(text: Any) -> str | None:
    return str(text)[:TEXT_LIMIT] if text else None


def read_config(run_dir: Path) -> RunSpec:
    spec = RunDir(RunLayout(run_dir)).read_run_spec()
    if spec is None:
        raise InputError(f"{run_dir} is not a run directory (no run.yaml)")
    return spec


def read_samples(run: RunDir, path: Path) -> list[SampleRecord]:
    """The complete records of one of `run`'s sample files, by index (a torn last line is
    left out)."""
    records: dict[int, SampleRecord] = {}
    for _, record in run.sample_records(path):
        if record.index in records:
            raise InputError(f"{path}: sample {record.index} appears twice")
        records[record.index] = record
    return [records[i] for i in sorted(records)]


@dataclass
class Links:
    """Rows for the link statements, one list per relationship kind."""

    used: list[dict[str, Any]] = field(default_factory=list)
    answer: list[dict[str, Any]] = field(default_factory=list)
    chose: list[dict[str, Any]] = field(default_factory=list)
    distractor: list[dict[str, Any]] = field(default_factory=list)
    option: list[dict[str, Any]] = field(default_factory=list)

    def kinds(self) -> dict[str, list[dict[str, Any]]]:
        return {"USED": self.used, "ANSWER": self.answer, "CHOSE": self.chose,
                "DISTRACTOR": self.distractor, "OPTION": self.option}

    def entity_ids(self) -> set[str]:
        return {row["id"] for rows in self.kinds().values() for row in rows}


@dataclass
class SampleRow:
    key: str
    certificate: str
    props: dict[str, Any]
    links: Links

    def row(self) -> dict[str, Any]:
        return {"key": self.key, "certificate": self.certificate, "props": self.props}


@dataclass
class CertificateRow:
    key: str
    props: dict[str, Any]
    samples: list[SampleRow]

    def row(self) -> dict[str, Any]:
        return {"key": self.key, "props": self.props}


@dataclass
class RunData:
    """A run directory as graph rows."""

    id: str
    kg: str
    path: Path
    config: RunSpec
    certificates: list[CertificateRow]
    kg_fingerprints: set[str]  # the KG fingerprints its certificates name

    @property
    def samples(self) -> list[SampleRow]:
        return [s for c in self.certificates for s in c.samples]

    def run_props(self) -> dict[str, Any]:
        config = self.config.settings()
        return {"kg": self.kg, "config": json.dumps(config, sort_keys=True),
                "fingerprint": self.config.fingerprint(), "path": str(self.path),
                "specs": list(self.config.specs.names),
                "models": list(self.config.models.names),
                "settings": list(self.config.variants.settings)}


def sample_row(run: str, certificate: str, record: SampleRecord, position: int,
               counted: int | None) -> SampleRow:
    """One sample record as a node's properties and its links to the KG's entities.
    `position`: its place among the file's records in index order; `counted`: how many of
    them the certificate's bounds took (a sequential run stops early), None for all."""
    index = record.index
    key = sample_key(certificate, index)
    prompt = record.prompt or {}
    provenance = record.provenance
    extra = provenance.get("extra") or {}
    response = record.response or SampleResponse()
    scoring = record.scoring
    option_ids = [str(i) for i in prompt.get("option_ids") or []]
    roles = [str(r) for r in extra.get("option_roles") or []]
    parsed = scoring.get("parsed_option")
    chosen_role = (roles[parsed - 1] if isinstance(parsed, int) and 1 <= parsed <= len(roles)
                   else None)
    props: dict[str, Any] = {
        "key": key, "run": run, "certificate": certificate, "index": index,
        "spec": record.spec, "spec_hash": record.spec_hash,
        "setting": record.setting, "model": record.model,
        "kind": provenance.get("kind"), "outcome": record.outcome, "correct": record.correct,
        "answered": record.answered,
        "in_bounds": counted is None or position < counted,
        "parsed_option": parsed if isinstance(parsed, int) else None,
        "correct_option": prompt.get("correct_option"),
        "chosen_role": chosen_role,
        "chosen_id": scoring.get("chosen_id"),
        "answer_id": prompt.get("answer_id"),
        "question": question_of(str(prompt.get("text") or "")),
        "response": _clip(response.text),
        "error": _clip(response.error),
        "latency_s": response.latency_s,
        "parse_note": _clip(scoring.get("parse_note")),
        "skip_reason": _clip(record.skip_reason or prompt.get("skipped")),
        "relations": sorted({str(edge[1]) for edge in provenance.get("edges") or []}),
        "textualization": provenance.get("textualization"),
    }
    props = {name: value for name, value in props.items() if value is not None}
    links = Links()
    for role, entity in sorted((provenance.get("nodes") or {}).items()):
        links.used.append({"key": key, "id": str(entity), "role": str(role)})
    if prompt.get("answer_id"):
        links.answer.append({"key": key, "id": str(prompt["answer_id"])})
    if scoring.get("chosen_id"):
        links.chose.append({"key": key, "id": str(scoring["chosen_id"])})
    for entity in dict.fromkeys(provenance.get("distractors") or []):
        links.distractor.append({"key": key, "id": str(entity)})
    for number, entity in enumerate(option_ids, start=1):
        role = roles[number - 1] if number <= len(roles) else "option"
        links.option.append({"key": key, "id": entity, "number": number, "role": role})
    return SampleRow(key, certificate, props, links)


def _certificate_props(key: str, run: str, spec: str, setting: str, model: str,
                       cert: Certificate | None,
                       records: list[SampleRecord]) -> dict[str, Any]:
    props: dict[str, Any] = {"key": key, "run": run, "spec": spec, "setting": setting,
                             "model": model, "samples": len(records), "complete": cert is not None}
    if cert is None:  # the run has not certified these samples yet: counts only
        for outcome in OUTCOMES:
            props[outcome] = sum(1 for r in records if r.outcome == outcome)
        return props
    outcomes = cert.outcomes
    for outcome in OUTCOMES:
        count = getattr(outcomes, outcome, None) if outcomes is not None else None
        props[outcome] = int(count or 0)
    for name in CERTIFICATE_PROPERTIES:
        value = getattr(cert, name)
        if name not in cert.absent and value is not None:
            props[name] = value
    return props


# the certificate's fields a :Certificate node holds (beside its counts by outcome)
CERTIFICATE_PROPERTIES = ("k", "n", "lower", "upper", "estimate", "confidence", "method",
                          "spec_hash", "kg_fingerprint", "created_at", "samples_recorded",
                          "sample_file")


def read_run(run_dir: Path, kg: str | None = None) -> RunData:
    """Everything of a run directory that write-back puts into the graph."""
    config = read_config(run_dir)
    run = run_id(run_dir, config)
    bodies: dict[tuple[str, str, str], Certificate] = {}
    layout = RunLayout(run_dir)
    for certified in RunDir(layout).certificates():
        bodies[certified.key] = certified
    grouped: dict[tuple[str, str, str], list[SampleRecord]] = {}
    files = run_dir_of(run_dir)
    for path in files.sample_files():
        for record in read_samples(files, path):
            triple = (str(record.spec), str(record.setting), str(record.model))
            grouped.setdefault(triple, []).append(record)
    certificates = []
    for triple in sorted(set(bodies) | set(grouped)):
        spec, setting, model = triple
        records = sorted(grouped.get(triple, []), key=lambda r: r.index)
        key = certificate_key(run, *triple)
        body = bodies.get(triple)
        counted = body.samples_recorded if body else None
        samples = [sample_row(run, key, record, position, counted)
                   for position, record in enumerate(records)]
        certificates.append(CertificateRow(
            key, _certificate_props(key, run, spec, setting, model, body, records), samples))
    fingerprints = {str(b.kg_fingerprint) for b in bodies.values() if b.kg_fingerprint}
    return RunData(run, kg or config.kg.name, run_dir.resolve(), config, certificates, fingerprints)
