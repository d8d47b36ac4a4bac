"""Write-back on a real server: a run with real prompts over PrimeKG's Alzheimer
neighbourhood (two shipped relation specs, both settings, two bernoulli models) written into
its KG's database, then read back with Cypher written here and compared with the run's JSONL.

Every guide query of cypher/explore_failures.cypher runs on the written-back run and its
answer is recomputed from the sample files. Runs on the embedded server, and on Neo4j when
one answers (see conftest.graph_server).
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml
from kg_helpers import cli_context, load_kg

from kgcert.errors import InputError, KgcertError
from kgcert.loading.manifest import read_manifest
from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.prompts.mcqa import PromptBuilder
from kgcert.prompts.settings import PromptSettings
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_file_keys import RunFileKeys
from kgcert.rundir.run_spec import RunSpec
from kgcert.rundir.sample_record import SampleRecord
from kgcert.specs import RelationSpec, find_spec, prepare_sampler, spec_hash
from kgcert.store.cypher import KG_SCOPE, _statements, statement
from kgcert.store.graph import GraphStore
from kgcert.store.neo4j_server import Neo4jServer
from kgcert.writeback import (
    LINK_TYPES,
    certificate_key,
    delete_run,
    read_run,
    run_counts,
    sample_key,
    write_run,
)
from kgcert.writeback.run_files import TEXT_LIMIT, sample_row

# primekg.dual_indication has no Definition 2.3 distractors, and no shipped spec has
# distractors of the answer's type (so among the options) in this extract: this test spec
# has (its middle disease can be taken wrongly), on every draw (`distractors: required`),
# and adds a second relationship type.
TEST_SPEC = """\
kind: relation
name: test.drug_related_disease
kg: primekg
description: >
  Uniform over injective matches of a drug M approved for disease A and a disease X linked to
  A, conditioned on a distractor existing. The answer is X; every disease linked to a disease
  M is approved for is correct.
pattern: "(m:drug)-[:indication]->(a:disease)-[:disease_disease]->(x:disease)"
answer: x
distractors: required
templates:
  - "Which disease is linked to a disease that {m} is approved for?"
  - "{m} treats a disease. Name a disease related to it."
  - "Name a condition associated with one of the diseases {m} is indicated for."
  - "Which disease is related to an approved indication of {m}?"
  - "Find a disease linked to a disease treated by {m}."
