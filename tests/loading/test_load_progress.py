"""The load's progress: each phase's count, rate and ETA, heard from deep in the readers."""

from __future__ import annotations

import gc
import io
from pathlib import Path

import pytest
from rich.console import Console

from kgcert.cli.progress import PhaseBars, PlainProgress, speed_text
from kgcert.errors import InputError
from kgcert.loaders import (
    LoadOptions,
    get_loader,
    wikidata5m,
    wikidata5m_columns,
    wikidata5m_tables,
    wikidata5m_text,
)
from kgcert.loaders.fastcsv import read_blocks
from kgcert.loaders.tabular import read_rows
from kgcert.loaders.wikidata_common import read_tab_lines
from kgcert.loading import progress as loadprogress
from kgcert.loading.pipeline import WRITING_EDGES, WRITING_NODES, load, read_source
from kgcert.store.kg_data import Problems
from kgcert.synth.primekg import SyntheticPrimeKG
from kgcert.synth.wikidata5m import SyntheticWikidata5m


def test_speed_text_gives_rate_and_time_left_then_time_taken() -> None:
    assert speed_text(1_000, "rows", 0.25, 2.0) == "1,000 rows, 500 rows/s, ETA 0:06"
    assert speed_text(9_000, "edges", 1.0, 3_725.0) == "9,000 edges, 2 edges/s, took 1:02:05"
    assert speed_text(0, "rows", None, 0.0) == "0 rows"  # nothing to divide by yet
    assert speed_text(10, "nodes", None, 5.0) == "10 nodes, 2 nodes/s"  # no share known


def _ticks(read: object, path: Path) -> list[loadprogress.Tick]:
    heard: list[loadprogress.Tick] = []
    with loadprogress.listening(heard.append, [path]):
        for _ in read:  # type: ignore[attr-defined]
            pass
    return heard


@pytest.mark.parametrize("reader", ["tab lines", "blocks", "rows"])
def test_each_reader_reports_its_rows_and_share_of_the_bytes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader: str) -> None:
    monkeypatch.setattr(loadprogress, "READ_BATCH_ROWS", 100)
    path = tmp_path / "rows.txt"
    delimiter = "\t" if reader == "tab lines" else ","
    header = "" if reader == "tab lines" else f"a{delimiter}b\n"
    path.write_text(header + "".join(f"Q{i}{delimiter}P{i}\n" for i in range(1_000)))
    problems = Problems()
    read = {
        "tab lines": lambda: read_tab_lines(path, ("a", "b"), problems),
        "blocks": lambda: read_blocks(path, ("a", "b"), problems, block_bytes=2_000),
        "rows": lambda: read_rows(path, ("a", "b"), problems),
    }[reader]()
    heard = _ticks(read, path)
    assert heard[0] == loadprogress.Tick(loadprogress.READING, 0, "rows", 0.0)  # its start
    heard = heard[1:]
    assert len(heard) >= 4  # as it goes, not only at the end
    assert all(t.phase == loadprogress.READING for t in heard)
    assert [t.done for t in heard] == sorted(t.done for t in heard)
    assert heard[-1].done == 1_000 and heard[-1].fraction == 1.0
    assert 0 < heard[0].fraction < 1  # type: ignore[operator]


def test_no_listener_hears_nothing_and_costs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("Q1\tP1\n")
    assert list(read_tab_lines(path, ("a", "b"), Problems())) == [(1, ["Q1", "P1"])]
    loadprogress.tick("anything", 1, 2, "rows")  # no listener: a no-op


def test_a_primekg_parse_reports_reading_to_the_end(tmp_path: Path) -> None:
    SyntheticPrimeKG(scale=0.002, seed=1).write_kg_csv(tmp_path / "kg.csv")
    heard: list[loadprogress.Tick] = []
    source = read_source(get_loader("primekg", LoadOptions()), [tmp_path / "kg.csv"], "p",
                         listener=heard.append)
    assert heard[-1] == loadprogress.Tick(loadprogress.READING, heard[-1].done, "rows", 1.0)
    rows = len((tmp_path / "kg.csv").read_text().splitlines()) - 1  # less the header
    assert heard[-1].done == rows
    assert source.data.edge_count > 0


def test_a_wikidata5m_read_reports_every_phase_after_reading_to_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Matching reports as its chunks come back; the steps after it took minutes at full size
    # with nothing shown.
    monkeypatch.setattr(wikidata5m_columns, "ENTITY_CHUNK", 100)
    monkeypatch.setattr(wikidata5m_tables, "PAIR_CHUNK", 50)
    SyntheticWikidata5m(0.0005, seed=5).write(tmp_path / "synth")
    loader = get_loader("wikidata5m", LoadOptions())
    files = loader.source_files([tmp_path / "synth"])
    heard: list[loadprogress.Tick] = []
    with loadprogress.listening(heard.append, files):
        data = loader.read(files)
    phases = list(dict.fromkeys(t.phase for t in heard))
    assert phases == [loadprogress.READING, wikidata5m_text.MATCHING, wikidata5m.PAIRING,
                      wikidata5m.BUILDING]
    for phase in phases[1:]:
        ticks = [t for t in heard if t.phase == phase]
        assert len(ticks) > 3 and ticks[-1].fraction == 1.0
        assert [t.done for t in ticks] == sorted(t.done for t in ticks)
    assert [t for t in heard if t.phase == wikidata5m.BUILDING][-1].done == data.edge_count


