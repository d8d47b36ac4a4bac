"""One line of a sample file: a typed, versioned sample record.

    record = SampleRecord.from_dict(json.loads(line))   # any version, older ones too
    line = json.dumps(record.to_dict(), sort_keys=True)  # the same keys it was read with

New records carry `record_version` (SAMPLE_RECORD_VERSION); records written before records
had versions have none and read as they are. `to_dict` gives back exactly the mapping
`from_dict` read (a rewritten sample file keeps its old lines), so a key the typed fields do
not hold (a scorer's own, such as `parsed_option` or a task's `exact`) is kept in `scoring`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kgcert.errors import InputError
from kgcert.rundir.outcomes import ANSWERED, CORRECT
from kgcert.rundir.record_version import version_problem

SAMPLE_RECORD_VERSION = 1
VERSION_KEY = "record_version"
# written on every response, even when empty (None); records from older runs may lack some
_RESPONSE_ALWAYS = ("text", "error", "prompt_tokens", "completion_tokens", "latency_s",
                    "cached")
_RESPONSE_WHEN_SET = ("gpu_s", "choice_probs")  # local models, choice mode


@dataclass(frozen=True)
class SampleResponse:
    """What the model sent back (a skipped prompt has none)."""

    text: str | None = None
    error: str | None = None  # the call failed: no answer arrived
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    cached: bool | None = None  # served from the response cache: no call made
    gpu_s: float | None = None  # a local model's share of GPU time
    choice_probs: tuple[float, ...] | None = None  # choice mode: what the model weighed
    # the always-written keys an older record lacked (so `to_dict` leaves them out again)
    absent: frozenset[str] = frozenset()
    other: Mapping[str, Any] = field(default_factory=dict)  # keys of no field here

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SampleResponse:
        probs = data.get("choice_probs")
        known = {*_RESPONSE_ALWAYS, *_RESPONSE_WHEN_SET}
        return cls(**{name: data.get(name) for name in _RESPONSE_ALWAYS},
                   gpu_s=data.get("gpu_s"),
                   choice_probs=tuple(probs) if probs is not None else None,
                   absent=frozenset(name for name in _RESPONSE_ALWAYS if name not in data),
                   other={k: v for k, v in data.items() if k not in known})

    def to_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _RESPONSE_ALWAYS
                if name not in self.absent}
        if self.gpu_s is not None:
            data["gpu_s"] = self.gpu_s
        if self.choice_probs is not None:
            data["choice_probs"] = list(self.choice_probs)
        return {**data, **self.other}


# top-level keys with a field of their own: written only when set (None means absent)
_OPTIONAL = ("spec", "spec_hash", "setting", "model", "design", "skip_reason", "refusal")


@dataclass(frozen=True)
class SampleRecord:
    """One sample: which prompt (spec, setting, index), which model, and how it went."""

    index: int
    outcome: str  # see kgcert.rundir.outcomes
    spec: str | None = None
    spec_hash: str | None = None
    setting: str | None = None
    model: str | None = None
    design: str | None = None  # the design hash it was drawn under (older runs: none)
    prompt: Mapping[str, Any] | None = None  # `Prompt.as_dict()` (kgcert.prompts.record)
    response: SampleResponse | None = None  # none for a skipped prompt
    skip_reason: str | None = None  # why the prompt was not built
    refusal: str | None = None  # why the model declined
    scoring: Mapping[str, Any] = field(default_factory=dict)  # the scorer's other keys
    version: int | None = SAMPLE_RECORD_VERSION  # None: written before records had versions

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SampleRecord:
        """TypeError, KeyError or ValueError for a mapping that is no sample record (the
        reader names the file and line)."""
        index = data["index"]
        if not isinstance(index, int) or isinstance(index, bool):
            raise ValueError(f"field index is {json.dumps(index)[:40]}, expected a whole "
                             "number")
        version = data.get(VERSION_KEY)
        problem = version_problem(version, SAMPLE_RECORD_VERSION)
        if problem is not None:
            raise ValueError(problem)
        prompt, response = data.get("prompt"), data.get("response")
        typed = {name: data[name] for name in _OPTIONAL if data.get(name) is not None}
        held = {"index", "outcome", VERSION_KEY, *typed}
        if isinstance(prompt, Mapping):
            held.add("prompt")
        if isinstance(response, Mapping):
            held.add("response")
        return cls(index=index, outcome=str(data["outcome"]), **typed,
                   prompt=prompt if isinstance(prompt, Mapping) else None,
                   response=(SampleResponse.from_dict(response)
                             if isinstance(response, Mapping) else None),
                   scoring={k: v for k, v in data.items() if k not in held},
                   version=version)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"index": self.index, "outcome": self.outcome}
        data.update({name: getattr(self, name) for name in _OPTIONAL
                     if getattr(self, name) is not None})
        if self.prompt is not None:
            data["prompt"] = self.prompt
        if self.response is not None:
            data["response"] = self.response.to_dict()
        if self.version is not None:
            data[VERSION_KEY] = self.version
        return {**data, **self.scoring}

    @property
    def key(self) -> tuple[str | None, str | None, str | None]:
        """The certificate it belongs to: (spec, setting, model)."""
        return (self.spec, self.setting, self.model)

    @property
    def answered(self) -> bool:
        """Whether it enters a certificate's bounds (right, wrong, unparseable or refused)."""
        return self.outcome in ANSWERED

    @property
    def correct(self) -> bool:
        return self.outcome == CORRECT

    @property
    def call_failed(self) -> bool:
        """Whether the model call failed (no answer arrived): the samples a rerun asks again.
        Skipped prompts made no call; answered ones, right or wrong, stand."""
        return self.response is not None and self.response.error is not None

    @property
    def provenance(self) -> Mapping[str, Any]:
        return (self.prompt or {}).get("provenance") or {}


def sample_record(data: Any, where: str) -> SampleRecord:
    """`data` as a sample record, else InputError naming `where` (a file and line)."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where} is not a sample record")
    try:
        return SampleRecord.from_dict(data)
    except (KeyError, TypeError):
        raise InputError(f"{where} is not a sample record") from None
    except ValueError as error:  # a field it names
        raise InputError(f"{where} is not a sample record ({error})") from None