"""
TWO_HOP = "test.drug_related_disease"
MODELS = ("bernoulli:0.7", "bernoulli:0.4")
SETTINGS = ("distractor", "vanilla")
N = 30
ANSWERED = ("correct", "wrong", "unparseable")
GUIDE = "explore_failures"


# -- the run ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def alz(graph_server, shared_data: Path) -> GraphStore:
    store, _ = load_kg(graph_server, "primekg",
                       [shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"], "alz_wb")
    return store


def make_run(store: GraphStore, run_dir: Path, cache: Path) -> Path:
    """A run as `kgcert run` makes it: run.yaml, sample files and certificates, from real
    prompts (PromptBuilder over the specs' samplers) and the Runner."""
    run_dir.mkdir(parents=True)
    spec_file = run_dir.parent / "drug_related_disease.yaml"
    spec_file.write_text(TEST_SPEC, encoding="utf-8")
    # the flat run-file keys (what run.yaml holds); the Runner gets them grouped
    config = RunFileKeys(kg=store.kg, specs=("primekg.dual_indication", str(spec_file)),
                         models=MODELS, settings=SETTINGS, n=N,
                         few_shot=2, batch_size=8,
                         model_options={"bernoulli:0.4": {"unparseable_rate": 0.2}})
    (run_dir / "run.yaml").write_text(yaml.safe_dump(config.model_dump(mode="json"),
                                                     sort_keys=False), encoding="utf-8")
    manifest = read_manifest(store)
    assert manifest is not None
    fingerprint = manifest.fingerprint
    jobs = []
    for name in config.specs:
        spec = find_spec(name).spec
        assert isinstance(spec, RelationSpec)
        sampler = prepare_sampler(spec, store, cache)
        for setting in config.settings:
            builder = PromptBuilder(store, spec, sampler, seed=config.seed,
                                    settings=PromptSettings(setting=setting,
                                                            options=config.options,
                                                            few_shot=config.few_shot))
            jobs.append(Job(spec.name, spec_hash(spec), setting, builder.build,
                            {"kg": config.kg, "kg_fingerprint": fingerprint,
                             "spec_kind": spec.kind}))
    generation = GenerationConfig()
    slots = [ModelSlot(model, get_model(model, generation, **config.model_options.get(model, {})),
                       generation) for model in config.models]
    Runner(RunSpec.from_keys(config), run_dir, jobs, slots).run()
    return run_dir


@pytest.fixture(scope="module")
def run_dir(alz: GraphStore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(alz, tmp_path_factory.mktemp("runs") / "alz-run",
                    tmp_path_factory.mktemp("tables"))


def jsonl(run: Path) -> list[dict[str, Any]]:
    records = []
    for path in sorted((run / "samples").glob("**/*.jsonl")):
        records += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return records


def certificates(run: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((run / "certificates").glob("*.json"))]


def kg_counts(store: GraphStore) -> dict[str, int]:
    """What the KG itself holds, and everything in the database."""
    return {
        "entities": store.value("MATCH (n:Entity{{:kg}}) RETURN count(n)"),
        "edges": store.value("MATCH (:Entity{{:kg}})-[r]->(:Entity{{:kg}}) RETURN count(r)"),
        "relations": store.value("MATCH (n:KgcertRelation{{:kg}}) RETURN count(n)"),
        "manifests": store.value("MATCH (n:KgcertManifest{{:kg}}) RETURN count(n)"),
        "all_nodes": store.value("MATCH (n) RETURN count(n)"),
        "all_relationships": store.value("MATCH ()-[r]->() RETURN count(r)"),
    }


@pytest.fixture(scope="module")
def written(alz: GraphStore, run_dir: Path) -> dict[str, Any]:
    before = kg_counts(alz)
    data = read_run(run_dir)
    result = write_run(alz, data, batch_size=37)  # batches that cut across certificates
    return {"data": data, "result": result, "before": before, "records": jsonl(run_dir),
            "certificates": certificates(run_dir)}


def key_of(run: str, record: dict[str, Any]) -> str:
    return sample_key(certificate_key(run, record["spec"], record["setting"], record["model"]),
                      record["index"])


def provenance(record: dict[str, Any]) -> dict[str, Any]:
    return record["prompt"]["provenance"]


# -- what is written --------------------------------------------------------------------------


def test_the_run_has_real_prompts_with_every_outcome(written):
    records = written["records"]
    assert len(records) == 2 * len(SETTINGS) * len(MODELS) * N
    outcomes = Counter(r["outcome"] for r in records)
    assert outcomes["correct"] and outcomes["wrong"] and outcomes["unparseable"]
    assert all(r["prompt"]["text"] and r["prompt"]["provenance"]["nodes"] for r in records)
    assert any(provenance(r)["distractors"] for r in records)


def test_counts_equal_the_sample_files(alz, written):
    data, result, records = written["data"], written["result"], written["records"]
    expected = {
        "runs": 1, "certificates": len(written["certificates"]), "samples": len(records),
        "IN_RUN": len(written["certificates"]), "OF_CERTIFICATE": len(records),
        "USED": sum(len(provenance(r)["nodes"]) for r in records),
        "ANSWER": sum(1 for r in records if r["prompt"]["answer_id"]),
        "CHOSE": sum(1 for r in records if r.get("chosen_id")),
        "DISTRACTOR": sum(len(set(provenance(r)["distractors"])) for r in records),
        "OPTION": sum(len(r["prompt"]["option_ids"]) for r in records),
    }
    assert expected["DISTRACTOR"] > 0
    assert result.totals == expected
    assert result.created == expected
    assert run_counts(alz, data.id) == expected
    assert result.missing_entities == []
    assert result.warnings == []
    # Labels, counted without the write-back's indexes.
    assert alz.value("MATCH (s:KgcertSample{{:kg}}) WHERE s.run = $run RETURN count(s)",
                     run=data.id) == len(records)
    assert set(LINK_TYPES) <= set(alz.relationship_types())


def test_certificate_nodes_hold_the_certificates(alz, written):
    data = written["data"]
    rows = {row["c"]["key"]: row["c"] for row in alz.query(
        "MATCH (c:KgcertCertificate{{:kg}})-[:IN_RUN]->(r:KgcertRun{{:kg}} {id: $run}) "
        "RETURN c", run=data.id)}
    assert len(rows) == len(written["certificates"]) == 2 * len(SETTINGS) * len(MODELS)
    for body in written["certificates"]:
        node = rows[certificate_key(data.id, body["spec"], body["setting"], body["model"])]
        for name in ("spec", "setting", "model", "k", "n", "lower", "upper", "confidence",
                     "method"):
            assert node[name] == body[name], name
        for outcome, count in body["outcomes"].items():
            assert node[outcome] == count, outcome
    run = alz.query("MATCH (r:KgcertRun{{:kg}} {id: $run}) RETURN r", run=data.id)[0]["r"]
    assert run["kg"] == alz.kg and run["status"] == "complete" and run["created"]
    assert json.loads(run["config"])["specs"] == list(written["data"].config.specs.names)
    assert data.id.endswith("@" + data.config.fingerprint())


def _links(store: GraphStore, run: str, rel_type: str, *extra: str) -> dict[str, list[tuple]]:
    fields = "".join(f", l.{name} AS {name}" for name in extra)
    found: dict[str, list[tuple]] = defaultdict(list)
    scope = KG_SCOPE
    for row in store.query(f"MATCH (s:KgcertSample{scope} {{run: $run}})"
                           f"-[l:{rel_type}]->(e:Entity{scope}) "
                           f"RETURN s.key AS key, e.id AS id{fields}", run=run):
        found[row["key"]].append((row["id"], *(row[name] for name in extra)))
    return {key: sorted(values) for key, values in found.items()}


def test_samples_link_to_the_entities_their_prompts_used(alz, written):
    run, records = written["data"].id, written["records"]
    used = _links(alz, run, "USED", "role")
    answer, chose = _links(alz, run, "ANSWER"), _links(alz, run, "CHOSE")
    distractor = _links(alz, run, "DISTRACTOR")
    option = _links(alz, run, "OPTION", "number", "role")
    nodes = {row["s"]["key"]: row["s"] for row in alz.query(
        "MATCH (s:KgcertSample{{:kg}} {run: $run})-[:OF_CERTIFICATE]->(c:KgcertCertificate{{:kg}}) "
        "WHERE c.key = s.certificate RETURN s", run=run)}
    assert len(nodes) == len(records)
    for record in records:
        key, prompt = key_of(run, record), record["prompt"]
        roles = provenance(record)["extra"]["option_roles"]
        assert used[key] == sorted((i, role) for role, i in provenance(record)["nodes"].items())
        assert answer[key] == [(prompt["answer_id"],)]
        assert chose.get(key, []) == ([(record["chosen_id"],)] if record.get("chosen_id") else [])
        distractors = set(provenance(record)["distractors"])
        assert distractor.get(key, []) == sorted((i,) for i in distractors)
        assert option[key] == sorted((i, n, roles[n - 1])
                                     for n, i in enumerate(prompt["option_ids"], start=1))
        node = nodes[key]
        assert node["outcome"] == record["outcome"]
        assert node["correct"] is (record["outcome"] == "correct")
        assert node.get("parsed_option") == record.get("parsed_option")
        parsed = record.get("parsed_option")
        assert node.get("chosen_role") == (roles[parsed - 1] if parsed else None)
        assert f"\nQuestion: {node['question']}\n\nOptions:\n" in prompt["text"]
        assert node["response"] == record["response"]["text"][:TEXT_LIMIT]
        assert node["relations"] == sorted({e[1] for e in provenance(record)["edges"]})
        assert node["index"] == record["index"] and node["model"] == record["model"]


def test_writing_again_creates_nothing(alz, written, run_dir):
    before = kg_counts(alz)
    again = write_run(alz, read_run(run_dir))
    assert again.run == written["data"].id
    assert set(again.created.values()) == {0}
    assert again.totals == written["result"].totals
    assert kg_counts(alz) == before


def test_the_kg_is_unchanged_and_prompts_still_build_the_same(alz, written, tmp_path):
    after = kg_counts(alz)
    for name in ("entities", "edges", "relations", "manifests"):
        assert after[name] == written["before"][name], name
    # Samplers and prompt builders read the KG as before (write-back links never join
    # entity to entity): prompts rebuilt now equal the run's.
    records = {(r["spec"], r["setting"], r["index"]): r["prompt"]["text"]
               for r in written["records"]}
    spec = find_spec(str(written["data"].config.specs.names[1])).spec
    assert isinstance(spec, RelationSpec)
    builder = PromptBuilder(alz, spec, prepare_sampler(spec, alz, tmp_path),
                            settings=PromptSettings(setting="distractor", few_shot=2))
    for index in range(5):
        assert builder.build(index).text == records[(spec.name, "distractor", index)]


# -- the guide --------------------------------------------------------------------------------


def _failed(record: dict[str, Any]) -> bool:
    return record["outcome"] in ANSWERED and record["outcome"] != "correct"


def expect_runs(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    mine = [row for row in rows if row["run"] == ctx["run"]]
    assert mine == [{"run": ctx["run"], "kg": ctx["kg"], "created": mine[0]["created"],
                     "status": "complete", "certificates": len(ctx["certificates"])}]


def expect_certificates_by_lower_bound(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    bodies = sorted(ctx["certificates"], key=lambda b: (
        b["lower"], b["upper"], certificate_key(ctx["run"], b["spec"], b["setting"], b["model"])))
    assert [(r["certificate"], r["k"], r["n"], r["lower"], r["upper"], r["wrong"],
             r["unparseable"], r["errors"]) for r in rows] == [
        (certificate_key(ctx["run"], b["spec"], b["setting"], b["model"]), b["k"], b["n"],
         pytest.approx(b["lower"]), pytest.approx(b["upper"]), b["outcomes"]["wrong"],
         b["outcomes"]["unparseable"], b["outcomes"]["error"]) for b in bodies]


def expect_wrong_chose_distractor(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    expected = sorted(
        (r for r in ctx["records"] if r["outcome"] == "wrong"
         and r["chosen_id"] in provenance(r)["distractors"]),
        key=lambda r: (r["spec"], r["setting"], r["model"], r["index"]))
    assert expected, "the run has no wrong answer that chose a distractor"
    assert [(r["sample"], r["chosen_id"], r["answer_id"]) for r in rows] == [
        (key_of(ctx["run"], r), r["chosen_id"], r["prompt"]["answer_id"]) for r in expected]


def expect_distractor_pull(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    tally = Counter(
        (r["model"], r["setting"],
         provenance(r)["extra"]["option_roles"][r["parsed_option"] - 1])
        for r in ctx["records"] if r["outcome"] == "wrong")
    expected = sorted(tally.items(), key=lambda item: (item[0][0], item[0][1], -item[1],
                                                       item[0][2]))
    assert [((r["model"], r["setting"], r["chosen_role"]), r["wrong"]) for r in rows] == expected
    assert "distractor" in {role for (_, _, role) in tally}


def expect_entities_in_failures(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    samples: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for record in ctx["records"]:
        if record["outcome"] not in ANSWERED:
            continue
        for entity in set(provenance(record)["nodes"].values()):
            samples[entity] += 1
            failed[entity] += _failed(record)
    table = [(e, samples[e], failed[e], (samples[e] - failed[e]) / samples[e])
             for e in samples if failed[e]]
    table.sort(key=lambda row: (-row[2], row[3], row[0]))
    assert len(rows) == min(25, len(table))
    assert [(r["id"], r["samples"], r["failed"], r["accuracy"]) for r in rows] == [
        (e, s, f, pytest.approx(a)) for e, s, f, a in table[:25]]
    names = dict(ctx["store"].query("MATCH (e:Entity{{:kg}}) WHERE e.id IN $ids "
                                    "RETURN collect([e.id, e.name]) AS pairs",
                                    ids=[r["id"] for r in rows])[0]["pairs"])
    assert all(r["name"] == names[r["id"]] for r in rows)


def expect_failures_by_relation(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    samples: Counter[tuple[str, str]] = Counter()
    failed: Counter[tuple[str, str]] = Counter()
    for record in ctx["records"]:
        if record["outcome"] not in ANSWERED:
            continue
        for relation in {edge[1] for edge in provenance(record)["edges"]}:
            samples[(record["model"], relation)] += 1
            failed[(record["model"], relation)] += _failed(record)
    table = sorted(((m, rel, samples[m, rel], failed[m, rel], failed[m, rel] / samples[m, rel])
                    for m, rel in samples), key=lambda row: (-row[4], row[0], row[1]))
    assert {row[1] for row in table} == {"indication", "disease_disease"}
    assert [(r["model"], r["relation"], r["samples"], r["failed"], r["failure_rate"])
            for r in rows] == [(m, rel, s, f, pytest.approx(x)) for m, rel, s, f, x in table]


def expect_unparseable_responses(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    expected = sorted((r for r in ctx["records"] if r["outcome"] == "unparseable"),
                      key=lambda r: (r["spec"], r["setting"], r["model"], r["index"]))
    assert expected
    assert [(r["sample"], r["response"], r["note"]) for r in rows] == [
        (key_of(ctx["run"], r), r["response"]["text"][:TEXT_LIMIT], r["parse_note"])
        for r in expected]


def expect_model_disagreements(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    by_prompt: dict[tuple, dict[str, dict[str, Any]]] = defaultdict(dict)
    for record in ctx["records"]:
        by_prompt[(record["spec"], record["setting"], record["index"])][record["model"]] = record
    expected = sorted(
        (*prompt, right, other, models[other]["outcome"])
        for prompt, models in by_prompt.items() for right in models for other in models
        if right != other and models[right]["outcome"] == "correct" and _failed(models[other]))
    assert expected
    assert [(r["spec"], r["setting"], r["index"], r["right_model"], r["failed_model"],
             r["failed_outcome"]) for r in rows] == expected


def expect_certificate_samples(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    records = sorted((r for r in ctx["records"]
                      if key_of(ctx["run"], r).rsplit("|", 1)[0] == ctx["certificate"]),
                     key=lambda r: r["index"])
    assert len(rows) == len(records) == N
    for row, record in zip(rows, records, strict=True):
        assert row["index"] == record["index"] and row["outcome"] == record["outcome"]
        assert row["chosen_id"] == record.get("chosen_id")
        assert sorted((e["role"], e["id"]) for e in row["entities"]) == sorted(
            provenance(record)["nodes"].items())


def expect_sample_subgraph(ctx: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    record = ctx["sample_record"]
    prompt, prov = record["prompt"], provenance(record)
    ids = sorted({*prov["nodes"].values(), prompt["answer_id"], record["chosen_id"],
                  *prov["distractors"], *prompt["option_ids"]})
    expected = sorted((row["a"], row["t"], row["b"]) for row in ctx["store"].query(
        "MATCH (a:Entity{{:kg}})-[r]->(b:Entity{{:kg}}) WHERE a.id IN $ids AND b.id IN $ids "
        "RETURN a.id AS a, type(r) AS t, b.id AS b", ids=ids))
    got = [(r["source"], r["type"], r["target"]) for r in rows]
    assert got == expected
    assert {tuple(edge) for edge in prov["edges"]} <= set(got)
    assert all(r["s"]["key"] == ctx["sample"] for r in rows)


CHECKS = {
    "runs": expect_runs,
    "certificates_by_lower_bound": expect_certificates_by_lower_bound,
    "wrong_chose_distractor": expect_wrong_chose_distractor,
    "distractor_pull": expect_distractor_pull,
    "entities_in_failures": expect_entities_in_failures,
    "failures_by_relation": expect_failures_by_relation,
    "unparseable_responses": expect_unparseable_responses,
    "model_disagreements": expect_model_disagreements,
    "certificate_samples": expect_certificate_samples,
    "sample_subgraph": expect_sample_subgraph,
}


def test_every_guide_query_is_checked():
    assert set(_statements(GUIDE)) == set(CHECKS)
    assert 6 <= len(CHECKS) <= 10


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_guide_query_answers_match_the_sample_files(alz, written, name):
    run, records = written["data"].id, written["records"]
    sample_record = next(r for r in records if r["spec"] == TWO_HOP
                         and r["outcome"] == "wrong"
                         and r["chosen_id"] in provenance(r)["distractors"])
    certificate = certificate_key(run, TWO_HOP, "distractor", "bernoulli:0.4")
    ctx = {"run": run, "kg": alz.kg, "store": alz, "records": records,
           "certificates": written["certificates"], "certificate": certificate,
           "sample": key_of(run, sample_record), "sample_record": sample_record}
    rows = alz.query(statement(GUIDE, name), run=run, certificate=certificate,
                     sample=ctx["sample"])
    CHECKS[name](ctx, rows)


# -- delete, and the command ------------------------------------------------------------------


def test_delete_removes_the_run_and_nothing_else(alz, written, run_dir, tmp_path):
    copy = tmp_path / "alz-run-copy"
    shutil.copytree(run_dir, copy)
    before = kg_counts(alz)
    first = run_counts(alz, written["data"].id)
    result = write_run(alz, read_run(copy))
    assert result.run != written["data"].id
    assert result.created == written["result"].totals
    assert kg_counts(alz)["all_nodes"] == before["all_nodes"] + sum(
        result.created[kind] for kind in ("runs", "certificates", "samples"))
    removed = delete_run(alz, result.run, batch_size=50)
    assert removed == result.totals
    assert set(run_counts(alz, result.run).values()) == {0}
    assert kg_counts(alz) == before
    assert run_counts(alz, written["data"].id) == first  # the other run is untouched


def test_writeback_command(alz, graph_server, written, run_dir, tmp_path, embedded_data_dir):
    if isinstance(graph_server, Neo4jServer):
        pytest.skip("the command is run against the embedded server (same code path)")
    from click.testing import CliRunner

    from kgcert.cli.common import Context
    from kgcert.cli.query import query_command
    from kgcert.cli.writeback import writeback_command

    copy = tmp_path / "cli-run"
    shutil.copytree(run_dir, copy)
    before = kg_counts(alz)
    obj = Context(db="embedded", data_dir=str(embedded_data_dir))
    runner = CliRunner()
    first = runner.invoke(writeback_command, [str(copy)], obj=obj, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    data = read_run(copy)
    total = written["result"].totals
    assert data.id in first.output.replace("\n", "")
    # The next command it prints works on this server, and finds this run's certificates.
    step = next(line for line in first.output.splitlines() if line.startswith("next: "))
    words = shlex.split(step.removeprefix("next: "))
    at = words.index("query")
    assert words[0] == "kgcert" and words[at + 1] == "certificates_by_lower_bound"
    assert words[1:at] == ["--data-dir", str(embedded_data_dir)]  # given here, not in the env
    assert "Browser" not in first.output  # the embedded server has none
    shown = runner.invoke(query_command, [*words[at + 1:], "--json"], obj=obj,
                          catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert len(shown.output.splitlines()) == len(written["certificates"])
    assert f"{total['samples']:,}" in first.output
    assert run_counts(alz, data.id) == total
    second = runner.invoke(writeback_command, [str(copy), "--kg", alz.kg], obj=obj,
                           catch_exceptions=False)
    assert second.exit_code == 0, second.output
    assert run_counts(alz, data.id) == total
    removed = runner.invoke(writeback_command, [str(copy), "--delete"], obj=obj,
                            catch_exceptions=False)
    assert removed.exit_code == 0, removed.output
    assert "removed" in removed.output
    assert set(run_counts(alz, data.id).values()) == {0}
    assert kg_counts(alz) == before
    # deleting a run that is not in the graph (any more) is no success (issue 33)
    with pytest.raises(KgcertError, match=f"run {data.id} was not written to .*; nothing to "
                                          "delete"):
        runner.invoke(writeback_command, [str(copy), "--delete"], obj=obj,
                      catch_exceptions=False)


@pytest.fixture
def query_cli(graph_server, embedded_data_dir, monkeypatch, request):
    """`kgcert query ARGS` in this process, on the server the KG is on: (exit code, output)."""
    from click.testing import CliRunner

    from kgcert.cli.query import query_command

    obj = cli_context(graph_server, embedded_data_dir, request, monkeypatch)

    def call(*args: str) -> tuple[int, str]:
        done = CliRunner().invoke(query_command, list(args), obj=obj)
        raised = "" if isinstance(done.exception, SystemExit | None) else str(done.exception)
        return done.exit_code, done.output + raised

    return call


def test_query_runs_named_queries_and_cypher_with_parameters(alz, written, query_cli):
    run, records = written["data"].id, written["records"]
    code, out = query_cli("certificates_by_lower_bound", "--kg", alz.kg, "--param", f"run={run}",
                          "--json")
    assert code == 0, out
    rows = [json.loads(line) for line in out.splitlines()]
    assert sorted(row["certificate"] for row in rows) == sorted(
        certificate_key(run, c["spec"], c["setting"], c["model"])
        for c in written["certificates"])
    assert [row["lower"] for row in rows] == sorted(row["lower"] for row in rows)
    count = "MATCH (s:KgcertSample {run: $run}) WHERE s.outcome = $outcome RETURN count(s) AS n"
    code, out = query_cli(count, "--kg", alz.kg, "-p", f"run={run}", "-p", "outcome=wrong",
                          "--csv")
    assert code == 0, out
    assert out.splitlines() == ["n", str(sum(r["outcome"] == "wrong" for r in records))]
    code, out = query_cli("RETURN $k + 1 AS m, $name AS name", "--kg", alz.kg, "-p", "k:=41",
                          "-p", "name=007")
    assert code == 0, out
    assert "42" in out and "007" in out and "1 row" in out  # table, strings kept as text


def test_query_says_what_is_missing(alz, written, query_cli):
    code, out = query_cli("wrong_chose_distractor", "--kg", alz.kg)
    assert code == 2 and "the query needs --param run=..." in out
    code, out = query_cli("wrong_chose_distractr", "--kg", alz.kg)
    assert code == 2 and "did you mean wrong_chose_distractor?" in out
    code, out = query_cli("RETURN 1", "--kg", "no_such_kg")
    assert code != 0 and "no KG named 'no_such_kg'" in out
    code, out = query_cli("--list")
    assert code == 0 and all(name in out for name in _statements(GUIDE))


def test_info_counts_written_back_links(alz, written):
    from kgcert.cli.kg_counts import kg_info

    report = kg_info(alz)
    totals = written["result"].totals
    links = report["writeback_links"]
    for kind in LINK_TYPES:
        assert links.get(kind, 0) >= totals[kind]
        assert kind not in report["relationship_types"]  # not listed as a KG type with 0
    assert report["relationships"] == written["before"]["edges"]


def test_unfinished_and_foreign_runs(alz, written, run_dir, tmp_path):
    """A run still being written (a torn last line, a certificate not yet issued), made on
    another load of the KG, naming an entity the KG lacks: written with warnings, the sample
    files left as they were."""
    copy = tmp_path / "odd-run"
    shutil.copytree(run_dir, copy)
    bodies = sorted((copy / "certificates").glob("*.json"))
    pending = json.loads(bodies[0].read_text())
    bodies[0].unlink()
    foreign = json.loads(bodies[1].read_text())
    foreign["kg_fingerprint"] = "0" * 64
    bodies[1].write_text(json.dumps(foreign))
    sample_file = copy / pending["sample_file"]
    lines = sample_file.read_text().splitlines()
    first = json.loads(lines[0])
    role = sorted(first["prompt"]["provenance"]["nodes"])[0]
    first["prompt"]["provenance"]["nodes"][role] = "no-such-entity"
    torn = json.dumps(first) + "\n" + "\n".join(lines[1:]) + "\n" + lines[1][:40]
    sample_file.write_text(torn)
    before = kg_counts(alz)

    result = write_run(alz, read_run(copy))
    assert sample_file.read_text() == torn
    assert result.missing_entities == ["no-such-entity"]
    assert any("fingerprint" in warning for warning in result.warnings)
    expected = dict(written["result"].totals, USED=written["result"].totals["USED"] - 1)
    assert result.totals == expected
    key = certificate_key(result.run, pending["spec"], pending["setting"], pending["model"])
    node = alz.query("MATCH (c:KgcertCertificate{{:kg}} {key: $key}) RETURN c", key=key)[0]["c"]
    assert node["complete"] is False and "lower" not in node
    assert {o: node[o] for o in pending["outcomes"]} == pending["outcomes"]
    delete_run(alz, result.run)
    assert kg_counts(alz) == before


def test_sample_rows_of_task_prompts_and_sequential_cuts():
    """Task prompts have no options: seeds become USED links, nothing else; samples past a
    sequential certificate's stopping point are marked out of its bounds."""
    record = {"index": 4, "spec": "kgllm.triple_retrieval", "spec_hash": "h", "setting": "json",
              "model": "m", "outcome": "wrong",
              "prompt": {"text": "Graph: ...\nWhich relation joins A and B?", "options": [],
                         "option_ids": [], "correct_option": None, "answer_id": None,
                         "answers": ["r1"], "task": "triple_retrieval", "skipped": None,
                         "provenance": {"kind": "task", "nodes": {"seed0": "e1"},
                                        "edges": [["e1", "r1", "e2"], ["e2", "r2", "e3"],
                                                  ["e1", "r1", "e3"]],
                                        "distractors": [], "extra": {}}},
              "response": {"text": "r2", "error": None, "latency_s": 0.5}}
    record = SampleRecord.from_dict(record)
    row = sample_row("run@f", "run@f|kgllm.triple_retrieval|json|m", record, 7, 5)
    assert row.key == "run@f|kgllm.triple_retrieval|json|m|4"
    assert row.links.used == [{"key": row.key, "id": "e1", "role": "seed0"}]
    assert not (row.links.answer or row.links.chose or row.links.option or row.links.distractor)
    assert row.props["relations"] == ["r1", "r2"]
    assert row.props["in_bounds"] is False and row.props["answered"] is True
    assert row.props["question"].startswith("Graph: ...")
    assert "chosen_role" not in row.props and "parsed_option" not in row.props
    assert sample_row("r", "c", record, 4, 5).props["in_bounds"] is True


def test_a_kg_with_a_relation_named_like_a_link_is_refused(graph_server, run_dir):
    store = graph_server.create("wb_clash")
    try:
        store.execute("CREATE (:Entity{{:kg}} {id: 'a'})-[:USED]->(:Entity{{:kg}} {id: 'b'})")
        with pytest.raises(InputError, match="USED"):
            write_run(store, read_run(run_dir, "wb_clash"))
        assert store.labels() == ["Entity"]
    finally:
        graph_server.drop("wb_clash")
