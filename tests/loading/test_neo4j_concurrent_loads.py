"""Two loads of one KG at once on a real Neo4j (issue 33, cause 7): the second stops with
"another load of KG x is running", touching nothing, instead of the server's raw "An
equivalent index already exists" after "the load failed"; the first completes; a killed
load's lease runs out so the next load proceeds; the lease leaves nothing behind."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from kgcert.errors import KgcertError, StoreError
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.manifest import COMPLETE, read_manifest
from kgcert.loading.pipeline import load
from kgcert.store.cypher import statement
from kgcert.store.graph import GraphStore
from kgcert.synth.primekg import SyntheticPrimeKG

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def kg_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("race") / "kg.csv"
    SyntheticPrimeKG(scale=0.01, seed=7).write_kg_csv(path)
    return path


def _whole(server: Any) -> GraphStore:
    return GraphStore(server.driver, server.database, server.name)


def _load(server: Any, path: Path, kg: str) -> Any:
    return load(server, get_loader("primekg", LoadOptions()), [path], kg)


def _leases(server: Any) -> int:
    return int(_whole(server).value("MATCH (l:KgcertLoadLock) RETURN count(l)"))


def test_a_load_while_another_holds_the_kg_is_refused_in_one_line(neo4j_server: Any,
                                                                  kg_csv: Path) -> None:
    kg = "race_held"
    with neo4j_server.loading(kg):  # another process's load, in the middle of its work
        with pytest.raises(StoreError) as refused:
            _load(neo4j_server, kg_csv, kg)
        assert str(refused.value).startswith(f"another load of KG {kg!r} is running on ")
        assert "\n" not in str(refused.value)
        assert not neo4j_server.exists(kg)  # nothing touched
    result = _load(neo4j_server, kg_csv, kg)  # the lease is gone: the load goes ahead
    assert not result.skipped and _leases(neo4j_server) == 0
    neo4j_server.drop(kg)


def test_a_killed_loads_lease_runs_out(neo4j_server: Any, kg_csv: Path) -> None:
    kg = "race_killed"
    whole = _whole(neo4j_server)
    with neo4j_server.loading(kg):
        pass  # makes the constraint
    # a load that died holding the lease: taken, never renewed, run out a moment ago
    assert whole.value(statement("load_lock", "take"), kg=kg, owner="dead", lease_ms=-1000)
    assert not _load(neo4j_server, kg_csv, kg).skipped
    assert _leases(neo4j_server) == 0
    neo4j_server.drop(kg)


def test_two_loads_at_once_one_writes_the_other_says_so(neo4j_server: Any,
                                                        kg_csv: Path) -> None:
    kg = "race_both"
    start = threading.Barrier(2)
    outcomes: list[Any] = []

    def one_load() -> None:
        start.wait()
        try:
            outcomes.append(_load(neo4j_server, kg_csv, kg))
        except KgcertError as error:
            outcomes.append(error)

    threads = [threading.Thread(target=one_load) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    errors = [o for o in outcomes if isinstance(o, Exception)]
    written = [o for o in outcomes if not isinstance(o, Exception) and not o.skipped]
    assert len(outcomes) == 2 and len(written) == 1, outcomes
    for error in errors:  # the loser, if it came while the winner wrote
        assert str(error).startswith(f"another load of KG {kg!r} is running"), error
    manifest = read_manifest(neo4j_server.store(kg))
    assert manifest is not None and manifest.status == COMPLETE
    assert _leases(neo4j_server) == 0
    neo4j_server.drop(kg)
