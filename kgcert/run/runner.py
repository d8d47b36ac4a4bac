"""Run certificates: for each spec x setting, build prompt i once, ask every model, check the
answer, append the record; then write one certificate per (spec, setting, model).

Resumable by construction: prompt i depends only on (seed, spec, setting, i), each sample
file is append-only and flushed per batch, and a restarted run asks only for the indices its
files lack, and again for those whose model call failed (kept beside, in `.failed` files).
Killed at any point, the same command finishes with the same certificates an uninterrupted
run writes.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kgcert.answer_format.checker import check_answer
from kgcert.certify.certificate import certificate, sequence_bounds
from kgcert.certify.comparison import JobRace, calls_saved, stop_rule, write_comparison
from kgcert.certify.cost import file_cost
from kgcert.errors import InputError
from kgcert.models.base import (
    GenerationConfig,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
    set_answer_hook,
)
from kgcert.prompts.record import Prompt
from kgcert.run.design import read_designs
from kgcert.run.look_record import (
    LookRecord,
    RecordedLook,
    look_kind,
    prompts_key,
    refuse_or_extend,
)
from kgcert.run.looks import plan_look
from kgcert.rundir.layout import RunLayout
from kgcert.rundir.outcomes import REFUSED, SKIPPED
from kgcert.rundir.run_dir import RunDir
from kgcert.rundir.run_spec import Design, RunSpec
from kgcert.rundir.sample_log import SampleLog
from kgcert.rundir.sample_record import SampleRecord, SampleResponse
from kgcert.stats import bonferroni_confidence
from kgcert.stats.stopping import SequentialRule, first_stop

if TYPE_CHECKING:
    from kgcert.graphview import PromptGraph

PromptSource = Callable[[int], Prompt]


class Scorer(Protocol):
    """Judges one response: returns at least {"outcome": correct|wrong|unparseable|error}."""

    def __call__(self, prompt: Prompt, response: ModelResponse) -> dict[str, Any]: ...


@dataclass
class Job:
    """One spec under one setting: its prompts, shared by every model."""

    spec: str
    spec_hash: str
    setting: str
    prompts: PromptSource
    context: dict[str, Any] = field(default_factory=dict)  # spec kind, KG fingerprint, ...
    scorer: Scorer | None = None  # default: the multiple-choice answer checker
    n: int | None = None  # samples for this job (default: the run's n), e.g. the baseline
    models: tuple[str, ...] | None = None  # the models that answer it (default: every one)
    max_new_tokens: int | None = None  # answer room, when it differs from the run's (CoT)
    graph: PromptGraph | None = None  # the graph its prompts read: the run's entity names too


@dataclass
class Progress:
    """What the progress display shows: `begin` (label, samples recorded, n, what is cached)
    before a certificate's first model call, `answered` (label, prompts, from a cache) as
    prompts get answers, `update` after every batch."""

    #: (label, done, total, correct, bounds, answered, failed, stopped): the counts the
    #: certificate will hold; `failed` counts the samples whose call failed, `answered` those
    #: that got an answer (right, wrong or unparseable), `bounds` a sequential run's or a
    #: race's running anytime-valid bounds (None for n fixed in advance), `stopped` that its
    #: stopping rule ended the certificate before n
    update: Callable[[str, int, int, int, tuple[float, float] | None, int, int, bool],
                     None] = (
        lambda label, done, total, correct, bounds, answered, failed, stopped: None)
    begin: Callable[[str, int, int, str], None] = lambda label, recorded, total, cached: None
    answered: Callable[[str, int, bool], None] = lambda label, count, cached: None


def score_choice(prompt: Prompt, response: ModelResponse) -> dict[str, Any]:
    assert prompt.correct_option is not None
    result = check_answer(response.text, prompt.options, prompt.correct_option, response.error)
    chosen = result.option
    chosen_id = (prompt.option_ids[chosen - 1]
                 if chosen is not None and 1 <= chosen <= len(prompt.option_ids) else None)
    return {"outcome": result.outcome.value, "parsed_option": chosen, "chosen_id": chosen_id,
            "parse_note": result.note}


def _request(prompt: Prompt, index: int) -> ModelRequest:
    text: dict[str, Any] = ({"messages": (Message("system", prompt.system),
                                          Message("user", prompt.text))}
                            if prompt.system else {"prompt": prompt.text})
    if prompt.options:
        return ModelRequest(**text, sample_index=index, options=prompt.options,
                            correct_option=prompt.correct_option)
    return ModelRequest(**text, sample_index=index)


def _batches(indices: Iterable[int], size: int) -> Iterator[list[int]]:
    """Consecutive batches of `size`, drawn lazily from `indices`."""
    iterator = iter(indices)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


@dataclass
class ModelSlot:
    spec_string: str
    model: Model
    config: GenerationConfig


def generation(job: Job, slot: ModelSlot) -> GenerationConfig:
    """The model's generation settings for this job's prompts (more answer room for a
    reasoning strategy)."""
    if job.max_new_tokens is None or job.max_new_tokens == slot.config.max_new_tokens:
        return slot.config
    return dataclasses.replace(slot.config, max_new_tokens=job.max_new_tokens)


class Runner:
    def __init__(self, spec: RunSpec, run_dir: Path, jobs: list[Job], models: list[ModelSlot],
                 progress: Progress | None = None, looks: LookRecord | None = None,
                 new_design: bool = False) -> None:
        self.spec = spec
        self.run_dir = run_dir
        self.jobs = jobs
        self.models = models
        self.progress = progress or Progress()
        self.layout = RunLayout(run_dir)
        self.dir = RunDir(self.layout)
        self.certificates = sum(len(self.slots(job)) for job in jobs)
        self.confidence = (bonferroni_confidence(spec.design.confidence, self.certificates)
                           if spec.design.simultaneous else spec.design.confidence)
        self.design = spec.design_hash()  # carried by every sample and certificate
        self.looks = looks  # the data dir's record of looks (None: not kept, e.g. tests)
        self.new_design = new_design  # --new-design: another run's looks make an extension

    def slots(self, job: Job) -> list[ModelSlot]:
        """The models that answer `job`'s prompts (those whose prompt budget it was built for)."""
        return [s for s in self.models if job.models is None or s.spec_string in job.models]

    def log(self, job: Job, slot: ModelSlot) -> SampleLog:
        return RunDir(self.layout).sample_log(job.spec, job.setting, slot.spec_string)

    def certificate_path(self, job: Job, slot: ModelSlot) -> Path:
        return self.layout.certificate_file(job.spec, job.setting, slot.spec_string)

    def _prompts_key(self, job: Job, slot: ModelSlot) -> str:
        # the model as it answers: its identity and its generation settings for this job
        model = {**slot.model.identity(), "generation": generation(job, slot).as_dict()}
        return prompts_key(job.context, job.spec_hash, job.setting, self.spec.seed.value,
                           slot.spec_string, model)

    def _look_kind(self, job: Job) -> str:
        design = self.spec.design
        rule = {"sequential": design.sequential.model_dump() if design.sequential else None,
                "until": design.until, "margin": design.margin,
                "extendable": design.extendable,
                "race": sorted(self.spec.models.names) if design.until else None}
        return look_kind(job.n or design.n, self.confidence, rule)

    def _this_run(self) -> tuple[str, str | None]:
        designs = read_designs(self.run_dir)
        return str(self.run_dir.resolve()), designs[0].started_at if designs else None

    def refuse_unseen_extensions(self) -> None:
        """Before the first answer: refuses (one line) a run whose prompts another run
        looked at under another n, level or stop rule, unless --new-design was given."""
        if self.looks is None:
            return
        run, started = self._this_run()
        for job in self.jobs:
            found = [(self._label(job, slot), self.looks.elsewhere(
                self._prompts_key(job, slot), run, started)) for slot in self.slots(job)]
            refuse_or_extend(found, self._look_kind(job), self.new_design)

    def _elsewhere(self, job: Job, slot: ModelSlot) -> list[tuple[str, float]]:
        """Other runs' looks at this certificate's prompts, of another kind than this one."""
        if self.looks is None:
            return []
        run, started = self._this_run()
        kinds = {self._look_kind(job): ""}  # one look of a kind: the same statement again
        found = []
        for look in self.looks.elsewhere(self._prompts_key(job, slot), run, started):
            if look.kind not in kinds:
                kinds[look.kind] = look.run
                found.append((look.words(), look.confidence))
        return found

    def _record_look(self, job: Job, slot: ModelSlot, total: int, confidence: float) -> None:
        if self.looks is None:
            return
        run, started = self._this_run()
        self.looks.add(self._prompts_key(job, slot), RecordedLook(
            run, started, self._look_kind(job), total, confidence))

    def run(self) -> list[Path]:
        # the resolved settings, for resuming, reports and write-back (unless recorded)
        RunDir(self.layout).write_run_spec(self.spec, replace=False)
        written: list[Path] = []
        for job in self.jobs:
            written += self._run_job(job)
        return written

    def _run_job(self, job: Job) -> list[Path]:
        total = job.n or self.spec.design.n
        slots = self.slots(job)
        logs = {slot.spec_string: self.log(job, slot) for slot in slots}
        done = {name: log.read() for name, log in logs.items()}
        for name, existing in done.items():
            stale = next((r for r in existing.values() if r.spec_hash != job.spec_hash), None)
            if stale is not None:
                raise InputError(f"{logs[name].path} holds samples of spec {job.spec} with hash "
                                 f"{stale.spec_hash}, but the spec now hashes to "
                                 f"{job.spec_hash}; it changed since, so use another --out")
        # samples whose call failed (an outage, a rate limit) are asked again on a rerun
        done = {name: logs[name].retry_failed(existing) for name, existing in done.items()}
        # the baseline is a fixed set, never stopped; with --until the race stops models
        race = self._race(job, slots, total)
        sequential = job.setting != "baseline" and race is None
        stopped = {name: sequential and self._cut(existing, total)[0] is not None
                   for name, existing in done.items()}
        if race is not None:
            race.feed(done)
            stopped = {name: race.stopped(name) for name in done}
        # A line per certificate at once, before the first call: what spares model calls
        # first (a log's first line says it), then the tally of samples already recorded.
        for slot in slots:
            self.progress.begin(self._label(job, slot), len(done[slot.spec_string]), total,
                                _cached_note(slot.model))
        for slot in slots:
            self._report(job, slot, done[slot.spec_string], total, None)

        def missing() -> Iterator[int]:
            """Indices some model still needs, made one at a time (n may be huge)."""
            for i in range(total):
                if all(stopped.values()):
                    return
                if any(not stopped[s.spec_string] and i not in done[s.spec_string]
                       for s in slots):
                    yield i

        for batch in _batches(missing(), self.spec.generation.batch_size):
            prompts = {i: job.prompts(i) for i in batch}
            as_dicts: dict[int, dict[str, Any]] = {}  # one per prompt, shared by the models
            for slot in slots:
                name = slot.spec_string
                if stopped[name]:
                    continue
                todo = [i for i in batch if i not in done[name]]
                records = self._ask(job, slot, prompts, todo, as_dicts)
                logs[name].append(records)
                for record in records:
                    done[name][record.index] = record
                cut, bounds = self._cut(done[name], total) if sequential else (None, None)
                stopped[name] = cut is not None
                if race is None:
                    self._report(job, slot, done[name], total, bounds, cut,
                                 stopped=cut is not None)
            if race is not None:  # after every index all models still asked answered
                race.feed(done)
                asked = [slot for slot in slots if not stopped[slot.spec_string]]
                stopped = {name: race.stopped(name) for name in done}
                for slot in asked:  # the counts its certificate will have, and their bounds
                    last = race.last_index(slot.spec_string)
                    self._report(job, slot, done[slot.spec_string], total, None,
                                 race.fed - 1 if last is None else last, True,
                                 stopped=last is not None)
        if race is not None:
            write_comparison(RunDir(self.layout), job.spec, job.setting,
                             {"spec": job.spec, "setting": job.setting, "design": self.design,
                              **race.summary(done)})
        return [self._certify(job, slot, done[slot.spec_string], total, race)
                for slot in slots]

    def _race(self, job: Job, slots: list[ModelSlot], total: int) -> JobRace | None:
        if self.spec.design.until is None or job.setting == "baseline" or len(slots) < 2:
            return None
        sequential = self.spec.design.sequential
        threshold = sequential.threshold if sequential else None
        return JobRace(stop_rule(self.spec.design.until, self.spec.design.margin, threshold, total,
                                 self.confidence),
                       [slot.spec_string for slot in slots])

    def _cut(self, records: dict[int, SampleRecord], total: int
             ) -> tuple[int | None, tuple[float, float] | None]:
        """Sequential mode: the first index after which the stopping rule holds (outcomes
        taken in index order, over the finished prefix), and the anytime-valid bounds there."""
        sequential = self.spec.design.sequential
        if sequential is None:
            return None, None
        prefix: list[SampleRecord] = []
        for index in range(total):
            if index not in records:
                break
            prefix.append(records[index])
        counted = [(r.index, r.correct) for r in prefix if r.answered]
        stop = first_stop([ok for _, ok in counted], SequentialRule(
            self.confidence, sequential.half_width, sequential.threshold))
        return (None if stop.at is None else counted[stop.at][0]), (stop.lower, stop.upper)

    def _ask(self, job: Job, slot: ModelSlot, prompts: dict[int, Prompt],
             indices: list[int], as_dicts: dict[int, dict[str, Any]]) -> list[SampleRecord]:
        ready = [i for i in indices if prompts[i].skipped is None]
        started = time.monotonic()
        label = self._label(job, slot)
        set_answer_hook(slot.model, lambda count, cached: self.progress.answered(label, count,
                                                                                 cached))
        try:
            responses = (slot.model.generate([_request(prompts[i], i) for i in ready],
                                             generation(job, slot)) if ready else [])
        finally:
            set_answer_hook(slot.model, None)
        if len(responses) != len(ready):
            raise InputError(f"model {slot.spec_string} returned {len(responses)} responses for "
                             f"{len(ready)} prompts")
        by_index = dict(zip(ready, responses, strict=True))
        elapsed = time.monotonic() - started
        records = []
        for i in indices:
            prompt = prompts[i]
            if i not in as_dicts:
                as_dicts[i] = prompt.as_dict()
            fields: dict[str, Any] = {"index": i, "spec": job.spec, "spec_hash": job.spec_hash,
                                      "setting": job.setting, "model": slot.spec_string,
                                      "design": self.design, "prompt": as_dicts[i]}
            if prompt.skipped is not None:
                records.append(SampleRecord(**fields, outcome=SKIPPED,
                                            skip_reason=prompt.skipped))
                continue
            response = by_index[i]
            answer = SampleResponse(
                text=response.text, error=response.error,
                prompt_tokens=response.prompt_tokens,
                completion_tokens=response.completion_tokens,
                latency_s=response.latency_s or elapsed / len(ready), cached=response.cached,
                gpu_s=response.gpu_s,  # a local model: its share of GPU time
                choice_probs=(tuple(response.choice_probs)  # choice mode: what it weighed
                              if response.choice_probs is not None else None),
                # the model name the server's reply gave (replicas must agree on it)
                other={"served_model": response.served_model} if response.served_model else {})
            if response.refused is not None:  # declined: an answer, though never right
                records.append(SampleRecord(**fields, outcome=REFUSED,
                                            refusal=response.refused, response=answer))
                continue
            scored = dict((job.scorer or score_choice)(prompt, response))
            records.append(SampleRecord(**fields, outcome=str(scored.pop("outcome")),
                                        response=answer, scoring=scored))
        return records

    def _report(self, job: Job, slot: ModelSlot, records: dict[int, SampleRecord],
                total: int, bounds: tuple[float, float] | None, last: int | None = None,
                anytime: bool = False, stopped: bool = False) -> None:
        """The progress line's counts, the ones the certificate will hold: a sequential run's
        or a race's samples up to where it stopped (`last`), never those drawn past it in
        the same batch, with their running anytime-valid bounds."""
        counted = ([records[i] for i in sorted(records) if i <= last] if last is not None
                   else list(records.values()))
        correct = sum(1 for r in counted if r.correct)
        answered = sum(1 for r in counted if r.answered)
        failed = sum(1 for r in counted if r.call_failed)
        if anytime and bounds is None:
            bounds = sequence_bounds([r.correct for r in counted if r.answered],
                                     1 - self.confidence)
        self.progress.update(self._label(job, slot), len(counted), total, correct, bounds,
                             answered, failed, stopped)

    @staticmethod
    def _label(job: Job, slot: ModelSlot) -> str:
        return f"{job.spec} / {job.setting} / {slot.spec_string}"

    def _certify(self, job: Job, slot: ModelSlot, records: dict[int, SampleRecord],
                 total: int, race: JobRace | None = None) -> Path:
        sequential = ((self.spec.design.sequential is not None or race is not None)
                      and job.setting != "baseline")
        cut = (race.last_index(slot.spec_string) if race is not None
               else self._cut(records, total)[0] if sequential else None)
        last = cut if cut is not None else total - 1
        # A sequential certificate ends where its rule stopped; samples drawn after that in
        # the same batch stay in the file but not in the bounds.
        ordered = [records[i].to_dict() for i in sorted(records) if i <= last]
        history = self.dir.written_at(job.spec, job.setting, slot.spec_string)
        written_at = history + [total] if not history or history[-1] != total else history
        look = plan_look(records, total=total, confidence=self.confidence, design=self.design,
                         sequential=sequential, extendable=self.spec.design.extendable,
                         designs=read_designs(self.run_dir), written_at=written_at,
                         elsewhere=self._elsewhere(job, slot))
        # every call this certificate's samples took, over all sessions: `records` is what
        # the sample file holds (read at the start, then appended to); a race adds what the
        # fixed-n design of the same n would have asked
        cost = file_cost(self.log(job, slot), records.values(),
                         self.spec.models.prices.get(slot.spec_string))
        if race is not None:
            cost = calls_saved(cost, records, total)
        context = {
            **job.context, "spec": job.spec, "spec_hash": job.spec_hash, "setting": job.setting,
            "model": slot.spec_string, "model_identity": dict(slot.model.identity()),
            "generation": generation(job, slot).as_dict(), "seed": self.spec.seed.value,
            "seed_source": self.spec.seed.source, "design": self.design,
            "looks": look.as_dict(),
            "samples_requested": total, "samples_recorded": len(ordered),
            "written_at_n": written_at,
            "sequential": (_stop_fields(self.spec.design, race) | {"stopped_at_index": cut}
                           if sequential else None),
            "simultaneous": ({"method": "bonferroni",
                              "family_confidence": self.spec.design.confidence,
                              "certificates": self.certificates,
                              "covers": "the headline bound of every certificate of the run; "
                                        "the unconditional and parseable-only bounds are each "
                                        "a separate family of the same size and level"}
                             if self.spec.design.simultaneous else None),
            "sample_file": str(self.log(job, slot).path.relative_to(self.run_dir)),
            "cost": cost,
        }
        if race is not None:
            context["comparisons"] = str(self.layout.comparison_file(job.spec, job.setting)
                                         .relative_to(self.run_dir))
        path = self.dir.write_certificate(certificate(
            ordered, confidence=look.confidence, context=context, anytime=look.anytime,
            validity=look.validity))
        self._record_look(job, slot, total, look.confidence)
        return path


def _stop_fields(design: Design, race: JobRace | None) -> dict[str, Any]:
    """The certificate's stop rule: its own (--half-width, --threshold) and the run's
    comparison (--until, --margin) when its models were compared as they answered."""
    fields = design.sequential.model_dump() if design.sequential else {
        "half_width": None, "threshold": None}
    if race is not None:
        fields |= {"until": design.until, "margin": design.margin}
    return fields


def _cached_note(model: Model) -> str:
    """What spares model calls: the response cache, and whether the weights are loaded."""
    parts = ["response cache on" if hasattr(model, "cache") else "no response cache"]
    inner = getattr(model, "inner", model)
    if getattr(inner, "loaded", True) is False:
        parts.append("weights load on the first prompt the cache lacks")
    return ", ".join(parts)