def test_phase_bars_print_plain_lines_with_count_rate_and_eta() -> None:
    out = io.StringIO()
    with PlainProgress("{task.description}", console=Console(file=out), interval=3600) as bars:
        phases = PhaseBars(bars)
        phases(loadprogress.Tick("reading files", 0, "rows", 0.0))  # starts its clock, no line
        phases(loadprogress.Tick("reading files", 10, "rows", 0.1))
        phases(loadprogress.Tick("reading files", 50, "rows", 0.5))  # within the interval
        phases(loadprogress.Tick("reading files", 100, "rows", 1.0))
        phases(loadprogress.Tick("writing edges", 5, "edges", 0.5))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("reading files: 10%, 10 rows, ")  # a rate from the start
    assert lines[0].endswith(" rows/s, ETA 0:00")
    assert lines[1].startswith("reading files: 100%, 100 rows, ")
    assert lines[1].split(", ")[2].endswith(" rows/s") and ", took 0:00" in lines[1]
    assert lines[2] == "writing edges: 50%, 5 edges"
    # At the end, the unfinished phase's last line again; the finished one is not repeated.
    assert lines[3:] == ["writing edges: 50%, 5 edges"]


def test_with_a_quiet_start_quick_phases_print_their_last_line_and_failures_none() -> None:
    out = io.StringIO()
    with PlainProgress("{task.description}", console=Console(file=out), interval=3600,
                       quiet_start=3600) as bars:
        phases = PhaseBars(bars)
        phases(loadprogress.Tick("reading files", 10, "rows", 0.1))
        phases(loadprogress.Tick("reading files", 100, "rows", 1.0))
    assert [line.split(", ")[:2] for line in out.getvalue().splitlines()] == [
        ["reading files: 100%", "100 rows"]]
    out = io.StringIO()
    with pytest.raises(ValueError), PlainProgress(  # noqa: PT012 (the failure is the point)
            "{task.description}", console=Console(file=out), interval=0) as bars:
        PhaseBars(bars)(loadprogress.Tick("reading files", 10, "rows", 0.1))
        raise ValueError("bad row")
    assert out.getvalue().splitlines() == ["reading files: 10%, 10 rows"]  # no last line


def test_the_parsed_kg_is_frozen_out_of_the_collector_while_written_and_only_then(
        embedded_server, tmp_path: Path) -> None:
    """JPype runs Python's cyclic collector when Java collects; over a parsed Wikidata5m-size
    KG each pass took long enough to stall the load for minutes."""
    SyntheticPrimeKG(scale=0.002, seed=1).write_kg_csv(tmp_path / "kg.csv")
    frozen_at: list[int] = []

    def heard(tick: loadprogress.Tick) -> None:
        if tick.phase in (WRITING_NODES, WRITING_EDGES):
            frozen_at.append(gc.get_freeze_count())

    loader = get_loader("primekg", LoadOptions())
    with loadprogress.listening(heard):
        load(embedded_server, loader, [tmp_path / "kg.csv"], "frozen", replace=True)
    assert frozen_at and min(frozen_at) > 10_000  # the parsed rows, at least
    assert gc.get_freeze_count() == 0
    (tmp_path / "kg.csv").write_text((tmp_path / "kg.csv").read_text() + "\n")
    with pytest.raises(InputError, match="different load"):  # refused before any write
        load(embedded_server, loader, [tmp_path / "kg.csv"], "frozen")
    assert gc.get_freeze_count() == 0


def test_nodes_are_written_in_parts_each_heard(embedded_server, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """One batch call per label ran the JVM out of heap at Wikidata5m size; parts of
    NODE_CHUNK rows keep it bounded, and every part is a progress step."""
    from kgcert.store import arcade_bulk

    monkeypatch.setattr(arcade_bulk, "NODE_CHUNK", 7)
    SyntheticPrimeKG(scale=0.002, seed=1).write_kg_csv(tmp_path / "kg.csv")
    heard: list[loadprogress.Tick] = []
    loader = get_loader("primekg", LoadOptions())
    with loadprogress.listening(heard.append):
        result = load(embedded_server, loader, [tmp_path / "kg.csv"], "parts", replace=True)
    nodes = [t.done for t in heard if t.phase == WRITING_NODES]
    total = result.manifest.counts["nodes"]
    assert nodes[0] == 0 and nodes[-1] == total
    assert nodes == sorted(nodes) and len(nodes) > total // 7  # a step per part
    store = embedded_server.open("parts")
    assert store.query("MATCH (n:Entity) RETURN count(n) AS c")[0]["c"] == total
    edges = store.query("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"]
    assert edges == result.manifest.counts["edges"]  # every part's ids found by the edges


def test_the_edge_batch_commits_its_vertex_updates_in_parts(
        embedded_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At its close the edge batch points every vertex touched at its edge lists. Without a
    commit cadence that was one transaction holding 2.9M changed vertices, which ran the
    4 GB heap out at Wikidata5m size (measured; a unit-size KG cannot show it)."""
    from kgcert.store import arcade_bulk

    cadences: list[int] = []
    finish = arcade_bulk.ArcadeBulkWriter.finish

    def spy(writer: arcade_bulk.ArcadeBulkWriter) -> None:
        if writer._edges is not None:
            cadences.append(int(writer._edges._java_graph_batch.getCommitEvery()))
        finish(writer)

    monkeypatch.setattr(arcade_bulk.ArcadeBulkWriter, "finish", spy)
    SyntheticPrimeKG(scale=0.002, seed=1).write_kg_csv(tmp_path / "kg.csv")
    result = load(embedded_server, get_loader("primekg", LoadOptions()), [tmp_path / "kg.csv"],
                  "commits", replace=True)
    assert cadences == [arcade_bulk.EDGE_COMMIT_EVERY] and arcade_bulk.EDGE_COMMIT_EVERY > 0
    store = embedded_server.open("commits")
    edges = store.query("MATCH ()-[r]->() RETURN count(r) AS c")[0]["c"]
    assert edges == result.manifest.counts["edges"]
