"""The record of looks in the data dir: every certificate written, keyed by what makes its
prompts the same, so a run in another folder cannot look at the same prompts again unseen.

Prompt i depends only on (KG, spec, setting, seed, prompt settings), and a model's answers on
the prompts, so a run with the same seed into a new folder answers the same prompts as an
earlier one: its first answers were already looked at, whether the model or the response
cache gives them. Such a run is an extension of the earlier one. kgcert refuses it in one
line unless the run states the same look again (the same n, level and stop rule: the same
certificate over the same prompts), or `--new-design` asks to treat it as an extension; then
every earlier look of other folders spends its delta, and the certificate switches to the
anytime-valid sequence and states the joint level (kgcert.run.looks).

Each key is one JSONL file under <data dir>/looks/, a line per certificate written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgcert.errors import InputError

LOOKS_DIR = "looks"
# where a file was found says nothing about what the prompts are (the spec hash does)
NOT_THE_PROMPTS = ("spec_file",)


def _without_paths(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without_paths(v) for k, v in value.items() if k not in NOT_THE_PROMPTS}
    if isinstance(value, list | tuple):
        return [_without_paths(v) for v in value]
    return value


def prompts_key(context: Mapping[str, Any], spec_hash: str, setting: str, seed: int,
                model: str, identity: Mapping[str, Any]) -> str:
    """What makes a certificate's prompts and answers the same: the KG's fingerprint, the
    spec (hash), the setting, the seed, every prompt setting (the job's context: budget,
    few-shot, options, ...), the model and its identity (with its generation settings)."""
    body = {"kg": context.get("kg_fingerprint") or context.get("kg"), "spec_hash": spec_hash,
            "setting": setting, "seed": seed, "prompt": _without_paths(context),
            "model": model, "identity": _without_paths(identity)}
    text = json.dumps(body, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def look_kind(n: int, confidence: float, rule: Mapping[str, Any]) -> str:
    """One look's statement as a short hash: its n, level and stop rule. Two certificates of
    the same kind over the same prompts state the same thing."""
    text = json.dumps({"n": n, "confidence": round(confidence, 12), "rule": rule},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RecordedLook:
    run: str  # the run folder, resolved
    started: str | None  # when its first design began (a folder made again is another run)
    kind: str
    n: int
    confidence: float

    def words(self) -> str:
        return f"{self.run} (n = {self.n}, level {self.confidence:.6g})"


class LookRecord:
    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / LOOKS_DIR

    def _file(self, key: str) -> Path:
        return self.folder / f"{key}.jsonl"

    def looks(self, key: str) -> list[RecordedLook]:
        path = self._file(key)
        if not path.exists():
            return []
        found = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                found.append(RecordedLook(**json.loads(line)))
            except (ValueError, TypeError):
                continue  # a torn last line: the look it began is written again
        return found

    def elsewhere(self, key: str, run: str, started: str | None) -> list[RecordedLook]:
        """The looks at these prompts of every other run (another folder, or this folder
        made again), one per kind and run, less the kinds this run states itself (the same
        statement, already counted by this run's own looks)."""
        found = self.looks(key)
        own = {look.kind for look in found if (look.run, look.started) == (run, started)}
        seen: dict[tuple[str, str | None, str], RecordedLook] = {}
        for look in found:
            if (look.run, look.started) != (run, started) and look.kind not in own:
                seen.setdefault((look.run, look.started, look.kind), look)
        return list(seen.values())

    def add(self, key: str, look: RecordedLook) -> None:
        if any(old == look for old in self.looks(key)):
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._file(key).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({**look.__dict__}) + "\n")


def refuse_or_extend(found: Sequence[tuple[str, list[RecordedLook]]], kind: str,
                     new_design: bool) -> None:
    """Refuses (one line) a run whose prompts another run already looked at under another
    kind of look, unless `--new-design` treats it as their extension."""
    for label, looks in found:
        other = [look for look in looks if look.kind != kind]
        if other and not new_design:
            raise InputError(
                f"{label}: these prompts (same KG, spec, setting, seed, prompt settings and "
                f"model) were already looked at in {other[0].words()}; a run of them with "
                "another n, level or stop rule is an extension of that run: resume it there, "
                "or give --new-design to run this one as its extension (the certificates "
                "state the joint level of every look), or use another --seed")
