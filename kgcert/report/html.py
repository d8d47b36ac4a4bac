"""One static HTML page, no external assets: figures are inline SVG, and the sample explorer's
script and data are inline too, so the file works offline."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from kgcert.report.compare import family_statement
from kgcert.report.headline import Headline, headline_html, headlines
from kgcert.report.prompt_parts import split_prompt
from kgcert.report.spec_details import EXAMPLE_CHARS, Example
from kgcert.report.suites import CAPTION as SUITE_CAPTION
from kgcert.report.tables import fmt
from kgcert.rundir.layout import slug

if TYPE_CHECKING:
    from kgcert.report.contents import Report

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em 0;
       padding: 0 clamp(0.6em, 2.5vw, 2.5em); color: #222; font-size: 16px;
       overflow-wrap: break-word; }  /* a hash or a path never widens the page */
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
.note { color: #555; font-size: 0.9em; }
code { background: #f5f5f5; padding: 0 0.2em; }
nav.toc { font-size: 0.9em; border: 1px solid #ddd; padding: 0.4em 1em; display: inline-block; }
nav.toc ul { margin: 0.2em 0; padding-left: 1.2em; }
.wide { max-width: 100%; overflow-x: auto; }
pre.cypher, pre.spec-file { white-space: pre-wrap; background: #f7f7f7; padding: 0.5em;
  font-size: 0.85em; overflow-wrap: anywhere; }
p.question { font-weight: 600; font-size: 1.05em; }
p.flag { color: #a40000; font-weight: 600; }
ul.guarantees li { margin: 0.3em 0; font-size: 0.9em; }
ul.guarantee { margin: 0.2em 0 0.6em 0; padding-left: 1.3em; font-size: 0.9em; }
p.constant { font-size: 0.92em; color: #333; }
section.verdict table.headline { font-size: 1em; }
table.stack th { text-align: left; }
table.stack td[data-label="k / n"], table.stack td[data-label="interval"] { white-space: nowrap; }
td.verdict-above { background: #dff3df; font-weight: 600; }
td.verdict-below { background: #f8dcd9; font-weight: 600; }
td.verdict-open { background: #eeeeee; font-weight: 600; }
td.flag { color: #a40000; font-weight: 600; }
details.certificate { margin: 0.3em 0; font-size: 0.9em; }
details.certificate dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.1em 1em;
  margin: 0.4em 0 0.4em 1em; }
details.certificate dt { color: #555; } details.certificate dd { margin: 0; }
/* a narrow screen: each row of a stacked table becomes a card of labelled cells */
@media (max-width: 700px) {
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
  table.stack thead { display: none; }
  table.stack tr { border: 1px solid #ccc; margin: 0 0 0.6em 0; }
  table.stack td { border: none; border-bottom: 1px solid #eee; text-align: left; }
  table.stack td::before { content: attr(data-label) ": "; color: #555; font-weight: 400; }
  nav.toc { display: block; }
}
"""


