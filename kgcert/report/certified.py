"""What a spec's certificates certify, for its section of report.html: the spec's runnable
Cypher and exact file (as the run copied them), each certificate's guarantee sentence, the
settings its prompts and model calls used, and where the model's chosen options sat against
the correct ones (with the degenerate-choice test of kgcert.certify.positions).

Everything comes from the run folders: the certificates' JSON (written by the run) and
`specs/index.json` with the copied spec files (kgcert.rundir.spec_copies); runs made before runs
kept their specs show what their certificates hold.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from kgcert.certify.parts import Part
from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.report.run_frames import RunSet
from kgcert.rundir.run_dir import RunDir, read_certificate, run_dir_of


@dataclass(frozen=True)
class Certified:
    """One certificate of a spec: its row labels and the certificate."""

    run: str
    setting: str
    model: str
    cert: Certificate


@dataclass(frozen=True)
class SpecSource:
    """The spec file a run used: its copy in the run folder, hashes and runnable Cypher."""

    run: str
    source: str
    copy: Path | None
    sha256: str | None
    spec_hash: str | None
    cypher: str | None
    kg: str | None
    run_dir: RunDir

    @property
    def text(self) -> str | None:
        return None if self.copy is None else self.run_dir.spec_copy_text(self.copy)

    @property
    def edited(self) -> bool:
        """Whether the copy no longer holds the bytes the run recorded for it."""
        return self.copy is not None and self.run_dir.spec_copy_edited(self.copy, self.sha256)


def certificates_of(runs: RunSet, spec: str) -> list[Certified]:
    frame = runs.certificates
    if frame.empty:
        return []
    found = []
    rows = frame[frame["spec"] == spec].sort_values(["setting", "model", "run"])
    for row in rows.itertuples(index=False):
        try:
            cert = read_certificate(Path(str(row.file)))
        except (OSError, InputError):
            continue
        found.append(Certified(str(row.run), str(row.setting), str(row.model), cert))
    return found


def spec_sources(runs: RunSet, spec: str) -> list[SpecSource]:
    """The copies of `spec` the runs kept, one per distinct file (by sha256)."""
    found: dict[str, SpecSource] = {}
    for run in runs.runs:
        run_dir = run_dir_of(run.path)
        for item in run_dir.spec_index().values():
            if not isinstance(item, dict) or item.get("spec") != spec:
                continue
            key = str(item.get("sha256"))
            if key not in found:
                found[key] = SpecSource(
                    run.label, str(item.get("source", "")),
                    run.path / str(item["file"]) if item.get("file") else None,
                    item.get("sha256"), item.get("spec_hash"), item.get("cypher"),
                    run.config.get("kg"), run_dir)
    return list(found.values())


def _p(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


def source_html(sources: Sequence[SpecSource]) -> list[str]:
    parts = []
    for source in sources:
        where = (f"Spec file {source.source}, copied into run {source.run} as "
                 f"{source.copy.name if source.copy else '?'} (sha256 {str(source.sha256)[:16]}"
                 f"..., spec hash {source.spec_hash}).")
        parts.append(_p(where))
        if source.cypher:
            command = f'kgcert query "<the Cypher below>" --kg {source.kg or "KG"}'
            parts.append(f'<p>The pattern as Cypher: its first 25 matches (runs as is with '
                         f"<code>{html.escape(command)}</code> or in Neo4j Browser):</p>"
                         f'<pre class="cypher">{html.escape(source.cypher)}</pre>')
        text = source.text
        if text is not None and source.copy is not None and source.edited:
            parts.append(_p(f"Warning: {source.copy} was edited since run {source.run} copied "
                            "it (its sha256 differs from the one recorded), so it is not shown "
                            "as the spec file the run used."))
        elif text is not None:
            parts.append(f"<details><summary>The spec file as the run used it</summary>"
                         f'<pre class="spec-file">{html.escape(text)}</pre></details>')
    return parts


def guarantees_html(certified: Sequence[Certified]) -> list[str]:
    items = [f"<li><b>{html.escape(c.setting)} / {html.escape(c.model)}</b> "
             f"({html.escape(c.run)}): {html.escape(str(c.cert.guarantee))}</li>"
             for c in certified if c.cert.guarantee]
    if not items:
        return []
    return ["<h4>What each certificate guarantees</h4>",
            f'<ul class="guarantees">{"".join(items)}</ul>']


def _identity(identity: Mapping[str, Any] | None) -> str:
    if not identity:
        return "-"
    return ", ".join(f"{key} {value}" for key, value in identity.items() if value is not None)


def _given(part: Part | None, name: str, value: Any) -> Any:
    """`value`, or "-" where the certificate (or its part) does not hold the field."""
    return "-" if part is None or name in part.absent else value


def settings_rows(certified: Sequence[Certified]) -> Iterator[dict[str, Any]]:
    for c in certified:
        cert, generation = c.cert, c.cert.generation
        yield {"setting": c.setting, "model": c.model, "run": c.run,
               "mode": _given(generation, "mode", generation and generation.mode),
               "few-shot": _given(cert, "few_shot", cert.few_shot),
               "options": _given(cert, "options", cert.options), "budget": cert.budget or "-",
               "strategy": cert.strategy or "standard",
               "temperature": _given(generation, "temperature",
                                     generation and generation.temperature),
               "max new tokens": _given(generation, "max_new_tokens",
                                        generation and generation.max_new_tokens),
               "model identity": _identity(cert.model_identity)}


def positions_rows(certified: Sequence[Certified]) -> Iterator[dict[str, Any]]:
    for c in certified:
        positions = c.cert.positions
        if not positions:
            continue
        test = positions.test
        row: dict[str, Any] = {"setting": c.setting, "model": c.model, "run": c.run}
        for number, (chosen, correct) in enumerate(
                zip(positions.chosen, positions.correct, strict=True), start=1):
            row[f"option {number}: chosen / correct"] = f"{chosen} / {correct}"
        row["p (exact test)"] = (f"{test.p_value:.2g}" if test else "not tested")
        row["choices"] = ("DEGENERATE" if test and test.degenerate else
                          "no position bias found" if test else "-")
        yield row


def positions_html(certified: Sequence[Certified], table: Any) -> list[str]:
    rows = list(positions_rows(certified))
    if not rows:
        return []
    flagged = [str(w) for c in certified for w in c.cert.warnings
               if "degenerate choices" in str(w)]
    parts = ["<h4>Chosen against correct option positions</h4>",
             _p("Per certificate, how often the model chose each option position and how often "
                "the correct answer sat there. Options are shuffled, so a model that reads "
                "chooses positions about as the answers fall; one position chosen far above its "
                "share (exact one-sided binomial test, Bonferroni over positions, at 1 minus the "
                "confidence) flags choices that may reflect position, not reading."),
             table(pd.DataFrame(rows))]
    parts += [f'<p class="flag">{html.escape(w)}</p>' for w in flagged]
    return parts


def settings_html(certified: Sequence[Certified], table: Any) -> list[str]:
    rows = list(settings_rows(certified))
    if not rows:
        return []
    return ["<h4>Settings of the run</h4>",
            table(pd.DataFrame(rows))]
