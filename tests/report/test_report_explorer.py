"""The report's sample explorer on a real run: a synthetic PrimeKG-shaped KG loaded into the
embedded server, `kgcert run` with two bernoulli models of known accuracy and `kgcert report`,
as a user runs them. The page is then driven in headless Chromium (Selenium with the system's
chromedriver): filters, counts, an opened row, the models-disagree view, and text from the KG
or a model that tries to be markup.

The browser tests skip, saying why, where Chromium, chromedriver or Selenium is missing
(CI installs them: apt `chromium chromium-driver`, pip `selenium`).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import headless_chromium
from cli_process import kgcert_process

from kgcert.models.base import ModelResponse
from kgcert.prompts.record import Prompt, Provenance
from kgcert.report.explorer import CHUNK, ROW_FIELDS, explorer_data, script_json
from kgcert.report.prompt_parts import question_line
from kgcert.report.run_frames import load_runs
from kgcert.report.sample_graph import sample_graph, sample_graphs
from kgcert.run.runner import Job, Runner
from kgcert.rundir.run_spec import RunSpec
from kgcert.synth.primekg import SyntheticPrimeKG

MODELS = ("bernoulli:0.7", "bernoulli:0.4")
N = 24
# A fixed seed: its samples hold dense subgraphs (30 entities, 47-66 edges) whose captions the
# force layouts alone left touching (5 of 50 drawings before the final separation pass).
SEED = 5
KG = "synth_explorer"
HOSTILE = "</script><script>window.kgxPwned = 1</script><img src=x onerror=\"window.kgxPwned = 2\">"


def kgcert(env: dict[str, str], *args: str) -> None:
    done = kgcert_process(*args, env=env, drop=(), timeout=600)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("explorer")
    env = {**os.environ, "KGCERT_DATA_DIR": str(folder / "data"), "OMP_NUM_THREADS": "1"}
    SyntheticPrimeKG(scale=0.003, seed=3).write_kg_csv(folder / "kg.csv")
    kgcert(env, "load", "primekg", str(folder / "kg.csv"), "--kg", KG)
    run = folder / "run"
    kgcert(env, "run", "--kg", KG, "--spec", "primekg.dual_indication",
           *(arg for model in MODELS for arg in ("--model", model)),
           "--setting", "vanilla", "--baseline", str(N), "--n", str(N), "--seed", str(SEED),
           "--out", str(run))
    # the static baseline as the second setting, not the distractor setting: dual_indication's
    # questions have no distractor, and `run` refuses a distractor setting that holds none
    kgcert(env, "report", str(run), "--out", str(run / "report"), "--no-figures")
    return run


def records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in sorted((run / "samples").rglob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines()]


def inflate(chunk: str) -> dict[str, Any]:
    return json.loads(gzip.decompress(base64.b64decode(chunk)))


def disagreements(found: list[dict[str, Any]]) -> int:
    """Prompts that one model answered right and another did not (wrong or unparseable)."""
    outcomes: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for record in found:
        outcomes[(record["spec"], record["setting"], record["index"])].append(record["outcome"])
    answered = ("correct", "wrong", "unparseable")
    return sum(1 for got in outcomes.values() if "correct" in got
               and sum(o in answered for o in got) > got.count("correct"))


# -- the data the page embeds -----------------------------------------------------------------


def test_rows_are_the_sample_files_and_prompts_are_stored_once(run_dir: Path):
    found = records(run_dir)
    data = explorer_data(load_runs([run_dir], samples=False))
    assert data.samples == len(found) == len(MODELS) * 2 * N
    field = {name: i for i, name in enumerate(ROW_FIELDS)}
    prompts = {row[field["prompt"]] for row in data.rows}
    assert len(prompts) == 2 * N  # each prompt answered by both models, stored once
    assert len(data.chunks) == -(-len(prompts) // CHUNK)
    bodies = [inflate(chunk) for chunk in data.chunks]
    assert sum(len(b["samples"]) for b in bodies) == len(found)
    by_key = {(r["setting"], r["model"], r["index"]): r for r in found}
    assert len({row[field["draw"]] for row in data.rows}) == 2 * N  # one draw per prompt
    for number, row in enumerate(data.rows):
        setting, model = data.strings[row[field["setting"]]], data.strings[row[field["model"]]]
        record = by_key[(setting, model, row[field["index"]])]
        pid = row[field["prompt"]]
        body = bodies[pid // CHUNK]
        prompt, sample = body["prompts"][str(pid)], body["samples"][str(number)]
        assert prompt["text"] == record["prompt"]["text"]
        assert sample["response"] == record["response"]["text"]
        graph = prompt["graph"]
        ids = {node["id"] for node in graph["nodes"]}
        provenance = record["prompt"]["provenance"]
        assert set(provenance["nodes"].values()) <= ids  # the question's entities
        assert set(record["prompt"]["option_ids"]) <= ids  # every option, with its role
        roles = {node["id"]: node.get("role") for node in graph["nodes"]}
        assert [roles[i] for i in record["prompt"]["option_ids"]] == (
            provenance["extra"]["option_roles"])
        assert set(provenance["distractors"]) <= {n["id"] for n in graph["nodes"]
                                                   if n.get("distractor")}
        question = [[e["source"], e["relation"], e["target"]] for e in graph["edges"]
                    if e["kind"] == "question"]
        assert question == provenance["edges"]
        context = {f"{e['source']}|{e['relation']}|{e['target']}" for e in graph["edges"]
                   if e["kind"] == "context"}
        assert context <= set(provenance["extra"]["context_edges"])
        assert len(ids) <= 30 or not context
        assert all(0 <= node[axis] <= 1000 for node in graph["nodes"] for axis in "xy")
        if record.get("chosen_id") is not None:
            assert sample["chosen_id"] in ids


def test_layouts_in_worker_processes_are_the_same(run_dir: Path):
    prompts = [record["prompt"] for record in records(run_dir)[:40]]
    assert sample_graphs(prompts, parallel_from=1) == [sample_graph(p) for p in prompts]


def test_script_json_cannot_end_its_script_element():
    text = script_json({"a": HOSTILE + "\u2028\u2029<!--"})
    assert "<" not in text and "\u2028" not in text and "\u2029" not in text
    assert json.loads(text) == {"a": HOSTILE + "\u2028\u2029<!--"}


# -- the page in a browser --------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from headless_chromium("--window-size=1400,1600")


def _open(browser: Any, page: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(page.resolve().as_uri())
    WebDriverWait(browser, 20).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#kgx-count[data-count]"))


def _count(browser: Any) -> int:
    from selenium.webdriver.common.by import By

    return int(browser.find_element(By.ID, "kgx-count").get_attribute("data-count"))


def _rows(browser: Any) -> list[Any]:
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, "#kgx-rows tr.kgx-row")


def _choose(browser: Any, name: str, *values: str) -> int:
    """Tick exactly `values` in the filter `name` (none: all), as a person clicks them."""
    from selenium.webdriver.common.by import By

    box = browser.find_element(By.ID, f"kgx-filter-{name}")
    summary = box.find_element(By.TAG_NAME, "summary")
    if box.get_attribute("open") is None:
        summary.click()
    for checkbox in box.find_elements(By.CSS_SELECTOR, "input[type=checkbox]"):
        if checkbox.is_selected() != (checkbox.get_attribute("value") in values):
            checkbox.click()
    summary.click()
    return _count(browser)


def _prompt_text(detail: Any) -> str:
    """The whole prompt an opened sample shows: worked examples (folded) and the question."""
    from selenium.webdriver.common.by import By

    heads = detail.find_elements(By.CSS_SELECTOR, "pre.kgx-prompt-head")
    head = heads[0].get_attribute("textContent") if heads else ""
    return head + detail.find_element(By.CSS_SELECTOR, "pre.kgx-prompt").get_attribute(
        "textContent")


DRAWING = """
const box = arguments[0].querySelector('.kgx-cy');  // null while the sample still loads
const cy = box && box.kgxCy;
if (!cy) return null;
const boxes = cy.nodes().map(n => n.boundingBox({includeLabels: true, includeOverlays: false}));
let overlaps = 0;
for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
  const a = boxes[i], b = boxes[j];
  if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) overlaps++;
}
return {nodes: cy.nodes().length, edges: cy.edges().length,
  question_edges: cy.edges('.question').length, answers: cy.nodes('.answer').length,
  chosen: cy.nodes('.chosen').length, overlaps: overlaps,
  captions: cy.nodes().map(n => n.data('caption')), ids: cy.nodes().map(n => n.id()),
  expandable: cy.nodes('.expandable').map(n => n.id()),
  zoom: cy.userZoomingEnabled(), pan: cy.userPanningEnabled(), grab: cy.autoungrabify() === false};
