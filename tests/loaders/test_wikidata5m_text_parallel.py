"""The Wikidata5m text preprocessing over worker processes reads exactly what the former
single-process loader read (tests/wikidata5m_before.py), on real texts and on synthetic ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from shared_data import shared_data
from wikidata5m_before import Wikidata5mBefore

from kgcert.loaders import LoadOptions, get_loader, wikidata5m_columns
from kgcert.loaders import wikidata5m_text as text_steps
from kgcert.store.kg_data import KGData
from kgcert.synth.wikidata5m import SyntheticWikidata5m

SAMPLE = "wikidata5m_text_sample"


def _everything(data: KGData) -> Any:
    return ({label: table.rows for label, table in data.nodes.items()},
            {rel: (t.sources, t.targets, t.properties) for rel, t in data.edges.items()},
            data.relations, data.notes, data.problems.summary())


IN_CHILD = "KGCERT_TEST_FRESH_PROCESS"
RAN_IN_CHILD = 0


@pytest.fixture(params=["in this process", "2 workers"])
def workers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Worker count of the run, or RAN_IN_CHILD: the worker runs fork, and this pytest process
    may hold a JVM and other tests' threads that a forked copy must not run beside (kgcert
    itself never forks beside a JVM), so the test is run again, alone, in a new process."""
    if request.param == "2 workers":
        if not os.environ.get(IN_CHILD):
            _run_alone_in_a_new_process(request.node.nodeid)
            return RAN_IN_CHILD
        monkeypatch.setattr(text_steps, "PARALLEL_FROM", 0)
        monkeypatch.setattr(text_steps, "CHUNK", 37)  # many chunks, merged in order
        monkeypatch.setattr(wikidata5m_columns, "ENTITY_CHUNK", 37)
        monkeypatch.setenv("KGCERT_LOAD_WORKERS", "2")
        assert text_steps.fork_safe()
        return 2
    monkeypatch.setenv("KGCERT_LOAD_WORKERS", "1")
    return 1


def _run_alone_in_a_new_process(nodeid: str) -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", nodeid],
        cwd=root, env={**os.environ, IN_CHILD: "1"}, capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    if "1 skipped" in done.stdout:
        reason = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
        pytest.skip(f"in the new process: {reason[-1] if reason else 'skipped'}")
    assert "1 passed" in done.stdout


def _real_kg(folder: Path, tmp_path: Path) -> Path:
    """The 1,000 real entities and texts, with triples: each entity to the next, and to each
    entity whose label its text contains (so that many edges have supporting sentences)."""
    kg = tmp_path / "real"
    (kg / "wikidata5m_alias").mkdir(parents=True)
    labels = {}
    for line in (folder / "wikidata5m_entity.txt").read_text(encoding="utf-8").splitlines():
        qid, *aliases = line.split("\t")
        labels[qid] = aliases
    texts = dict(line.split("\t", 1) for line in
                 (folder / "wikidata5m_text.txt").read_text(encoding="utf-8").splitlines())
    qids = sorted(texts)
    triples = [f"{a}\tP17\t{b}" for a, b in zip(qids, qids[1:], strict=False)]
    for qid in qids:
        for other in qids:
            if other != qid and labels.get(other) and labels[other][0] in texts[qid]:
                triples.append(f"{qid}\tP{len(triples) % 7 + 1}\t{other}")
    (kg / "wikidata5m_all_triplet.txt").write_text("\n".join(triples) + "\n", encoding="utf-8")
    (kg / "wikidata5m_text.txt").write_bytes((folder / "wikidata5m_text.txt").read_bytes())
    (kg / "wikidata5m_alias" / "wikidata5m_entity.txt").write_bytes(
        (folder / "wikidata5m_entity.txt").read_bytes())
    (kg / "wikidata5m_alias" / "wikidata5m_relation.txt").write_text(
        "".join(f"P{i}\trelation {i}\n" for i in range(1, 8)) + "P17\tcountry\n")
    return kg


def _both(kg: Path, **options: Any) -> tuple[Any, Any]:
    settings = options.pop("settings", {})
    new = get_loader("wikidata5m", LoadOptions(settings=settings, **options))
    old = Wikidata5mBefore(LoadOptions(settings=settings, **options))
    files = new.source_files([kg])
    return _everything(old.read(files)), _everything(new.read(files))


@pytest.mark.parametrize("ascii_fold", [True, False])
def test_real_texts_read_as_before(workers: int, tmp_path: Path, ascii_fold: bool) -> None:
    if workers == RAN_IN_CHILD:
        return
    kg = _real_kg(shared_data(SAMPLE), tmp_path)
    before, now = _both(kg, ascii_fold=ascii_fold, settings={"unsupported_edges": "template"})
    assert now == before
    edges = now[1]
    with_sentences = sum(1 for _, _, props in edges.values() for p in props if p)
    assert with_sentences >= 10  # the comparison covers real matches, not only empty ones


@pytest.mark.parametrize(("scale", "settings"), [(0.0005, {}), (0.001, {"max_sentences": 2})])
def test_synthetic_texts_read_as_before(workers: int, tmp_path: Path, scale: float,
                                        settings: dict[str, Any]) -> None:
    if workers == RAN_IN_CHILD:
        return
    SyntheticWikidata5m(scale, seed=5).write(tmp_path / "synth")
    before, now = _both(tmp_path / "synth", settings=settings)
    assert now == before
    assert sum(len(t[0]) for t in now[1].values()) > 500


def test_worker_count_follows_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGCERT_LOAD_WORKERS", "3")
    assert text_steps.worker_count() == 3
    monkeypatch.setenv("KGCERT_LOAD_WORKERS", "no")
    monkeypatch.setattr(text_steps.os, "sched_getaffinity", lambda _: set(range(2)))
    assert text_steps.worker_count() == 1  # two cores: in this process
    monkeypatch.setattr(text_steps.os, "sched_getaffinity", lambda _: set(range(64)))
    assert text_steps.worker_count() == text_steps.MAX_WORKERS
