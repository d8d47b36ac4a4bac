"""The verdict first: one headline per certificate (model, spec or suite, setting, run), read
in ten seconds at the top of report.html (and of `kgcert view`): the certified interval at its
confidence, the verdict in words, the position-bias flag and the comparison claims that hold.

Everything comes from the certificates' JSON and the report's paired comparisons, so the
headline says nothing the certificate does not."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.rundir.run_dir import read_certificate, run_dir_of
from kgcert.util.numbers import interval_text, level_text

if TYPE_CHECKING:
    from kgcert.report.compare import Comparison
    from kgcert.report.contents import Report
    from kgcert.report.run_frames import RunSet


@dataclass(frozen=True)
class Headline:
    run: str
    model: str
    spec: str
    setting: str
    suite: bool
    k: int
    n: int
    lower: float | None
    upper: float | None
    confidence: float | None
    method: str
    verdict: str  # in words
    tone: str  # "above", "below" or "open": how the verdict is coloured
    positions: str  # the position-bias flag in words
    degenerate: bool
    claims: tuple[str, ...] = field(default_factory=tuple)

    @property
    def interval(self) -> str:
        if self.n == 0 or self.lower is None or self.upper is None:
            return "-"
        return interval_text(self.lower, self.upper, self._levels)

    _levels: tuple[float, ...] = ()


def _held(cert: Certificate, name: str, value: float) -> float | None:
    """`value`, or None where the certificate holds no such field."""
    return None if name in cert.absent else value


def verdict(cert: Certificate, threshold: float | None) -> tuple[str, str, tuple[float, ...]]:
    """The verdict in words, its tone, and the levels the bounds are read against."""
    n = int(cert.n or 0)
    lower, upper = _held(cert, "lower", cert.lower), _held(cert, "upper", cert.upper)
    if n == 0 or lower is None or upper is None:
        return "no claim: no prompt was answered", "open", ()
    if threshold is not None:  # a sequential run stated what it wanted to know
        words = level_text(threshold)
        if lower > threshold:
            return f"above the threshold {words}", "above", (threshold,)
        if upper < threshold:
            return f"below the threshold {words}", "below", (threshold,)
        return f"cannot tell against the threshold {words}", "open", (threshold,)
    chance = cert.chance
    level = chance.level if chance is not None and "level" not in chance.absent else None
    if chance is None or level is None:
        return "no chance level (free answers): read the interval", "open", ()
    options = chance.options
    words = f"chance {level_text(level)}" + (f" (1/{options})" if options else "")
    if lower > level:
        return f"above {words}", "above", (level,)
    if upper < level:
        return f"below {words}", "below", (level,)
    return f"cannot be told apart from {words}", "open", (level,)


def position_flag(cert: Certificate) -> tuple[str, bool]:
    """`DEGENERATE: option 3 chosen on 20 of 20`, or that no bias was found, or not tested."""
    positions = cert.positions
    test = positions.test if positions is not None else None
    if positions is None or test is None:
        return "not tested (too few parsed answers, or fixed option order)", False
    chosen = list(positions.chosen or ())
    parsed = sum(chosen) if "parsed" in positions.absent else positions.parsed
    if test.degenerate:
        at = int(test.position or (chosen.index(max(chosen)) + 1 if chosen else 0))
        times = (chosen[at - 1] if 0 < at <= len(chosen)
                 else None if "chosen" in test.absent else test.chosen)
        return f"DEGENERATE: option {at} chosen on {times} of {parsed}", True
    return "none found", False


def _mcnemar_claims(comparisons: Sequence[Comparison], spec: str, setting: str,
                    model: str) -> list[str]:
    claims = []
    for item in comparisons:
        if item.spec != spec or item.setting != setting or item.hierarchy is None:
            continue
        for pair in item.hierarchy.comparisons:
            test = pair.test
            if model not in (test.model_a, test.model_b):
                continue
            other = test.model_b if test.model_a == model else test.model_a
            better = pair.better
            if better is None:
                claims.append(f"not told apart from {other} (McNemar, Holm p = "
                              f"{pair.adjusted_p:.2g}, {item.alignment.n} shared prompts)")
            else:
                word = "more" if better == model else "less"
                claims.append(f"{word} accurate than {other} (McNemar, Holm p = "
                              f"{pair.adjusted_p:.2g}, {item.alignment.n} shared prompts)")
    return claims


def _until_claims(run_dir: Path, spec: str, setting: str, model: str) -> list[str]:
    """A run with --until: the claims its anytime-valid comparisons made about `model`."""
    try:
        body = run_dir_of(run_dir).read_comparison(spec, setting)
        pairs = list(body["pairs"])
    except (KeyError, TypeError):
        return []
    return [f"{pair['claim']} (anytime-valid, --until {body.get('until')})"
            for pair in pairs if isinstance(pair, dict) and pair.get("claim")
            and model in str(pair["claim"])]


def headlines(report: Report) -> list[Headline]:
    """One headline per certificate of the report's runs, in the certificates table's order."""
    return run_headlines(report.runs, report.comparisons)


def run_headlines(runset: RunSet, comparisons: Sequence[Comparison] = ()) -> list[Headline]:
    """One headline per certificate of `runset`; the McNemar claims from `comparisons` (a
    listing of runs without them still shows a race's --until claims)."""
    frame = runset.certificates
    if frame.empty:
        return []
    runs = {run.label: run for run in runset.runs}
    found = []
    ordered = frame.sort_values(["baseline", "spec", "setting", "model", "run"])
    for row in ordered.itertuples(index=False):
        try:
            cert = read_certificate(Path(str(row.file)))
        except (OSError, InputError):
            continue
        run = runs.get(str(row.run))
        sequential = (run.config.get("sequential") if run is not None else None) or {}
        threshold = sequential.get("threshold") if isinstance(sequential, dict) else None
        words, tone, levels = verdict(cert, threshold)
        flag, degenerate = position_flag(cert)
        spec, setting, model = str(row.spec), str(row.setting), str(row.model)
        claims = _mcnemar_claims(comparisons, spec, setting, model)
        if run is not None:
            claims += _until_claims(run.path, spec, setting, model)
        found.append(Headline(
            run=str(row.run), model=model, spec=spec, setting=setting,
            suite=cert.spec_kind == "suite", k=int(cert.k or 0), n=int(cert.n or 0),
            lower=_held(cert, "lower", cert.lower), upper=_held(cert, "upper", cert.upper),
            confidence=_held(cert, "confidence", cert.confidence),
            method=str(cert.method or ""),
            verdict=words, tone=tone, positions=flag, degenerate=degenerate,
            claims=tuple(claims), _levels=levels))
    return found


def _confidence(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def headline_rows(found: Sequence[Headline]) -> list[dict[str, str]]:
    """The headlines as table rows (text), the columns every table of them shows."""
    return [{"model": h.model, "spec or suite": h.spec + (" (suite)" if h.suite else ""),
             "setting": h.setting, "run": h.run, "k / n": f"{h.k} / {h.n}",
             "interval": h.interval, "confidence": _confidence(h.confidence),
             "verdict": h.verdict, "position bias": h.positions,
             "comparisons": "; ".join(h.claims) or "-"} for h in found]


def split_constant(rows: Sequence[Mapping[str, str]], keep: Sequence[str] = ()
                   ) -> tuple[dict[str, str], list[str]]:
    """The columns that hold one value in every row (stated once above the table, when there
    are two rows or more) and the columns left to show; `keep` are always shown."""
    if not rows:
        return {}, []
    columns = list(rows[0])
    if len(rows) < 2:
        return {}, columns
    constant = {c: rows[0][c] for c in columns
                if c not in keep and all(row[c] == rows[0][c] for row in rows)}
    return constant, [c for c in columns if c not in constant]


def constant_line(constant: Mapping[str, str], what: str) -> str:
    if not constant:
        return ""
    parts = "; ".join(f"{html.escape(k)} <b>{html.escape(v)}</b>" for k, v in constant.items())
    return f'<p class="constant">{html.escape(what)}: {parts}</p>'


def stacked_table(rows: Sequence[Mapping[str, str]], columns: Sequence[str],
                  css: str = "", cell_class: Mapping[str, Sequence[str]] | None = None) -> str:
    """A table that stacks each row into a card on a narrow screen (each cell labelled)."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for number, row in enumerate(rows):
        cells = []
        for c in columns:
            extra = (cell_class or {}).get(c, ())
            kind = extra[number] if number < len(extra) else ""
            cells.append(f'<td data-label="{html.escape(c)}" class="text {html.escape(kind)}">'
                         f"{html.escape(row[c])}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (f'<table class="stack {html.escape(css)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def headline_html(report: Report, found: Sequence[Headline] | None = None) -> str:
    """The report's first section: the verdict of every certificate (`found`: the report's
    headlines, when read already)."""
    found = headlines(report) if found is None else found
    if not found:
        return ""
    rows = headline_rows(found)
    constant, columns = split_constant(rows, keep=("model", "k / n", "interval", "verdict"))
    tones = [f"verdict-{h.tone}" for h in found]
    flags = ["flag" if h.degenerate else "" for h in found]
    table = stacked_table(rows, columns, "headline",
                          {"verdict": tones, "position bias": flags})
    kgs = sorted({str(run.config.get("kg")) for run in report.runs.runs if run.config.get("kg")})
    where = f" on KG {', '.join(kgs)}" if kgs else ""
    return (f'<section id="verdict" class="verdict"><h2>Verdict</h2>'
            f'<p class="note">One row per certificate{html.escape(where)}: the interval holds '
            "P(correct) on prompts drawn from the spec with at least the stated confidence "
            "(see How to read a certificate); the verdict sets it against chance, or against "
            "the run's threshold.</p>"
            f"{constant_line(constant, 'Every row')}{table}</section>")
