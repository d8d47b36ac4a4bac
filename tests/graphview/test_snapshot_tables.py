"""Edge tables made from the prompt snapshot (kgcert/graphview/snapshot_tables.py) must be the
arrays a pull over Bolt gives, dtypes included, so a sampler prepared from them draws the
same samples; `kgcert load` stores the snapshot and those tables, and the first count reads
them instead of pulling."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgcert.graphview.snapshot import pull
from kgcert.graphview.snapshot_tables import snapshot_tables
from kgcert.specs.edge_tables import PairTable, _pull

DUAL = "primekg.dual_indication"


def _same(made: PairTable, pulled: PairTable) -> bool:
    return all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in
               [(made.ids, pulled.ids), (made.sources, pulled.sources),
                (made.targets, pulled.targets)])


def test_every_table_of_the_real_extract_is_the_pulled_one(alzheimer_kg) -> None:
    snapshot = pull(alzheimer_kg.store, None)
    assert snapshot is not None
    made = dict(snapshot_tables(snapshot))
    assert ("disease", "indication", "drug") in made and len(made) > 20
    assert not any("Entity" in (source, target) for source, _, target in made)
    for (source, rel_type, target), table in made.items():
        assert _same(table, _pull(alzheimer_kg.store, source, rel_type, target)), (
            source, rel_type, target)


def test_parallel_edges_and_two_labels_make_the_pulled_tables(graph_server) -> None:
    store = graph_server.create("snapshot_tables")
    try:
        store.execute(
            "CREATE (a:Entity:drug{{:kg}} {id: 'a'}), (b:Entity:drug{{:kg}} {id: 'bb'}), "
            "(c:Entity:drug:gene{{:kg}} {id: 'c'}), (d:Entity:disease{{:kg}} {id: 'd'}), "
            "(a)-[:drug_drug]->(b), (a)-[:drug_drug]->(b), (c)-[:drug_drug]->(a), "
            "(a)-[:indication]->(d), (a)-[:indication]->(d), (c)-[:indication]->(d)")
        snapshot = pull(store, None)
        assert snapshot is not None
        made = dict(snapshot_tables(snapshot))
        assert set(made) == {("drug", "drug_drug", "drug"), ("gene", "drug_drug", "drug"),
                             ("drug", "indication", "disease"),
                             ("gene", "indication", "disease")}
        assert len(made["drug", "drug_drug", "drug"]) == 2  # a parallel edge once
        for key, table in made.items():
            assert _same(table, _pull(store, *key)), key
    finally:
        graph_server.drop("snapshot_tables")


def _kgcert(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kgcert", *args], capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "KGCERT_DATA_DIR": str(data_dir),
                               "KGCERT_NO_SERVER": "1", "COLUMNS": "400"})


def _cache_files(data_dir: Path) -> set[str]:
    return {path.name for path in (data_dir / "cache" / "specs").rglob("*.npz")}


@pytest.mark.slow
def test_load_stores_what_the_first_count_reads(tmp_path: Path, shared_data: Path) -> None:
    extract = shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"
    stored, pulled = tmp_path / "stored", tmp_path / "pulled"
    for data_dir in (stored, pulled):
        done = _kgcert(data_dir, "load", "primekg", str(extract), "--kg", "alz")
        assert done.returncode == 0, done.stderr
    said = "stored the prompt snapshot and "
    [said] = [line for line in done.stderr.splitlines() if line.startswith(said)]
    tables = int(said.split(" and ")[1].split()[0])
    files = _cache_files(stored)
    assert sum(name.startswith("pairs-") for name in files) == tables > 20
    assert sum(name.startswith("prompt-graph-") for name in files) == 1
    for path in (pulled / "cache").rglob("*.npz"):
        path.unlink()  # as before kgcert load stored them: the count pulls them
    counted = {data_dir: _kgcert(data_dir, "specs", "count", DUAL, "--kg", "alz", "--json")
               for data_dir in (stored, pulled)}
    assert counted[stored].returncode == 0, counted[stored].stderr
    assert _cache_files(stored) == files  # read, nothing pulled
    assert len(_cache_files(pulled)) > 1  # the pulled side did pull (snapshot, tables)
    drop = '"prepared_s"'  # the one figure that differs: seconds
    assert [part for part in counted[stored].stdout.split(", ") if drop not in part] == \
        [part for part in counted[pulled].stdout.split(", ") if drop not in part]
