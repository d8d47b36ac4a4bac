"""What a reader needs beside a spec's certificates: the spec's description (the distribution
in words) and one example prompt per setting, the first one the run drew.

    details = spec_details(runs)          # runs: a loaded RunSet
    details["primekg.gene_target"].description
    details["primekg.gene_target"].examples[0].text

The description is read from the spec file the certificate names (`spec_file`), else from
the shipped spec of that name, and only when the file's spec hash is the one the run used:
a spec edited since the run describes another distribution, so none is shown then.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from kgcert.errors import InputError
from kgcert.report.run_frames import RunSet, iter_records
from kgcert.rundir.run_dir import run_dir_of
from kgcert.rundir.sample_record import SampleRecord

EXAMPLE_CHARS = 4000  # longer prompts (task contexts) are cut in the page, not in the files


@dataclass(frozen=True)
class Example:
    """The first prompt drawn for one spec and setting (the lowest sample index shown to a
    model; prompts skipped before reaching it have no text)."""

    setting: str
    index: int
    run: str
    sample_file: str  # relative to the run directory
    text: str
    answer: str | None  # the correct option, or the accepted answers of a free-answer task
    options: tuple[str, ...] = ()  # as numbered in the prompt


@dataclass(frozen=True)
class SpecDetails:
    spec: str
    description: str | None
    source: str  # the spec file the description is from, or why there is none
    examples: tuple[Example, ...]  # one per setting, settings in sorted order


def _answer(prompt: Mapping[str, Any]) -> str | None:
    options = prompt.get("options") or []
    correct = prompt.get("correct_option")
    if isinstance(correct, int) and 1 <= correct <= len(options):
        return f"option {correct}: {options[correct - 1]}"
    answers = [str(answer) for answer in prompt.get("answers") or []]
    if answers:
        shown = "; ".join(answers[:5])
        return shown + (f" (and {len(answers) - 5} more)" if len(answers) > 5 else "")
    return None


def _first_prompt(files: Iterable[Path], label: str,
                  root: Path) -> tuple[str, str, Example] | None:
    """The lowest-index prompt with text among the sample files of one spec and setting."""
    for path in files:
        best: SampleRecord | None = None
        for record in iter_records(run_dir_of(root), path):
            text = (record.prompt or {}).get("text")
            if text and (best is None or record.index < best.index):
                best = record
        if best is not None and best.prompt is not None:
            prompt = best.prompt
            provenance = best.provenance
            spec = str(best.spec if best.spec is not None else provenance.get("spec"))
            setting = str(best.setting if best.setting is not None
                          else provenance.get("setting"))
            return spec, setting, Example(setting, best.index, label,
                                          str(path.relative_to(root)), str(prompt["text"]),
                                          _answer(prompt),
                                          tuple(str(o) for o in prompt.get("options") or ()))
    return None


def first_examples(runs: RunSet) -> dict[str, dict[str, Example]]:
    """Per spec and setting, the first prompt of the first run (in the order given) that has
    one. Each spec/setting folder holds one file per model; the prompts are the same for
    every model (same seed), so the first file with a prompt is read."""
    found: dict[str, dict[str, Example]] = {}
    for info in runs.runs:
        for files in run_dir_of(info.path).sample_files_by_setting():
            first = _first_prompt(files, info.label, info.path)
            if first is not None:
                spec, setting, example = first
                found.setdefault(spec, {}).setdefault(setting, example)
    return found


def _shipped() -> dict[str, Any]:
    """The shipped specs by name; none when the catalog cannot be read (the report does not
    fail over a description)."""
    from kgcert.specs.catalog import catalog

    try:
        return {entry.spec.name: entry for entry in catalog()}
    except InputError:
        return {}


def _hashes(frame: pd.DataFrame, spec: str) -> set[str]:
    if frame.empty:
        return set()
    return {str(h) for h in frame.loc[frame["spec"] == spec, "spec_hash"].dropna()}


def _candidates(spec: str, files: list[str],
                shipped: Callable[[], dict[str, Any]]) -> Iterator[tuple[Path, Any]]:
    """(path, spec) of the files the certificates name, then of the shipped spec; lazily, so
    the catalog is read only when no named file fits."""
    from kgcert.specs import load_spec_file

    for name in files:
        path = Path(name)
        if path.is_file():
            try:
                yield path, load_spec_file(path)
            except InputError:
                continue
    entry = shipped().get(spec)
    if entry is not None:
        yield entry.path, entry.spec


def _description(spec: str, files: list[str], hashes: set[str],
                 shipped: Callable[[], dict[str, Any]]) -> tuple[str | None, str]:
    """(description, its spec file) from the first candidate file of that name whose spec
    hash is one the runs used (any, when they recorded none)."""
    from kgcert.specs import spec_hash

    found = False
    for path, loaded in _candidates(spec, files, shipped):
        if loaded.name != spec:
            continue
        found = True
        if not hashes or spec_hash(loaded) in hashes:
            return loaded.description, str(path)
    if found:
        return None, ("the spec file was changed since the run (its spec hash differs), so "
                      "its description is not shown")
    return None, "no spec file of this name was found"


def spec_details(runs: RunSet) -> dict[str, SpecDetails]:
    """Description and example prompts of every spec of the runs."""
    examples = first_examples(runs)
    certificates = runs.certificates
    shipped = functools.cache(_shipped)  # read at most once per report
    details: dict[str, SpecDetails] = {}
    for spec in runs.specs:
        files = ([str(f) for f in certificates.loc[certificates["spec"] == spec,
                                                    "spec_file"].dropna().unique()]
                 if not certificates.empty else [])
        hashes = _hashes(certificates, spec) | _hashes(runs.samples, spec)
        description, source = _description(spec, files, hashes, shipped)
        by_setting = examples.get(spec, {})
        details[spec] = SpecDetails(spec, description, source,
                                    tuple(by_setting[s] for s in sorted(by_setting)))
    return details
