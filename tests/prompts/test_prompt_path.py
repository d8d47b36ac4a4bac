"""One prompt path: `kgcert prompts`, `kgcert run` and `kgcert specs sample` build from the same
graph (the KG's snapshot), on the embedded server and on Neo4j: prompt i of a spec and seed is
the same record in all of them, and `kgcert prompts` sends no read per entity or per prompt.

The commands run in this process against the session's servers (a subprocess could not open
the embedded server's locked folder), with the store's queries recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from kg_helpers import load_kg

from kgcert.cli.common import Context
from kgcert.store.cypher import named
from kgcert.store.graph import GraphStore

SPEC = "primekg.contraindication_indication"  # no redraws: prompt i is sample i
SEED = "7"
# The per-entity reads of kgcert/graphview/reads.py (cypher/prompts.cypher).
PER_ENTITY = ("entities", "out_edges", "in_edges")


@pytest.fixture(scope="module", params=["embedded", "neo4j"])
def served(request: pytest.FixtureRequest, shared_data: Path,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Context, str]]:
    """A Context whose server holds the Alzheimer extract, and the KG's name (on the embedded
    server the session's shared read-only copy)."""
    if request.param == "embedded":
        shared = request.getfixturevalue("alzheimer_kg")
        yield Context(db="embedded", data_dir=str(shared.data_dir)), shared.name
        return
    store, _ = load_kg(request.getfixturevalue("neo4j_server"), "primekg",
                       [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "path_alz")
    env = request.getfixturevalue("neo4j_env")
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        yield (Context(db=env["KGCERT_NEO4J_URI"],
                       data_dir=str(tmp_path_factory.mktemp("neo4j-cache"))), store.kg)


def _invoke(ctx: Context, command: Any, *args: str) -> Result:
    done = CliRunner().invoke(command, list(args), obj=ctx)
    assert done.exit_code == 0, (done.output, done.exception)
    return done


def _prompts(ctx: Context, kg: str, count: int, *extra: str) -> list[dict[str, Any]]:
    from kgcert.cli.prompts import prompts_command

    done = _invoke(ctx, prompts_command, "--kg", kg, "--spec", SPEC, "--n", str(count),
                   "--seed", SEED, "--json", *extra)
    return [json.loads(line) for line in done.output.splitlines()]


class Recorded:
    """Every statement sent through a GraphStore while it is in place."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.sent: list[str] = []
        for method in ("stream", "rows"):
            original = getattr(GraphStore, method)

            def recording(store: GraphStore, cypher: str, *args: Any,
                          _original: Any = original, **params: Any) -> Any:
                self.sent.append(cypher)
                return _original(store, cypher, *args, **params)

            patch.setattr(GraphStore, method, recording)


def test_prompts_reads_no_entity_and_nothing_per_prompt(served, monkeypatch):
    ctx, kg = served
    _prompts(ctx, kg, 1)  # the first command reads the snapshot and the edge tables once
    sent = {}
    for count in (1, 6):
        recorded = Recorded(monkeypatch)
        records = _prompts(ctx, kg, count, "--setting", "distractor")
        assert len(records) == count and all(r["text"] for r in records)
        sent[count] = recorded.sent
        monkeypatch.undo()
    per_entity = {named("prompts", name) for name in PER_ENTITY}
    assert not per_entity & set(sent[6]), "kgcert prompts read entities one by one"
    assert len(sent[6]) == len(sent[1]), (sent[1], sent[6])  # nothing grows with --n


def test_prompts_run_and_specs_sample_give_the_same_prompts(served, tmp_path):
    from kgcert.cli import run as run_cli
    from kgcert.cli.specs import specs_group

    ctx, kg = served
    # vanilla only: this spec's questions have no distractor candidates, so a run refuses its
    # distractor setting before any model call (tests/prompts/test_distractor_essential.py)
    for setting in ("vanilla",):
        printed = _prompts(ctx, kg, 4, "--setting", setting)
        out = tmp_path / setting
        try:
            _invoke(ctx, run_cli.run_command, "--kg", kg, "--spec", SPEC, "--model",
                    "bernoulli:0.5", "--setting", setting, "--n", "4", "--seed", SEED,
                    "--out", str(out))
        finally:  # the run's folder lock, released as a new process would
            for lock in run_cli._locks:
                lock.close()
            run_cli._locks.clear()
        ran = {}
        for path in sorted((out / "samples").rglob("*.jsonl")):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                ran[record["index"]] = record["prompt"]
        assert sorted(ran) == [0, 1, 2, 3]
        assert [ran[i] for i in range(4)] == printed  # the same record, byte for byte
    sampled = _invoke(ctx, specs_group, "sample", SPEC, "--kg", kg, "--n", "4", "--seed", SEED,
                      "--json")
    samples = [json.loads(line) for line in sampled.output.splitlines()]
    for sample, prompt in zip(samples, printed, strict=True):
        assert prompt["provenance"]["rejected_prompts"] == 0
        assert {v: n["id"] for v, n in sample["nodes"].items()} == prompt["provenance"]["nodes"]
        answer = sample["answer"]
        assert prompt["options"][prompt["correct_option"] - 1] == answer["name"]
