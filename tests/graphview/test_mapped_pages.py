"""Pages read through the maps of the edges' own sentences are handed back between a run's
specs (issue 48: a full-size Wikidata5m run held 700 MB of them to its end)."""

from __future__ import annotations

import mmap
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kgcert.graphview.edge_sentences import SentenceWriter, load
from kgcert.graphview.mapped_pages import drop_read_pages, track

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads a mapping's resident size from /proc/self/smaps")


def resident_kb(path: Path) -> int:
    """The resident size of this process's maps of `path` (kB), from /proc/self/smaps."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and ":" in head[3]:  # a mapping's line
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(head[1])
    return total


def test_read_pages_of_a_tracked_map_are_handed_back_and_read_again(tmp_path: Path):
    path = tmp_path / "pool.bin"
    path.write_bytes(bytes(range(256)) * (32 << 12))  # 32 MiB
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    track([mapped, b"not mapped"])
    total = sum(mapped[at] for at in range(0, len(mapped), 4096))  # every page read
    assert resident_kb(path) >= 30 << 10
    assert drop_read_pages() >= 1
    assert resident_kb(path) < 1 << 10
    assert sum(mapped[at] for at in range(0, len(mapped), 4096)) == total  # the same bytes
    mapped.close()
    assert drop_read_pages() == 0  # a closed map is skipped


def test_loaded_sentences_are_tracked_and_read_the_same_after_a_drop(tmp_path: Path):
    writer = SentenceWriter(tmp_path)
    edges = [[f"edge {i} sentence {j} " * 40 for j in range(i % 4)] for i in range(20_000)]
    for at, sentences in enumerate(edges):
        writer.add(sentences)
        if at % 5_000 == 4_999:
            writer.end_page()
    writer.finish().save(tmp_path)
    stored = load(tmp_path)
    everything = np.arange(len(edges))
    expected = [tuple(sentences) for sentences in edges]
    assert stored.of_edges(everything) == expected
    pool, refs = resident_kb(tmp_path / "pool.bin"), resident_kb(tmp_path / "refs.npy")
    assert pool > 10 << 10 and refs > 0  # the pool is 28 MB, all of it read
    assert drop_read_pages() >= 5  # the pool and the four arrays of numbers
    assert resident_kb(tmp_path / "pool.bin") < pool // 10
    assert resident_kb(tmp_path / "refs.npy") == 0
    assert stored.of_edges(everything) == expected


def test_a_run_hands_the_pages_back_before_each_job(alzheimer_kg: Any, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    from run_cli import kgcert

    import kgcert.run.runner as runner_module

    events: list[str] = []
    run_job = runner_module.Runner._run_job

    def running(self: Any, job: Any) -> Any:
        events.append(f"job {job.spec}")
        return run_job(self, job)

    monkeypatch.setattr(runner_module, "drop_read_pages", lambda: events.append("dropped"))
    monkeypatch.setattr(runner_module.Runner, "_run_job", running)
    done = kgcert(alzheimer_kg.data_dir, "run", "--kg", alzheimer_kg.name, "--spec",
                  "primekg.dual_indication", "--spec", "primekg.drug_contraindication",
                  "--model", "bernoulli:0.5", "--mode", "choice", "--n", "5",
                  "--out", str(tmp_path / "run"))
    assert done.exit_code == 0, done.output
    assert events == ["dropped", "job primekg.dual_indication", "dropped",
                      "job primekg.drug_contraindication"]
