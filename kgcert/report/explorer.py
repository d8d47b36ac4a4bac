"""The report's sample explorer: every sample of the runs (the certificates' proof) as a
filterable, searchable list in report.html, each row opening to its prompt, response, parse
note, provenance and subgraph; plus a view of the indices where models disagree.

The page stays one offline file. Rows are embedded as JSON (strings interned); the details
(prompt texts, responses, laid-out subgraphs) are gzip-compressed in chunks of CHUNK prompts
and inflated by the browser (DecompressionStream) when a row opens, so 50,000 samples make a
file of tens of megabytes that opens at once. A prompt that several models answered is stored
and laid out once. The script (explorer_js/, in parts) writes data into the page with
textContent and SVG attributes only, never as markup.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import importlib.util
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgcert.report.prompt_parts import question_line, question_start
from kgcert.report.run_frames import RunSet, chosen_role, entity_path_length, run_records
from kgcert.report.sample_graph import GRAPH_FIELDS, sample_graphs
from kgcert.rundir.run_dir import run_dir_of

CHUNK = 100  # prompts per compressed detail chunk
# Draws the subgraphs (vendored, MIT; see vendor/README.md): inlined, the page stays offline.
CYTOSCAPE = "vendor/cytoscape.min.js"
ASSETS = Path(__file__).resolve().parent
# The explorer's script in parts, joined in this order inside one function (see base.js).
SCRIPT_PARTS = ("base", "filter", "table", "rows", "links", "graph", "start")
ROW_FIELDS = ("run", "spec", "setting", "model", "index", "outcome", "chosen", "chosen_name",
              "correct", "correct_name", "role", "path_length", "task", "format", "prompt",
              "draw", "question", "names")
TEXT_FIELDS = {"run", "spec", "setting", "model", "outcome", "chosen_name", "correct_name",
               "role", "task", "format", "question", "names"}  # interned into the string table
MAX_ANSWERS = 20  # accepted answers of a task shown per prompt


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no "<" (so no "</script>" or "<!--") and, being
    ASCII, no U+2028/U+2029."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c")


@dataclass
class Interner:
    strings: list[str] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)

    def __call__(self, text: Any) -> int | None:
        if text is None:
            return None
        text = str(text)
        if text not in self.ids:
            self.ids[text] = len(self.strings)
            self.strings.append(text)
        return self.ids[text]


def _prompt_key(record: Mapping[str, Any]) -> str:
    prompt = record.get("prompt") or {}
    provenance = prompt.get("provenance") or {}
    parts = [record.get("spec"), record.get("setting"), record.get("index"),
             record.get("spec_hash"), provenance.get("seed"), prompt.get("text"),
             prompt.get("option_ids"), prompt.get("skipped")]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


def _option_name(prompt: Mapping[str, Any], number: Any) -> str | None:
    options = prompt.get("options") or []
    if isinstance(number, int) and 1 <= number <= len(options):
        return str(options[number - 1])
    return None


LAYOUT_HINT = ("Subgraphs are not drawn: their layout needs networkx (pip install "
               "'kgcert[report]').")


def networkx_available() -> bool:
    return importlib.util.find_spec("networkx") is not None


def prompt_details(prompt: Mapping[str, Any]) -> dict[str, Any]:
    """What a row shows of its prompt: text, options and provenance (the subgraph is laid
    out apart, for every prompt at once)."""
    provenance = prompt.get("provenance") or {}
    extra = provenance.get("extra") or {}
    answers = [str(a) for a in prompt.get("answers") or []]
    shown = {key: provenance.get(key) for key in (
        "spec", "spec_hash", "kind", "seed", "index", "setting", "textualization", "template",
        "nodes", "edges", "distractors", "aliases", "rejected_draws", "rejected_prompts")}
    shown["sample_seed"] = extra.get("sample_seed")
    shown["context_edges"] = len(extra.get("context_edges") or [])
    shown["other_correct_answers"] = max(len(extra.get("correct_answers") or []) - 1, 0)
    text = str(prompt.get("text") or "")
    return {
        "text": text, "skipped": prompt.get("skipped"),
        "question_at": question_start(text),  # the worked examples before it are folded
        "options": [str(o) for o in prompt.get("options") or []],
        "option_ids": [str(i) for i in prompt.get("option_ids") or []],
        "roles": [str(r) for r in extra.get("option_roles") or []],
        "correct_option": prompt.get("correct_option"), "answer_id": prompt.get("answer_id"),
        "answers": answers[:MAX_ANSWERS], "more_answers": max(len(answers) - MAX_ANSWERS, 0),
        "provenance": shown, "graph": None,
    }


def sample_details(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a row shows of the model's side: its reply, how it was read, what it cost."""
    response = record.get("response") or {}
    return {
        "response": response.get("text"), "error": response.get("error"),
        "parse_note": record.get("parse_note"), "skip_reason": record.get("skip_reason"),
        "chosen_id": record.get("chosen_id"), "exact": record.get("exact_correct"),
        "flexible": record.get("flexible_correct"), "latency_s": response.get("latency_s"),
        "prompt_tokens": response.get("prompt_tokens"),
        "completion_tokens": response.get("completion_tokens"),
        "cached": response.get("cached"), "choice_probs": response.get("choice_probs"),
    }


@dataclass
class ExplorerData:
    """Rows for the list (ROW_FIELDS, text as string-table ids) and compressed detail chunks."""

    strings: list[str]
    rows: list[list[Any]]
    chunks: list[str]  # base64 gzip JSON: {"prompts": {id: details}, "samples": {row: ...}}
    graphs: bool = True  # subgraphs laid out (networkx installed)

    @property
    def samples(self) -> int:
        return len(self.rows)


