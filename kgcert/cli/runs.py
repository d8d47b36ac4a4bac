"""`kgcert runs` (run directories and their certificates) and `kgcert show` (one sample as a
person reads it: prompt, response, parsed answer, outcome, correct answer, provenance)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from kgcert.certify.cost import cost_line
from kgcert.cli.common import console, errors
from kgcert.cli.console import keep_names, print_table
from kgcert.errors import InputError
from kgcert.rundir.outcomes import OUTCOMES as OUTCOME_CHOICES
from kgcert.util.terminal_text import escaped_controls


@click.command("runs")
@click.argument("root", required=False, default="runs", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per run instead.")
def runs_command(root: Path, as_json: bool) -> None:
    """List run directories (default ./runs) with their certificates."""
    from kgcert.certify.comparison import decision_lines
    from kgcert.rundir.browse import find_runs, summarize
    from kgcert.rundir.run_dir import run_dir_of

    runs = find_runs(root)
    if not runs and not as_json:
        console.print(Text(f"no run directories in {root}"))
    for run in runs:
        summary = summarize(run)
        for problem in summary.problems:
            errors.print(Text(f"warning: {problem}"))
        if as_json:
            click.echo(json.dumps(summary.as_dict(), ensure_ascii=False))
            continue
        config = summary.config
        head = f"{run}  (KG {config.get('kg', '?')}, seed {config.get('seed', '?')})"
        console.print(Text(head, style="bold"))
        if not summary.certificates:
            console.print(Text(f"  no certificates yet ({summary.sample_files} sample files)"))
            continue
        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 1))
        for column in ("spec", "setting", "model", "k / n", "lower", "upper", "seed", "cost"):
            table.add_column(column, justify="right" if column in ("lower", "upper") else "left")
        for cert, _ in summary.certificates:
            suite = " (suite)" if cert.spec_kind == "suite" else ""
            table.add_row(Text(f"{cert.spec}{suite}"), Text(str(cert.setting)),
                          Text(str(cert.model)), f"{cert.k} / {cert.n}",
                          _bound(cert.lower), _bound(cert.upper), str(cert.seed),
                          Text(cost_line(cert.cost)))
        print_table(console, keep_names(table, "spec", "setting", "model"))
        for line in decision_lines(run_dir_of(run)):
            console.print(Text(f"  {line}"))


def _bound(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, int | float) else "?"


@click.command("show")
@click.argument("run", type=click.Path(path_type=Path))
@click.argument("index", type=click.IntRange(min=0), required=False)
@click.option("--spec", default=None, help="The spec (needed when the run has several).")
@click.option("--setting", default=None, help="The setting or task format.")
@click.option("--model", default=None, help="The model's provider string.")
@click.option("--outcome", type=click.Choice(OUTCOME_CHOICES), default=None,
              help="The first sample with this outcome at or after INDEX (default 0); the "
                   "last line gives the command for the next one.")
@click.option("--json", "as_json", is_flag=True, help="The sample's record as one JSON line.")
def show_command(run: Path, index: int | None, spec: str | None, setting: str | None,
                 model: str | None, outcome: str | None, as_json: bool) -> None:
    """Print one sample of a run: prompt, response, answer, outcome and provenance."""
    from kgcert.rundir.browse import find_sample, outcome_indices

    if index is None and outcome is None:
        raise InputError("name the sample: give its INDEX, or --outcome (e.g. --outcome wrong) "
                         "for the first sample with that outcome")
    file, record = find_sample(run, index or 0, spec=spec, setting=setting, model=model,
                               outcome=outcome)
    if as_json:
        click.echo(json.dumps(record.to_dict(), ensure_ascii=False, sort_keys=True))
        return
    # A reply's terminal escapes are shown, never obeyed (the --json form keeps them as JSON).
    click.echo(escaped_controls(describe_sample(record.to_dict(),
                                                str(file.path.relative_to(run)))))
    if outcome is not None:  # step on: the command for the next sample like it
        later = [i for i in outcome_indices(file, outcome) if i > record.index]
        filters = " ".join(f"--{name} {shlex.quote(value)}" for name, value in (
            ("spec", spec), ("setting", setting), ("model", model)) if value)
        click.echo(f"next {outcome} sample: kgcert show {shlex.quote(str(run))} "
                   f"{filters + ' ' if filters else ''}--outcome {outcome} {later[0]}"
                   if later else f"no {outcome} sample after {record.index}")


def _section(title: str) -> str:
    return f"--- {title} " + "-" * max(0, 60 - len(title))


def _option(prompt: Mapping[str, Any], number: Any) -> str:
    options = prompt.get("options") or []
    ids = prompt.get("option_ids") or []
    if not isinstance(number, int) or not 1 <= number <= len(options):
        return str(number)
    entity = f" ({ids[number - 1]})" if number <= len(ids) else ""
    return f"{number}. {options[number - 1]}{entity}"


def describe_sample(record: Mapping[str, Any], file: str) -> str:
    """The record as text a person reads top to bottom."""
    prompt = record.get("prompt") or {}
    provenance = prompt.get("provenance") or {}
    extra = provenance.get("extra") or {}
    response = record.get("response") or {}
    form = provenance.get("textualization")
    lines = [f"sample {record.get('index')} of {record.get('spec')} / {record.get('setting')}"
             f"{' (' + form + ')' if form else ''} / {record.get('model')}  [{file}]",
             f"outcome: {record.get('outcome')}"]
    if prompt.get("skipped"):
        lines.append(f"skipped before reaching the model: {prompt['skipped']}")
    if prompt.get("system"):  # the system strategy's system message
        lines += [_section("system"), str(prompt["system"]).rstrip("\n")]
    lines += [_section("prompt"), str(prompt.get("text", "")).rstrip("\n"),
              _section("response")]
    if response.get("error"):
        lines.append(f"(the call failed: {response['error']})")
    else:
        lines.append(str(response.get("text", "")).rstrip("\n"))
    if response:
        lines.append(call_cost(response))
    lines.append(_section("answer"))
    chosen = record.get("parsed_option")
    roles = extra.get("option_roles") or []
    if chosen is not None:
        role = (f" (option role: {roles[chosen - 1]})" if isinstance(chosen, int)
                and 1 <= chosen <= len(roles) else "")
        lines.append(f"parsed answer: {_option(prompt, chosen)}{role}")
    elif "exact" in record or "exact_correct" in record:  # task scores; older runs: *_correct
        exact = record.get("exact", record.get("exact_correct"))
        flexible = record.get("flexible", record.get("flexible_correct"))
        lines.append(f"scored: exact {exact}, flexible {flexible}")
    else:
        lines.append("parsed answer: none")
    if record.get("parse_note"):
        lines.append(f"parse note: {record['parse_note']}")
    if prompt.get("correct_option") is not None:
        lines.append(f"correct answer: {_option(prompt, prompt['correct_option'])}")
        others = [a for a in extra.get("correct_answers") or [] if a != prompt.get("answer_id")]
        if others:
            lines.append(f"  {len(others)} other entities complete the pattern too (none is "
                         "offered as a wrong option)")
    elif prompt.get("answers"):
        answers = list(prompt["answers"])
        more = f" (+{len(answers) - 10} more)" if len(answers) > 10 else ""
        lines.append(f"accepted answers: {', '.join(map(str, answers[:10]))}{more}")
    lines += [_section("provenance"), *_provenance(record, provenance, extra)]
    return "\n".join(lines)


def call_cost(response: Mapping[str, Any]) -> str:
    """What this sample's call cost (nothing when the response cache answered it)."""
    if response.get("cached"):
        return "cost: none (answered from the response cache; no model call)"
    parts = [f"{float(response.get('latency_s') or 0.0):.2f} s"]
    if response.get("prompt_tokens") is not None or response.get("completion_tokens") is not None:
        parts.append(f"{response.get('prompt_tokens') or 0} prompt + "
                     f"{response.get('completion_tokens') or 0} completion tokens")
    if response.get("gpu_s") is not None:
        parts.append(f"GPU {float(response['gpu_s']):.2f} s")
    return "cost: one model call, " + ", ".join(parts)