"""


def _drawing(browser: Any, detail: Any) -> dict[str, Any]:
    """What the opened sample's Cytoscape drawing holds, once it is drawn."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 20).until(lambda d: d.execute_script(DRAWING, detail) is not None)
    return browser.execute_script(DRAWING, detail)


def _expand_first(browser: Any) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    row = _rows(browser)[0]
    browser.execute_script("arguments[0].scrollIntoView()", row)
    row.click()
    WebDriverWait(browser, 20).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "tr.kgx-detail pre.kgx-prompt"))
    return browser.find_element(By.CSS_SELECTOR, "tr.kgx-detail")


def test_wrong_filter_counts_the_wrong_samples_and_a_row_opens(browser, run_dir: Path):
    from selenium.webdriver.common.by import By

    found = records(run_dir)
    _open(browser, run_dir / "report" / "report.html")
    assert _count(browser) == len(found)
    wrong = [r for r in found if r["outcome"] == "wrong"]
    assert 0 < len(wrong) < len(found)
    assert _choose(browser, "outcome", "wrong") == len(wrong)
    assert len(_rows(browser)) == min(len(wrong), 50)
    cells = _cells(browser, _rows(browser)[0])
    assert cells["outcome"] == "wrong"
    record = next(r for r in wrong if (r["setting"], r["model"], str(r["index"]))
                  == (cells["setting"], cells["model"], cells["index"]))
    detail = _expand_first(browser)
    assert _prompt_text(detail) == record["prompt"]["text"]
    # the question's part is shown open, the worked examples before it folded
    head = detail.find_element(By.CSS_SELECTOR, "details.kgx-head")
    assert head.get_attribute("open") is None
    assert "Worked examples" in head.get_attribute("textContent")
    question = detail.find_element(By.CSS_SELECTOR, "p.kgx-question").text
    assert question == "Question: " + question_line(record["prompt"]["text"])
    response = detail.find_element(By.CSS_SELECTOR, "pre.kgx-response").get_attribute(
        "textContent")
    assert response == record["response"]["text"]
    assert record["prompt"]["provenance"]["spec_hash"] in detail.text
    drawn = _drawing(browser, detail)
    assert drawn["question_edges"] == len(record["prompt"]["provenance"]["edges"])
    assert drawn["answers"] == 1
    assert drawn["chosen"] == (record.get("chosen_id") is not None)