def _records(runs: RunSet) -> Iterator[tuple[str, dict[str, Any]]]:
    for run in runs.runs:
        for record in run_records(run):  # the explorer shows records as they were written
            yield run.label, record.to_dict()


def _compress(body: dict[str, Any]) -> str:
    raw = json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def explorer_data(runs: RunSet) -> ExplorerData:
    graphs = networkx_available()
    intern = Interner()
    prompt_ids: dict[str, int] = {}
    draws: dict[tuple[Any, ...], int] = {}  # (spec, hash, setting, seed, index): one draw
    drawn: list[dict[str, Any]] = []  # what the subgraph layout needs of each prompt
    chunk_bodies: list[dict[str, dict[str, Any]]] = []
    rows: list[list[Any]] = []
    prompt_runs: list[str] = []  # the run each prompt was first read from
    names_of = {run.label: run_dir_of(run.path).entity_names() for run in runs.runs}
    for label, record in _records(runs):
        prompt = record.get("prompt") or {}
        provenance = prompt.get("provenance") or {}
        key = _prompt_key(record)
        if key not in prompt_ids:
            prompt_ids[key] = len(prompt_ids)
            prompt_runs.append(label)
            if prompt_ids[key] % CHUNK == 0:
                chunk_bodies.append({"prompts": {}, "samples": {}})
            chunk_bodies[-1]["prompts"][str(prompt_ids[key])] = prompt_details(prompt)
            drawn.append({name: prompt.get(name) for name in GRAPH_FIELDS})
        pid = prompt_ids[key]
        chunk_bodies[pid // CHUNK]["samples"][str(len(rows))] = sample_details(record)
        chosen = record.get("parsed_option")
        values = {
            "run": label, "spec": record.get("spec", provenance.get("spec")),
            "setting": record.get("setting", provenance.get("setting")),
            "model": record.get("model"), "index": record["index"],
            "outcome": record.get("outcome"),
            "chosen": chosen if isinstance(chosen, int) else None,
            "chosen_name": _option_name(prompt, chosen),
            "correct": prompt.get("correct_option"),
            "correct_name": _option_name(prompt, prompt.get("correct_option")),
            "role": chosen_role(prompt, record), "path_length": entity_path_length(provenance),
            "task": prompt.get("task"), "format": provenance.get("textualization"),
            "prompt": pid,
            "question": question_line(str(prompt.get("text") or "")),
            "names": " | ".join(str(o) for o in prompt.get("options") or []) or None,
            "draw": draws.setdefault((record.get("spec"), record.get("spec_hash"),
                                      record.get("setting"), provenance.get("seed"),
                                      record["index"]), len(draws)),
        }
        rows.append([intern(values[name]) if name in TEXT_FIELDS else values[name]
                     for name in ROW_FIELDS])
    if graphs:
        for pid, graph in enumerate(sample_graphs(drawn)):
            chunk_bodies[pid // CHUNK]["prompts"][str(pid)]["graph"] = _named(
                graph, names_of[prompt_runs[pid]])
    return ExplorerData(intern.strings, rows, [_compress(body) for body in chunk_bodies],
                        graphs)


def _named(graph: dict[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """Entities captioned by name: options and question entities carry the names the prompt
    used; context entities get theirs from the run's entity_names.json (their id without)."""
    for node in graph["nodes"]:
        if node.get("label") == node["id"] and node["id"] in names:
            node["label"] = names[node["id"]]
    more = {end for edge in graph.get("more", ()) for end in (edge["source"], edge["target"])}
    graph["names"] = {i: names[i] for i in sorted(more) if i in names}
    return graph


def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def explorer_script() -> str:
    """The explorer's script: its parts in order, in one function of their own."""
    parts = "\n".join(_asset(f"explorer_js/{name}.js") for name in SCRIPT_PARTS)
    return f'(function () {{\n  "use strict";\n{parts}}})();\n'


def explorer_section(runs: RunSet) -> str:
    """The explorer as one HTML fragment (heading, controls, data, style and script)."""
    data = explorer_data(runs)
    if not data.rows:
        return ""
    meta = {"fields": ROW_FIELDS, "strings": data.strings, "rows": data.rows,
            "chunk": CHUNK, "chunks": len(data.chunks)}
    chunks = "\n".join(f'<script type="application/gzip-base64" id="kgx-chunk-{i}">{body}'
                       "</script>" for i, body in enumerate(data.chunks))
    return (f'<h2 id="samples">Samples</h2>\n<p class="note">Every sample the certificates '
            f"count ({data.samples:,}), the proof behind the bounds. Filter, search, and open a "
            "row for its prompt, the model's reply, how it was read, its provenance and its "
            "subgraph. Needs JavaScript (any current browser, offline).</p>\n"
            + ("" if data.graphs else f'<p class="note">{html.escape(LAYOUT_HINT)}</p>\n') +
            f"<style>{_asset('explorer.css')}</style>\n"
            '<div id="kgx"><noscript>The sample explorer needs JavaScript.</noscript></div>\n'
            f'<script type="application/json" id="kgx-data">{script_json(meta)}</script>\n'
            f"{chunks}\n" + (f"<script>{_asset(CYTOSCAPE)}</script>\n" if data.graphs else "")
            + f"<script>{explorer_script()}</script>\n")