def _provenance(record: Mapping[str, Any], provenance: Mapping[str, Any],
                extra: Mapping[str, Any]) -> list[str]:
    prompt = record.get("prompt") or {}
    # the names the prompt used: aliases of the question's entities, then the options
    aliases = dict(zip(map(str, prompt.get("option_ids") or []), prompt.get("options") or [],
                       strict=False))
    aliases.update({str(k): v for k, v in (provenance.get("aliases") or {}).items()})

    def named(entity: Any) -> str:
        alias = aliases.get(str(entity))
        return f"{entity} ({alias})" if alias else str(entity)

    lines = [f"spec {provenance.get('spec')} ({provenance.get('kind')}, hash "
             f"{record.get('spec_hash', provenance.get('spec_hash'))}), seed "
             f"{provenance.get('seed')}, sample seed {extra.get('sample_seed', '-')}, "
             f"template {provenance.get('template', '-')}"]
    nodes = provenance.get("nodes") or {}
    if isinstance(nodes, Mapping) and nodes:
        lines.append("entities: " + ", ".join(f"{var} = {named(node)}"
                                              for var, node in nodes.items()))
    elif isinstance(nodes, list) and nodes:
        lines.append("entities: " + ", ".join(named(node) for node in nodes))
    for edge in provenance.get("edges") or []:
        if isinstance(edge, list | tuple) and len(edge) == 3:
            lines.append(f"  edge {named(edge[0])} -[{edge[1]}]-> {named(edge[2])}")
    distractors = provenance.get("distractors") or []
    if distractors:
        lines.append(f"distractors: {', '.join(map(named, distractors))}")
    kept, offered = extra.get("context_kept"), extra.get("context_offered") or {}
    if isinstance(kept, Mapping) and kept:
        lines.append("context sentences kept of offered: " + ", ".join(
            f"{part} {count}/{offered.get(part, '?')}" for part, count in kept.items()))
    return lines


COMMANDS = [runs_command, show_command]
