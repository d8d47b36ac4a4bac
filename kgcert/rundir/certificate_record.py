"""A certificate file, typed: the fields readers use, checked, beside the whole body.

    record = read_certificate(path)         # InputError naming the file and a bad field
    record.spec, record.k, record.n, record.lower, record.upper, record.body["guarantee"]

A certificate is written exactly as `kgcert.certify.certificate.certificate` builds it (README's
"How to read a certificate" reads it key by key), so `to_dict` gives back the body it was
made from. Certificates carry no record version yet: today's format is version 1, and a later
change of format writes `record_version` (`version` reads it, 1 where absent).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.rundir.outcomes import OUTCOMES, REFUSED
from kgcert.rundir.record_version import version_problem

CERTIFICATE_RECORD_VERSION = 1
VERSION_KEY = "record_version"
REQUIRED = ("spec", "setting", "model", "k", "n")
COUNTED = tuple(o for o in OUTCOMES if o != REFUSED)  # in `outcomes` since the first format


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_mapping(value: Any) -> bool:
    return isinstance(value, dict)


# field -> (test, what it must be, may be null); nested fields as "outer.inner"
FIELD_TYPES: dict[str, tuple[Callable[[Any], bool], str, bool]] = {
    "spec": (_is_str, "a string", False),
    "setting": (_is_str, "a string", False),
    "model": (_is_str, "a string", False),
    "k": (_is_int, "a whole number", False),
    "n": (_is_int, "a whole number", False),
    "lower": (_is_number, "a number", False),
    "upper": (_is_number, "a number", False),
    "estimate": (_is_number, "a number", True),
    "samples_requested": (_is_int, "a whole number", True),
    "outcomes": (_is_mapping, "a mapping", True),
    "unparseable_excluded": (_is_mapping, "a mapping", True),
    "sequential": (_is_mapping, "a mapping", True),
    **{f"outcomes.{name}": (_is_int, "a whole number", False) for name in COUNTED},
    "sequential.stopped_at_index": (_is_int, "a whole number", True),
}


def wrongly_typed(body: Mapping[str, Any]) -> str | None:
    """The first field of `body` that is not what a certificate holds there, said in words."""
    for name, (test, expected, nullable) in FIELD_TYPES.items():
        outer, _, inner = name.partition(".")
        holder = body.get(outer) if inner else body
        key = inner or outer
        if not isinstance(holder, dict) or key not in holder:
            continue
        value = holder[key]
        if (value is None and not nullable) or (value is not None and not test(value)):
            return f"field {name} is {json.dumps(value)[:40]}, expected {expected}"
    return None


@dataclass(frozen=True)
class CertificateRecord:
    """One (spec, setting, model) certificate. `body` is the whole file; the fields are the
    parts readers of runs use."""

    spec: str
    setting: str
    model: str
    k: int
    n: int
    lower: float
    upper: float
    body: Mapping[str, Any]

    @classmethod
    def from_dict(cls, body: Mapping[str, Any]) -> CertificateRecord:
        """KeyError for a missing required field (`read_certificate` says which file)."""
        return cls(str(body["spec"]), str(body["setting"]), str(body["model"]),
                   int(body["k"]), int(body["n"]), float(body.get("lower", 0.0)),
                   float(body.get("upper", 1.0)), body)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.body)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.spec, self.setting, self.model)

    @property
    def version(self) -> int:
        return int(self.body.get(VERSION_KEY, CERTIFICATE_RECORD_VERSION))

    @property
    def outcomes(self) -> Mapping[str, int]:
        return self.body.get("outcomes") or {}

    @property
    def samples_requested(self) -> int | None:
        return self.body.get("samples_requested")

    @property
    def samples_recorded(self) -> int | None:
        return self.body.get("samples_recorded")

    @property
    def stopped_at_index(self) -> int | None:
        """Where a sequential certificate's stopping rule held (None: not sequential)."""
        return (self.body.get("sequential") or {}).get("stopped_at_index")

    @property
    def last_index(self) -> int | None:
        """The last sample index the certificate counts: where a sequential rule stopped,
        else its n requested less one (None for a certificate stating neither)."""
        if self.stopped_at_index is not None:
            return int(self.stopped_at_index)
        if self.samples_requested is not None:
            return int(self.samples_requested) - 1
        return None


def read_certificate(path: Path) -> CertificateRecord:
    """The certificate at `path`, else InputError naming the file and what is wrong."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise InputError(f"{path} is not a certificate (not valid JSON)") from None
    if not isinstance(body, dict) or not set(REQUIRED) <= body.keys():
        raise InputError(f"{path} is not a certificate (spec, setting, model, k or n missing)")
    problem = version_problem(body.get(VERSION_KEY), CERTIFICATE_RECORD_VERSION)
    if problem is not None:
        raise InputError(f"{path}: {problem}")
    problem = wrongly_typed(body)
    if problem is not None:
        raise InputError(f"{path}: {problem}; the certificate was edited or damaged")
    return CertificateRecord.from_dict(body)