def test_search_and_disagreement_view(browser, run_dir: Path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    found = records(run_dir)
    _open(browser, run_dir / "report" / "report.html")
    browser.find_element(By.ID, "kgx-search").send_keys("bernoulli:0.4 vanilla")
    expected = sum(1 for r in found if r["model"] == "bernoulli:0.4"
                   and r["setting"] == "vanilla")
    WebDriverWait(browser, 10).until(lambda d: _count(d) == expected)
    browser.find_element(By.ID, "kgx-search").clear()
    browser.execute_script("document.getElementById('kgx-search')"
                           ".dispatchEvent(new Event('input'))")
    WebDriverWait(browser, 10).until(lambda d: _count(d) == len(found))
    browser.find_element(By.ID, "kgx-search").send_keys("worked examples")  # prompt text only
    WebDriverWait(browser, 10).until(lambda d: _count(d) == 0)
    browser.find_element(By.ID, "kgx-deep").click()
    expected = sum("worked examples" in r["prompt"]["text"].lower() for r in found)
    WebDriverWait(browser, 20).until(lambda d: _count(d) == expected > 0)
    browser.find_element(By.ID, "kgx-view-disagree").click()
    assert _count(browser) == disagreements(found) > 0
    detail = _expand_first(browser)
    assert len(detail.find_elements(By.CSS_SELECTOR, ".kgx-model")) == len(MODELS)
    assert len(detail.find_elements(By.CSS_SELECTOR, "pre.kgx-prompt")) == 1


class _Echo:
    """Replies with the correct option's text, so the reply carries the option's markup."""

    name = "echo"
    cacheable = False
    config = None

    def identity(self) -> dict[str, Any]:
        return {"provider": "echo"}

    def close(self) -> None:
        pass

    def generate(self, requests, config=None) -> list[ModelResponse]:
        return [ModelResponse(text=f"correct answer: 1. {HOSTILE}", choice_probs=(0.75, 0.25))
                for _ in requests]


def test_text_from_the_kg_or_a_model_stays_text(browser, tmp_path: Path):
    from selenium.webdriver.common.by import By

    from kgcert.models.base import GenerationConfig
    from kgcert.report import write_report
    from kgcert.run.runner import ModelSlot

    def build(index: int) -> Prompt:
        provenance = Provenance(spec="hostile", spec_hash="h", kind="relation", seed=0,
                                index=index, setting="vanilla", nodes={"a": "e<1>"},
                                edges=(("e<1>", "R</script>", HOSTILE),),
                                extra={"option_roles": ["answer", "random"]})
        return Prompt(f"Question {index}: {HOSTILE}\u2028next", provenance,
                      options=(HOSTILE, "plain"), option_ids=(HOSTILE, "e2"),
                      correct_option=1, answer_id=HOSTILE)

    config = RunSpec.of(kg="toy", specs=("toy",), models=("echo",), n=3)
    Runner(config, tmp_path / "run", [Job("hostile", "h", "vanilla", build)],
           [ModelSlot("echo", _Echo(), GenerationConfig())]).run()  # type: ignore[arg-type]
    write_report([tmp_path / "run"], tmp_path / "report", figures=False)
    _open(browser, tmp_path / "report" / "report.html")
    assert browser.execute_script("return window.kgxPwned") is None
    assert _count(browser) == 3
    detail = _expand_first(browser)
    assert browser.execute_script("return window.kgxPwned") is None
    text = detail.find_element(By.CSS_SELECTOR, "pre.kgx-prompt").get_attribute("textContent")
    assert text == f"Question 0: {HOSTILE}\u2028next"
    assert HOSTILE in detail.find_element(By.CSS_SELECTOR, "pre.kgx-response").text
    probabilities = [p.text for p in detail.find_elements(By.CSS_SELECTOR, ".kgx-prob")]
    assert probabilities == ["p = 0.750", "p = 0.250"]  # choice mode's, beside each option
    assert not browser.find_elements(By.CSS_SELECTOR, "img")
    captions = _drawing(browser, detail)["captions"]
    assert any(caption.startswith("1. </script>") for caption in captions)
    assert browser.execute_script("return window.kgxPwned") is None


def test_filters_by_path_length_task_and_format(browser, tmp_path: Path):
    """Toy runs with entity paths, KG-LLM-Bench tasks in two formats, failed calls and
    skipped prompts (tests/report/test_report_tables.py): each filter counts what the files hold."""
    from test_report_tables import make_runs, path_length

    from kgcert.report import write_report

    runs = make_runs(tmp_path / "runs")
    write_report(list(runs), tmp_path / "report", figures=False)
    found = [r for run in runs for r in records(run)]
    _open(browser, tmp_path / "report" / "report.html")
    assert _count(browser) == len(found)

    def choose(name: str, value: str) -> int:
        return _choose(browser, name, *([value] if value else []))

    entity = [r for r in found if r["prompt"]["provenance"]["kind"] == "entity"]
    assert choose("path_length", "2") == sum(path_length(r["index"]) == 2 for r in entity) > 0
    detail = _expand_first(browser)
    assert _drawing(browser, detail)["question_edges"] == 2
    choose("path_length", "")
    assert choose("task", "shortest_path") == sum(
        r["prompt"]["task"] == "shortest_path" for r in found)
    assert choose("format", "json") == sum(
        r["prompt"]["task"] == "shortest_path"
        and r["prompt"]["provenance"]["textualization"] == "json" for r in found)
    choose("task", "")
    choose("format", "")
    for outcome in ("error", "skipped"):
        assert choose("outcome", outcome) == sum(r["outcome"] == outcome for r in found) > 0
    assert choose("run", "run-b") == sum(r["outcome"] == "skipped"
                                         for r in records(runs[1])) > 0
    choose("run", "")
    choose("outcome", "")

    def role(record: dict[str, Any]) -> str | None:
        option, roles = record.get("parsed_option"), record["prompt"]["provenance"].get(
            "extra", {}).get("option_roles")
        return roles[option - 1] if isinstance(option, int) and roles else None

    assert choose("role", "related") == sum(role(r) == "related" for r in found) > 0


def _cells(browser: Any, row: Any) -> dict[str, str]:
    """A row's cells by column: run and spec, one value in every sample of this run, are
    stated once above the list (#kgx-constant) and have no column."""
    from selenium.webdriver.common.by import By

    heads = [th.get_attribute("class").removeprefix("kgx-c-")
             for th in browser.find_elements(By.CSS_SELECTOR, "table.kgx-table th")]
    return dict(zip(heads, (td.text for td in row.find_elements(By.TAG_NAME, "td")),
                    strict=True))


def _index_cells(browser: Any) -> list[int]:
    return [int(_cells(browser, row)["index"]) for row in _rows(browser)]


def test_sort_multi_value_filters_names_question_column_permalink_and_keys(
        browser, run_dir: Path):
    """Issue 32 item 5: what `inspect view` users expect, at 1,280 px."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    found = records(run_dir)
    browser.set_window_size(1280, 1000)
    try:
        page = run_dir / "report" / "report.html"
        _open(browser, page)
        # several values of one filter at once, and of two filters together
        wrong = sum(r["outcome"] == "wrong" for r in found)
        correct = sum(r["outcome"] == "correct" for r in found)
        assert _choose(browser, "outcome", "wrong", "correct") == wrong + correct
        assert _choose(browser, "model", "bernoulli:0.4") == sum(
            r["outcome"] in ("wrong", "correct") and r["model"] == "bernoulli:0.4" for r in found)
        _choose(browser, "model")
        _choose(browser, "outcome")
        # sort by a column, then the other way
        browser.find_element(By.CSS_SELECTOR, "th.kgx-c-index").click()
        assert _index_cells(browser)[0] == 0 and _index_cells(browser) == sorted(
            _index_cells(browser))
        browser.find_element(By.CSS_SELECTOR, "th.kgx-c-index").click()
        assert _index_cells(browser)[0] == N - 1
        # the question as a column, in full; run and spec said once above the list
        cells = _cells(browser, _rows(browser)[0])
        assert "run" not in cells and "spec" not in cells
        constant = browser.find_element(By.ID, "kgx-constant").text
        assert constant == f"Every sample: run {run_dir.name}; spec primekg.dual_indication"
        record = next(r for r in found if (r["setting"], r["model"], str(r["index"]))
                      == (cells["setting"], cells["model"], cells["index"]))
        assert cells["question"] == question_line(record["prompt"]["text"])
        # an entity name is found without asking to search prompts
        name = record["prompt"]["options"][-1]
        browser.find_element(By.ID, "kgx-search").send_keys(name)
        expected = sum(name.lower() in " | ".join(r["prompt"]["options"]).lower()
                       or name.lower() in (question_line(r["prompt"]["text"]) or "").lower()
                       for r in found)
        WebDriverWait(browser, 10).until(lambda d: _count(d) == expected > 0)
        # a sample's permalink opens it in a fresh page, with nothing filtered
        detail = _expand_first(browser)
        opened = browser.find_element(By.CSS_SELECTOR, "tr.kgx-open").get_attribute("data-row")
        link = detail.find_element(By.CSS_SELECTOR, "a.kgx-link").get_attribute("href")
        assert browser.execute_script("return location.hash") == "#" + link.split("#")[1]
        browser.get("about:blank")
        browser.get(link)
        WebDriverWait(browser, 20).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "tr.kgx-detail pre.kgx-prompt"))
        assert browser.find_element(By.CSS_SELECTOR, "tr.kgx-open").get_attribute(
            "data-row") == opened
        assert _count(browser) == len(found)
        # keyboard: j opens the next sample of the list, k the previous one
        order = [row.get_attribute("data-row") for row in _rows(browser)]
        body = browser.find_element(By.TAG_NAME, "body")
        body.send_keys("j")
        WebDriverWait(browser, 10).until(lambda d: d.find_element(
            By.CSS_SELECTOR, "tr.kgx-open").get_attribute("data-row") != opened)
        now = browser.find_element(By.CSS_SELECTOR, "tr.kgx-open").get_attribute("data-row")
        if opened in order and order.index(opened) + 1 < len(order):
            assert now == order[order.index(opened) + 1]
        body.send_keys("k")
        WebDriverWait(browser, 10).until(lambda d: d.find_element(
            By.CSS_SELECTOR, "tr.kgx-open").get_attribute("data-row") == opened)
        # nothing is wider than the window, an opened sample included
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 1280
        panel = browser.find_element(By.CSS_SELECTOR, "tr.kgx-detail .kgx-panel")
        assert browser.execute_script(
            "const b = arguments[0].getBoundingClientRect(); return b.right", panel) <= 1280
    finally:
        browser.set_window_size(1400, 1600)


def test_spec_section_says_what_was_certified(browser, run_dir: Path):
    """Issue 32 items 1-3: each spec's Cypher (runnable as shown), every certificate's
    guarantee, the run's settings, chosen against correct positions, the question first."""
    from selenium.webdriver.common.by import By

    _open(browser, run_dir / "report" / "report.html")
    links = [a.get_attribute("href").split("#")[1]
             for a in browser.find_elements(By.CSS_SELECTOR, "nav.toc a")]
    assert {"runs", "specs", "spec-primekg.dual_indication", "samples"} <= set(links)
    assert all(browser.find_elements(By.ID, anchor) for anchor in links)  # a table of contents
    cypher = browser.find_element(By.CSS_SELECTOR, "pre.cypher").get_attribute("textContent")
    assert "{{" not in cypher and cypher.startswith("MATCH")
    env = {**os.environ, "KGCERT_DATA_DIR": str(run_dir.parent / "data"),
           "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "kgcert", "query", cypher, "--kg", KG,
                           "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert 0 < len(rows) <= 25 and {"a", "b", "d"} <= set(rows[0])
    bodies = [json.loads(p.read_text()) for p in (run_dir / "certificates").glob("*.json")]
    # each certificate's guarantee, folded under the table as a list of its clauses
    guarantees = [" ".join(li.get_attribute("textContent") for li in box.find_elements(
        By.TAG_NAME, "li")) for box in browser.find_elements(
        By.CSS_SELECTOR, "details.certificate ul.guarantee")]
    assert len(guarantees) == len(bodies)
    assert {b["guarantee"] for b in bodies} == set(guarantees)
    headers = [th.get_attribute("textContent") for th in browser.find_elements(
        By.CSS_SELECTOR, "#specs ~ .wide th")]
    assert {"mode", "few-shot", "budget", "model identity", "p (exact test)"} <= set(headers)
    assert "option 1: chosen / correct" in headers
    spec_file = browser.find_element(By.CSS_SELECTOR, "pre.spec-file").get_attribute(
        "textContent")
    assert "name: primekg.dual_indication" in spec_file
    example = browser.find_element(By.CSS_SELECTOR, "#specs ~ details[open]")
    question = example.find_element(By.CSS_SELECTOR, "p.question")
    first_pre = example.find_element(By.TAG_NAME, "pre")
    assert question.location["y"] < first_pre.location["y"]  # the question first
    assert "Your question:" in first_pre.get_attribute("textContent")[:40]


def test_subgraph_captions_names_without_overlaps_and_expands_on_click(browser, run_dir: Path):
    """Issue 32 item 4: entities captioned by name (the run keeps every drawn entity's name),
    no two captioned entities overlap, pan, zoom and drag, and a click adds left-out edges."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    names = json.loads((run_dir / "entity_names.json").read_text())
    found = records(run_dir)
    context_ids = {part for r in found for e in r["prompt"]["provenance"]["extra"].get(
        "context_edges", []) for part in e.split("|")[::2]}
    assert context_ids <= set(names)  # every context entity's name was kept
    _open(browser, run_dir / "report" / "report.html")
    expanded = False
    for number in range(3):
        row = _rows(browser)[number]
        browser.execute_script("arguments[0].scrollIntoView()", row)
        row.click()
        detail = WebDriverWait(browser, 20).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "tr.kgx-detail"))
        drawn = _drawing(browser, detail)
        assert drawn["overlaps"] == 0, drawn
        assert drawn["zoom"] and drawn["pan"] and drawn["grab"]
        for node_id, caption in zip(drawn["ids"], drawn["captions"], strict=True):
            assert caption != node_id or node_id not in names  # a name, never a bare id
            if node_id in names and not caption[:1].isdigit():
                assert caption == names[node_id] or caption.endswith(names[node_id])
        if drawn["expandable"] and not expanded:
            target = drawn["expandable"][0]
            browser.execute_script(
                "arguments[0].querySelector('.kgx-cy').kgxCy.getElementById(arguments[1])"
                ".emit('tap')", detail, target)
            after = _drawing(browser, detail)
            assert after["edges"] > drawn["edges"] and after["nodes"] >= drawn["nodes"]
            assert "context edge" in detail.find_element(
                By.CSS_SELECTOR, ".kgx-cy-info").text
            expanded = True
        row.click()  # close it again
    assert expanded  # some sample had context edges left out to add


def test_no_drawing_has_touching_captions(browser, run_dir: Path):
    """Every sample's drawing, dense ones included, keeps its captioned entities apart."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _open(browser, run_dir / "report" / "report.html")
    touching = []
    for number in range(len(_rows(browser))):
        row = _rows(browser)[number]
        browser.execute_script("arguments[0].scrollIntoView()", row)
        row.click()
        detail = WebDriverWait(browser, 20).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "tr.kgx-detail"))
        drawn = _drawing(browser, detail)
        if drawn["overlaps"]:
            touching.append((number, drawn["overlaps"], drawn["nodes"], drawn["edges"]))
        row.click()
    assert number > 40 and not touching, touching
