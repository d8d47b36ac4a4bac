"""A spec's certificates in report.html: the few columns that decide (k/n, interval,
confidence, verdict, flags, cost) in one table, every other field folded per certificate, and
each guarantee as a list of its clauses. Columns with one value in every row are stated once
above the table."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

import pandas as pd

from kgcert.report.headline import Headline, constant_line, split_constant, stacked_table
from kgcert.report.tables import fmt

# Where a guarantee sentence turns to its next condition: each clause becomes an item, its
# words and punctuation unchanged (the items joined by spaces are the sentence again).
_CLAUSE = re.compile(r"(?<=, )(?=conditioned on |with refusals |lies in )"
                     r"|(?<= )(?=and on the )|(?<=\. )(?=[A-Z])")


def guarantee_items(text: str) -> list[str]:
    """A certificate's guarantee, clause by clause."""
    return [part.strip() for part in _CLAUSE.split(text) if part.strip()]


def guarantee_list(text: str) -> str:
    items = "".join(f"<li>{html.escape(item)}</li>" for item in guarantee_items(text))
    return f'<ul class="guarantee">{items}</ul>'


def _cost(row: pd.Series) -> str:
    parts = [f"{fmt(row['calls'], 0)} calls"] if pd.notna(row.get("calls")) else []
    if pd.notna(row.get("money_usd")):
        parts.append(f"${float(row['money_usd']):.4f}")
    if pd.notna(row.get("calls_saved")):
        parts.append(f"{fmt(row['calls_saved'], 0)} saved")
    return ", ".join(parts) or "-"


def _flags(row: pd.Series, headline: Headline | None) -> str:
    flags = []
    if headline is not None and headline.degenerate:
        flags.append(headline.positions)
    for name in ("unparseable", "error", "skipped"):
        value = row.get(name)
        if pd.notna(value) and int(value) > 0:
            flags.append(f"{int(value)} {name}")
    return "; ".join(flags) or "-"


def _key(setting: object, model: object, run: object) -> tuple[str, str, str]:
    return str(setting), str(model), str(run)


def certificate_table(rows: pd.DataFrame, found: Sequence[Headline],
                      guarantees: Mapping[tuple[str, str, str], str]) -> list[str]:
    """The deciding columns of a spec's certificates, then each certificate's other fields
    and guarantee folded under it."""
    if rows.empty:
        return ['<p class="note">(no certificates)</p>']
    by_key = {_key(h.setting, h.model, h.run): h for h in found}
    shown = []
    folded = []
    for _, row in rows.iterrows():
        headline = by_key.get(_key(row["setting"], row["model"], row["run"]))
        shown.append({
            "setting": str(row["setting"]), "model": str(row["model"]), "run": str(row["run"]),
            "k / n": f"{fmt(row['k'], 0)} / {fmt(row['n'], 0)}",
            "interval": headline.interval if headline else
            f"[{fmt(row['lower'])}, {fmt(row['upper'])}]",
            "confidence": fmt(row["confidence"], 2),
            "verdict": headline.verdict if headline else "-",
            "flags": _flags(row, headline), "cost": _cost(row)})
        fields = "".join(f"<dt>{html.escape(str(name))}</dt><dd>{html.escape(fmt(value))}</dd>"
                         for name, value in row.items())
        said = guarantees.get(_key(row["setting"], row["model"], row["run"]))
        guarantee = ("<p><b>What it guarantees</b></p>" + guarantee_list(said) if said else "")
        which = html.escape(f"{row['setting']} / {row['model']} ({row['run']})")
        folded.append(f'<details class="certificate"><summary>All fields of {which}</summary>'
                      f"<dl>{fields}</dl>{guarantee}</details>")
    constant, columns = split_constant(shown, keep=("model", "k / n", "interval", "verdict"))
    tones = [by_key[key].tone if (key := _key(r["setting"], r["model"], r["run"])) in by_key
             else "open" for r in shown]
    return [constant_line(constant, "Every certificate of this spec"),
            stacked_table(shown, columns, "certificates",
                          {"verdict": [f"verdict-{t}" for t in tones],
                           "flags": ["flag" if s["flags"] != "-" else "" for s in shown]}),
            *folded]