def table_html(frame: pd.DataFrame, digits: int = 3) -> str:
    """A DataFrame as an HTML table: numbers right-aligned and rounded, text escaped."""
    if frame.empty:
        return '<p class="note">(no rows)</p>'
    numeric = {c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c])}
    head = "".join(f'<th class="{"num" if c in numeric else "text"}">{html.escape(str(c))}</th>'
                   for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = "".join(
            f'<td class="{"num" if c in numeric else "text"}">{html.escape(fmt(v, digits))}</td>'
            for c, v in zip(frame.columns, row, strict=True))
        body.append(f"<tr>{cells}</tr>")
    # In a scroll box of the page's width: a wide table scrolls, the page never does.
    return (f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _section(title: str, parts: Sequence[str], anchor: str) -> str:
    return f'<h2 id="{anchor}">{html.escape(title)}</h2>\n' + "\n".join(parts)


def _figure(report: Report, name_prefix: str) -> list[str]:
    return [f"<figure>{plot.svg_text}<figcaption>{html.escape(plot.title)} "
            f"(<code>{html.escape(plot.png.name)}</code>, <code>{html.escape(plot.svg.name)}"
            "</code>)</figcaption></figure>"
            for plot in report.plots if plot.name.startswith(name_prefix)]


HOW_TO_READ = (
    "k / n: the model answered k of n prompts correctly. n counts the answered prompts "
    "drawn from the spec, refusals and unparseable answers as wrong; skipped prompts (over "
    "the run's budget, too few answer options, no distractor that fits) and failed calls are "
    "not in it.",
    "lower, upper: with probability at least the stated confidence, P(correct) for prompts "
    "drawn from the spec's distribution lies between them. It is a statement about that "
    "distribution (spec, KG fingerprint, setting, the run's budget, seed), not about the n "
    "prompts alone; every model of a run answers the same prompts (unless the run gave each "
    "model its own budget with --budget per-model).",
    "Conditioning: the headline is conditioned on the prompt being built (it fits the run's "
    "budget, has enough answer options and, in the distractor setting, keeps a distractor "
    "sentence when its question has distractors), on the model call succeeding and, for "
    "specs with `distractors: required`, on a distractor existing (redraws counted). In the "
    "distractor setting a question without distractor candidates gives a prompt without "
    "one; the guarantee says how many prompts held one. The unconditional bound is "
    "one-sided and about the distribution, not the drawn sample: a prompt drawn from the "
    "spec is answered correctly with probability at least its lower end, counting skipped "
    "prompts, failed calls, refusals and unparseable answers as wrong. The `guarantee` "
    "field of each certificate names every "
    "condition with its counts.",
    "Suites: a suite certificate is about its stated mixture: each prompt draws a spec by "
    "its weight, then a prompt of that spec, drawn again within the spec when it is skipped, "
    "so every spec keeps its weight; its per-spec counts are descriptive, not certified.",
    "Method: Clopper-Pearson when n was fixed before the first answer; an anytime-valid "
    "confidence sequence for sequential runs and for looks after n changed, in this run or "
    "at the same prompts in another run's folder (a declared "
    "extension spends delta/2 per kind of look; any other change states the joint level of "
    "every look). Each bound holds at the stated confidence, the three together at 1 - 3 "
    "delta. Simultaneous runs (Bonferroni) hold jointly for every headline bound of the run.",
    "Chance: 1/options, for certificates with answers. An interval containing it (5/20 with "
    "four options) cannot be told apart from chance.",
    "Positions: how often the model chose each option position against how often the "
    "correct answer sat there. Options are shuffled, so a model that answers one position "
    "far above its share (exact binomial test) is flagged: its correct answers may be where "
    "the answer happened to sit, not reading.",
    "Seed: a run without --seed draws one and records it; --seed N reproduces a run's "
    "prompts. Every certificate says whether its seed was given or drawn.",
    "Cost: calls are the model calls sent for the certificate's samples over every session "
    "of the run (failed calls included, answers from the response cache counted apart as "
    "cache hits); tokens as the provider reported them, or as a local model counted them; "
    "wall_s the seconds of those calls; gpu_s the seconds a local model held a CUDA device "
    "(0 on a CPU, empty for models served elsewhere); money_usd from the run's prices, "
    "empty when none was given; calls_saved, in a run with --until, the calls the fixed-n "
    "design of the same n and confidence would have sent beyond these.",
)


def _p(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


PROMPT_STYLE = ("white-space: pre-wrap; max-height: 24em; overflow: auto; background: #f7f7f7; "
                "padding: 0.5em; font-size: 0.85em")


def _example(example: Example, open_: bool) -> str:
    """One example prompt, folded (`<details>`) but for the first of a spec: its question and
    options first, the instructions and worked examples folded below; long prompts are cut
    here, the sample file has them whole."""
    parts = split_prompt(example.text)
    summary = (f"Example prompt, setting {example.setting}: sample {example.index} of run "
               f"{example.run} ({example.sample_file})")
    answer = (f'<p class="note">Correct answer: {html.escape(example.answer)}</p>'
              if example.answer else "")
    question = (f'<p class="question">Question: {html.escape(parts.question)}</p>'
                if parts.question else "")
    head = (f"<details><summary>Instructions and worked examples (the same in every prompt; "
            f"{len(parts.head):,} characters before the question)</summary>"
            f'<pre style="{PROMPT_STYLE}">{html.escape(_cut(parts.head))}</pre></details>'
            if parts.head else "")
    options = ("<ol>" + "".join(f"<li>{html.escape(o)}</li>" for o in example.options) + "</ol>"
               if example.options else "")
    return (f"<details{' open' if open_ else ''}><summary>{html.escape(summary)}</summary>"
            f'{question}{options}{answer}<pre style="{PROMPT_STYLE}">{html.escape(_cut(parts.ask))}'
            f"</pre>{head}</details>")


def _cut(text: str) -> str:
    if len(text) <= EXAMPLE_CHARS:
        return text
    return (text[:EXAMPLE_CHARS] + f"\n[... {len(text) - EXAMPLE_CHARS} more characters in "
            "the sample file]")


def _spec_block(report: Report, spec: str, found: Sequence[Headline]) -> str:
    """A spec's heading, its description, its Cypher and file, its certificates with their
    guarantees, settings and option positions, and its example prompts."""
    from kgcert.report.certificate_table import certificate_table
    from kgcert.report.certified import (
        certificates_of,
        positions_html,
        settings_html,
        source_html,
        spec_sources,
    )

    details = report.details.get(spec)
    parts = [f'<h3 id="spec-{html.escape(slug(spec))}">{html.escape(spec)}</h3>']
    if details is not None and details.description:
        parts.append(f"<p>{html.escape(details.description)}</p>")
    sources = spec_sources(report.runs, spec)
    if sources:
        parts += source_html(sources)
    elif details is not None and details.description:
        parts.append(_p(f"Spec file: {details.source}"))
    else:
        parts.append(_p("No description: " + (details.source if details else "no spec file "
                                              "of this name was found") + "."))
    rows = report.specs[report.specs["spec"] == spec].drop(columns="spec")
    certified = certificates_of(report.runs, spec)
    said = {(c.setting, c.model, c.run): str(c.cert.guarantee) for c in certified
            if c.cert.guarantee}
    parts += certificate_table(rows, [h for h in found if h.spec == spec], said)
    parts += positions_html(certified, table_html)
    parts += settings_html(certified, table_html)
    examples = details.examples if details is not None else ()
    parts += [_example(example, open_=number == 0) for number, example in enumerate(examples)]
    return "\n".join(parts)


def variants_section(report: Report) -> list[str]:
    """Per spec and model, the variants of a setting against each other: every pair's exact
    McNemar test with its Holm-adjusted p-value, and the hierarchy (empty without any)."""
    if not report.variants:
        return []
    rows = []
    for item in report.variants:
        if item.hierarchy is None:
            continue
        groups = " > ".join("{" + ", ".join(group) + "}" for group in item.hierarchy.groups)
        for pair in item.hierarchy.comparisons:
            test = pair.test
            rows.append({"spec": item.spec, "model": item.model, "compared": item.axis,
                         "held": item.held_text, "n": test.n,
                         "A": test.model_a, "B": test.model_b, "b": test.b, "c": test.c,
                         "p": test.p_value, "Holm p": pair.adjusted_p,
                         "better (Holm)": pair.better or "-", "hierarchy": groups})
    return [_section("Formats, names and prompting strategies", [
        _p("The same drawn prompts asked in each variant of a setting (task textualizations, "
           "real or pseudonymized entity names, prompting strategies), per spec and model: "
           "b = A right and B wrong, c = the reverse; exact McNemar p-values, Holm-adjusted "
           f"at alpha {report.alpha}: " + family_statement(
               report.family, [*report.comparisons, *report.variants]) + "."),
        table_html(pd.DataFrame(rows), digits=3)], "variants")]


def _stopped_comparisons(report: Report) -> list[str]:
    """Runs with --until: each spec and setting's claims, from its comparisons file."""
    from kgcert.certify.comparison import decision_lines
    from kgcert.rundir.run_dir import run_dir_of

    items = [f"<li>{html.escape(run.label)}: {html.escape(line)}</li>"
             for run in report.runs.runs for line in decision_lines(run_dir_of(run.path))]
    if not items:
        return []
    return [_p("Models compared as they answered (anytime-valid paired tests, Holm across the "
               "pairs of each spec and setting); a model stopped being asked once its pairs "
               "were resolved."), f"<ul>{''.join(items)}</ul>"]


def render(report: Report) -> str:
    runs = report.runs
    found = headlines(report)  # read once: the verdict and each spec's certificates
    sections: list[str] = []
    runs_rows = pd.DataFrame(
        [{"run": run.label, "path": str(run.path), "kg": run.config.get("kg", "-"),
          "n": run.config.get("n", "-"), "seed": run.config.get("seed", "-"),
          "confidence": run.config.get("confidence", "-")} for run in runs.runs])
    sections.append(_section("Runs", [table_html(runs_rows)], "runs"))

    summary = [_p("Mean of the certificates' lower and upper bounds over specs, per model "
                  "and setting (LLMCert-C Table 1): a summary of bounds, not a confidence "
                  "statement about any mean; certificates with n = 0 and suite certificates "
                  "are left out" + (
                      "; baseline: mean accuracy on the static baseline prompts."
                      if "baseline" in report.summary.columns else "; no baseline in these "
                      "runs.")),
               table_html(report.summary)]
    if not report.suites.empty:  # certified mixtures, beside the mean of their specs' bounds
        summary += [_p(SUITE_CAPTION), table_html(report.suites)]
    sections.append(_section("Summary", summary + _figure(report, "forest_models"), "summary"))
    sections.append(_section("How to read a certificate", [
        _p(line) for line in HOW_TO_READ], "reading"))
    sections.append(_section("Certificates per spec", [
        _p("One certificate per spec, setting and model: k correct of n answered "
           "(unparseable answers count as wrong; errors and skipped prompts are apart), "
           "the run seed, the chance level 1/options, and the unconditional bounds (skipped "
           "prompts and failed calls counted wrong). Beside each spec's certificates: the "
           "distribution it certifies, in words and as runnable Cypher, the spec file the run "
           "used, each certificate's guarantee sentence, where the chosen options sat against "
           "the correct ones, the run's settings, and the first prompt the run drew for each "
           "setting, its question first."),
        *_figure(report, "forest_specs"),
        *(_spec_block(report, str(spec), found) for spec in report.specs["spec"].unique())],
        "specs"))

    if not report.tasks.empty:
        parts = [_p("KG-LLM-Bench tasks: accuracy per task and textualization (exact and "
                    "flexible scoring), per model (its Table 5), each with its Clopper-Pearson "
                    f"bounds at {report.confidence:.0%} (per cell, not simultaneous).")]
        from kgcert.report.tables import heatmap_cells

        for model in sorted(report.tasks["model"].unique()):
            parts.append(f"<h3>{html.escape(str(model))}</h3>")
            for metric in ("exact", "flexible"):
                matrix = heatmap_cells(report.tasks, str(model), metric).reset_index()
                parts.append(f"<p><b>{metric}</b></p>" + table_html(matrix, digits=2))
        parts += _figure(report, "heatmap_")
        sections.append(_section("Tasks by format", parts, "tasks"))

    if not report.path_lengths.empty:
        sections.append(_section("Accuracy by path length", [
            _p(f"Entity-centric specs; Clopper-Pearson bounds at {report.confidence:.0%} per "
               "path length (not simultaneous)."),
            table_html(report.path_lengths), *_figure(report, "path_length")], "paths"))

    if not report.roles.empty:
        sections.append(_section("What the models chose", [
            _p("Answered samples by the role of the chosen option."),
            table_html(report.roles)], "roles"))

    if report.comparisons:
        rows = []
        for item in report.comparisons:
            if item.hierarchy is None:
                continue
            rows.append({"spec": item.spec, "setting": item.setting, "n": item.alignment.n,
                         "groups (best first)": " > ".join(
                             "{" + ", ".join(group) + "}" for group in item.hierarchy.groups)})
        sections.append(_section("Paired comparisons", [
            _p(f"Exact McNemar tests on shared prompts, Holm-corrected at alpha "
               f"{report.alpha}; models in one group are not significantly different "
               "(kgcert compare prints every pair). Multiplicity: " + family_statement(
                   report.family, [*report.comparisons, *report.variants]) + "."),
            table_html(pd.DataFrame(rows))],
            "compare"))

    stopped = _stopped_comparisons(report)
    if stopped:
        sections.append(_section("Comparisons that stopped when decided", stopped, "until"))

    from kgcert.report.explorer import explorer_section

    sections.append(explorer_section(report.runs))  # every sample, filterable (JS)


    sections += variants_section(report)

    if report.notes:
        items = "".join(f"<li>{html.escape(note)}</li>" for note in report.notes)
        sections.append(_section("Notes", [f"<ul>{items}</ul>"], "notes"))

    title = "kgcert report: " + ", ".join(run.label for run in runs.runs)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1>\n{headline_html(report, found)}\n"
            f"{contents(sections)}\n"
            + "\n".join(sections)
            + "\n</body></html>\n")


_HEADING = re.compile(r'<h([23]) id="([^"]+)">(.*?)</h\1>')


def contents(sections: Sequence[str]) -> str:
    """A table of contents: every section, and under "Certificates per spec" each spec."""
    top: list[tuple[str, str, list[tuple[str, str]]]] = []
    for level, anchor, title in _HEADING.findall("\n".join(sections)):
        if level == "2":
            top.append((anchor, title, []))
        elif top:
            top[-1][2].append((anchor, title))
    items = []
    for anchor, title, subs in top:  # anchors and titles are escaped already
        inner = "".join(f'<li><a href="#{a}">{t}</a></li>' for a, t in subs)
        items.append(f'<li><a href="#{anchor}">{title}</a>'
                     + (f"<ul>{inner}</ul>" if inner else "") + "</li>")
    return f'<nav class="toc" id="contents"><b>Contents</b><ul>{"".join(items)}</ul></nav>'
