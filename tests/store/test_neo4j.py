"""kgcert on a real Neo4j 5: it owns only what it wrote, several KGs share the one database of
Neo4j Community, and every answer equals the embedded server's for the same files.

The Neo4j comes from the environment, ../shared/neo4j or Docker (tests/conftest.py); without
one these tests skip and say so.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import kgcert_process
from kg_helpers import load_kg
from neo4j_helpers import SHARED_NEO4J, shared_neo4j

from kgcert.cli.kg_counts import kg_info
from kgcert.errors import InputError, StoreError
from kgcert.graphview import open_graph
from kgcert.graphview.snapshot import pull
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loading.pipeline import load
from kgcert.prompts import PromptBuilder, PromptSettings
from kgcert.specs import RelationSampler, RelationSpec, load_spec_file, prepare_sampler
from kgcert.specs.folders import is_suite_file
from kgcert.store.cypher import escape_identifier, kg_label
from kgcert.store.graph import GraphStore
from kgcert.store.neo4j_server import Neo4jServer, _agent_major

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "specs" / "primekg").glob("*.yaml")
                 if not is_suite_file(p))  # table1.yaml is a suite of these specs
ALZ = "primekg/kg_alzheimer_neighbourhood.csv"
SAMPLES = 200

# Someone's own graph in the same database: labels kgcert also uses (Entity, disease), a
# relationship type kgcert loads (indication), an id that PrimeKG uses too, an index and a
# uniqueness constraint of theirs.
FOREIGN = """
CREATE (p:Person {name: 'Ada', id: '1'}),
       (e:Entity {id: '20523', name: 'not kgcert'}),
       (d:disease {id: 'x1', name: 'their disease'}),
       (p)-[:KNOWS {since: 1990}]->(e),
       (e)-[:indication]->(d)
"""
FOREIGN_SCHEMA = ("CREATE INDEX user_person_name IF NOT EXISTS FOR (n:Person) ON (n.name)",
                  "CREATE CONSTRAINT user_disease_id IF NOT EXISTS "
                  "FOR (n:Person) REQUIRE n.id IS UNIQUE")


def _whole(server: Neo4jServer) -> GraphStore:
    return GraphStore(server.driver, server.database, server.name)


def foreign_snapshot(server: Neo4jServer) -> dict[str, Any]:
    """Everything in the database that carries no kgcert label, with its links, and the
    indexes kgcert did not make."""
    whole = _whole(server)
    nodes = whole.query(
        "MATCH (n) WHERE none(l IN labels(n) WHERE l STARTS WITH 'Kgcert') "
        "RETURN labels(n) AS labels, properties(n) AS props ORDER BY props.id, props.name")
    links = whole.query(
        "MATCH (a)-[r]->(b) WHERE none(l IN labels(a) + labels(b) WHERE l STARTS WITH 'Kgcert') "
        "RETURN a.id AS a, type(r) AS type, properties(r) AS props, b.id AS b ORDER BY a, type")
    indexes = whole.query("SHOW INDEXES YIELD name WHERE NOT name STARTS WITH 'kgcert' "
                          "RETURN name ORDER BY name")
    return {"nodes": nodes, "links": links, "indexes": indexes}


@pytest.fixture(scope="module")
def planted(neo4j_server: Neo4jServer) -> dict[str, Any]:
    whole = _whole(neo4j_server)
    whole.execute(FOREIGN)
    for statement in FOREIGN_SCHEMA:
        whole.execute(statement)
    snapshot = foreign_snapshot(neo4j_server)
    assert len(snapshot["nodes"]) == 3 and len(snapshot["links"]) == 2
    yield snapshot
    whole.execute("MATCH (n) WHERE n:Person OR (n.id IN ['20523', 'x1'] AND n.name IN "
                  "['not kgcert', 'their disease'] AND none(l IN labels(n) WHERE l STARTS "
                  "WITH 'Kgcert')) DETACH DELETE n")
    whole.execute("DROP INDEX user_person_name IF EXISTS")
    whole.execute("DROP CONSTRAINT user_disease_id IF EXISTS")


def _load(server, shared_data: Path, kg: str, path: str = ALZ, fmt: str = "primekg", **kw):
    return load(server, get_loader(fmt, LoadOptions()), [shared_data / path], kg, **kw)


def test_load_replace_writeback_and_drop_leave_foreign_data_intact(
        neo4j_server, planted, shared_data):
    kg = "own_only"
    first = _load(neo4j_server, shared_data, kg, replace=True)
    assert foreign_snapshot(neo4j_server) == planted
    assert _load(neo4j_server, shared_data, kg).skipped
    with pytest.raises(InputError, match="pass --replace"):
        _load(neo4j_server, shared_data, kg, "primekg/kg_drug_protein_a.csv")
    _load(neo4j_server, shared_data, kg, replace=True)
    assert foreign_snapshot(neo4j_server) == planted
    info = kg_info(neo4j_server.open(kg))
    assert info["nodes"] == first.manifest.counts["nodes"]  # the foreign Entity is not counted
    neo4j_server.drop(kg)
    assert kg not in neo4j_server.list_kgs()
    assert foreign_snapshot(neo4j_server) == planted


def test_a_database_with_foreign_data_but_no_manifest_is_not_wiped(neo4j_server, planted,
                                                                   shared_data):
    # The defect: a missing manifest read as an interrupted load, then DETACH DELETE of all.
    _load(neo4j_server, shared_data, "neo4j", replace=False)
    assert foreign_snapshot(neo4j_server) == planted
    neo4j_server.drop("neo4j")
    assert foreign_snapshot(neo4j_server) == planted


def test_drop_refuses_while_foreign_nodes_link_into_the_kg(neo4j_server, planted, shared_data):
    kg = "linked_into"
    _load(neo4j_server, shared_data, kg, replace=True)
    whole = _whole(neo4j_server)
    whole.execute("MATCH (p:Person {name: 'Ada'}), (n:KgcertKG_linked_into:Entity {id: '20523'}) "
                  "CREATE (p)-[:LIKES]->(n)")
    try:
        with pytest.raises(StoreError, match="1 LIKES"):
            neo4j_server.drop(kg)
        assert kg in neo4j_server.list_kgs()
    finally:
        whole.execute("MATCH (:Person)-[r:LIKES]->() DELETE r")
    neo4j_server.drop(kg)
    assert foreign_snapshot(neo4j_server) == planted


@pytest.fixture(scope="module")
def tight_neo4j(tmp_path_factory) -> Iterator[Neo4jServer]:
    """A Neo4j of its own (../shared/neo4j's files) whose transactions may use 32 MiB."""
    tarballs = sorted(SHARED_NEO4J.parent.glob("neo4j-community-*-unix.tar.gz"))
    if not tarballs:
        pytest.skip("no ../shared/neo4j: a Neo4j with a tight transaction memory needs its files")
    tmp = tmp_path_factory.mktemp("tight-neo4j")
    home = tmp / "home"
    home.mkdir()
    subprocess.run(["tar", "-xzf", str(tarballs[-1]), "-C", str(home), "--strip-components=1"],
                   check=True)
    with (home / "conf" / "neo4j.conf").open("a", encoding="utf-8") as conf:
        conf.write("\ndb.memory.transaction.max=32m\n")
    for env in shared_neo4j(tmp, home=home):
        server = Neo4jServer(env["KGCERT_NEO4J_URI"],
                             auth=(env["KGCERT_NEO4J_USER"], env["KGCERT_NEO4J_PASSWORD"]))
        try:
            yield server
        finally:
            server.close()


def test_a_hub_is_dropped_within_a_tight_transaction_memory(tight_neo4j):
    """A hub of 30,000 relationships outgrows 32 MiB of transaction memory when it is deleted
    with them (a full PrimeKG's hubs outgrow a default server's): the drop deletes
    relationships first, in batches halved until they fit, then the nodes, and leaves the
    database's other data alone."""
    kg = "hub_of_30k"
    tight_neo4j.create(kg)
    label = escape_identifier(kg_label(kg))
    whole = _whole(tight_neo4j)
    whole.execute(f"CREATE (:Entity:{label} {{id: 'hub'}})")
    for start in range(0, 30_000, 5_000):
        whole.execute(f"MATCH (hub:{label} {{id: 'hub'}}) UNWIND range($first, $last) AS i "
                      f"CREATE (hub)-[:targets]->(:Entity:{label} {{id: toString(i)}})",
                      first=start, last=start + 4_999)
    whole.execute("CREATE (:Person {name: 'Ada'})-[:KNOWS]->(:Person {name: 'Grace'})")
    tight_neo4j.drop(kg)
    assert whole.value(f"MATCH (n:{label}) RETURN count(n)") == 0
    assert whole.value("MATCH (:Person)-[r:KNOWS]->(:Person) RETURN count(r)") == 1


def test_three_kgs_share_one_database_without_mixing(neo4j_server, embedded_server,
                                                     shared_data):
    kgs = {"multi_alz": (ALZ, "primekg"),
           "multi_dpa": ("primekg/kg_drug_protein_a.csv", "primekg"),
           "multi_countries": ("countries", "wikidatasets"),
           "multi_diabetes": ("primekg/diabetes_export", "neo4j-import")}
    for kg, (path, fmt) in kgs.items():
        for server in (neo4j_server, embedded_server):
            _load(server, shared_data, kg, path, fmt, replace=False)
    assert set(kgs) <= set(neo4j_server.list_kgs())
    for kg in kgs:
        on_neo4j, embedded = kg_info(neo4j_server.open(kg)), kg_info(embedded_server.open(kg))
        on_neo4j["manifest"].pop("started_at"), embedded["manifest"].pop("started_at")
        on_neo4j["manifest"].pop("finished_at"), embedded["manifest"].pop("finished_at")
        assert on_neo4j == embedded, kg
    spec = load_spec_file(REPO / "specs" / "primekg" / "dual_indication.yaml")
    # PrimeKG ids repeat across the two PrimeKG extracts: each KG samples its own matches.
    for kg in ("multi_alz",):
        assert _samples(spec, neo4j_server.open(kg), 50) == \
            _samples(spec, embedded_server.open(kg), 50)


def _samples(spec: RelationSpec, store: GraphStore, n: int) -> list[dict[str, str]]:
    sampler = prepare_sampler(spec, store)
    assert isinstance(sampler, RelationSampler)
    return [sampler.sample(7, i).nodes for i in range(n)]


DIFFERENTIAL = {"alz": ALZ, "diabetes": "primekg/diabetes_export"}


@pytest.fixture(scope="module", params=sorted(DIFFERENTIAL))
def alz_pair(request, neo4j_server, embedded_server, shared_data
             ) -> tuple[GraphStore, GraphStore]:
    """One PrimeKG extract loaded into both servers."""
    path, kg = shared_data / DIFFERENTIAL[request.param], f"diff_{request.param}"
    on_neo4j, _ = load_kg(neo4j_server, "primekg", [path], kg, replace=False)
    embedded, _ = load_kg(embedded_server, "primekg", [path], kg, replace=False)
    return on_neo4j, embedded


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_specs_count_and_sample_alike_on_both_servers(alz_pair, path):
    spec = load_spec_file(path)
    assert isinstance(spec, RelationSpec)
    outcomes = []
    for store in alz_pair:
        try:
            sampler = prepare_sampler(spec, store)
        except InputError as error:
            outcomes.append(("refused", str(error)))
            continue
        assert isinstance(sampler, RelationSampler)
        try:
            count = sampler.count()
            outcomes.append((count.matches, [sampler.sample(3, i).nodes for i in range(SAMPLES)]))
        except InputError as error:
            outcomes.append(("no matches", str(error)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("setting", ["vanilla", "distractor"])
def test_prompts_are_identical_on_both_servers(alz_pair, setting):
    spec = load_spec_file(REPO / "specs" / "primekg" / "dual_indication.yaml")
    texts = []
    for store in alz_pair:
        sampler = prepare_sampler(spec, store)
        builder = PromptBuilder(store, spec, sampler, seed=5,
                                settings=PromptSettings(setting=setting))
        texts.append([builder.build(i).text for i in range(15)])
        snapshot = pull(store)  # the whole KG read in pages, as a run reads it
        assert snapshot is not None
        local = PromptBuilder(store, spec, sampler, seed=5,
                              settings=PromptSettings(setting=setting),
                              graph=open_graph(store, snapshot))
        texts.append([local.build(i).text for i in range(15)])
    assert texts[0] == texts[1] == texts[2] == texts[3] and all(texts[0])


# -- bad input, one line each ---------------------------------------------------------------


def _cli(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    return kgcert_process(*args, data_dir=tmp_path, env=env, drop=())


def _one_line_error(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_wrong_password_is_one_line(neo4j_env, tmp_path):
    done = _cli(["info"], {**neo4j_env, "KGCERT_NEO4J_PASSWORD": "wrong-password"}, tmp_path)
    assert "refused the credentials" in _one_line_error(done)


def test_missing_database_is_one_line(neo4j_env, tmp_path):
    done = _cli(["info"], {**neo4j_env, "KGCERT_NEO4J_DATABASE": "nosuchdb"}, tmp_path)
    assert "no database 'nosuchdb'" in _one_line_error(done)


def test_unknown_kg_is_one_line(neo4j_env, tmp_path):
    done = _cli(["info", "--kg", "never_loaded"], neo4j_env, tmp_path)
    assert "no KG named 'never_loaded'" in _one_line_error(done)


def _certificates(run_dir: Path) -> dict[str, tuple]:
    found = {}
    for path in sorted((run_dir / "certificates").glob("*.json")):
        body = json.loads(path.read_text())
        found[path.name] = (body["k"], body["n"], body["lower"], body["upper"])
    return found


def test_cli_session_on_neo4j_prints_no_notifications_and_certifies_as_embedded(
        neo4j_env, shared_data, tmp_path):
    # A first load on a fresh label, a count, a run, a write-back and its delete: Neo4j's
    # notifications used to print as multi-line log records (110 on a 30-sample run).
    # exposure_drug: dual_indication's questions have no distractor, and `run` refuses a
    # distractor setting that would hold none (its prompts 4, 8 and 11 hold one at seed 0)
    run = ["run", "--kg", "quiet_alz", "--spec", "primekg.exposure_drug", "--model",
           "bernoulli:0.6", "--model", "bernoulli:0.8", "--setting", "distractor", "--n", "12",
           "--few-shot", "1", "--seed", "0"]
    steps = [["load", "primekg", str(shared_data / ALZ), "--kg", "quiet_alz"],
             ["specs", "count", "primekg.dual_indication", "--kg", "quiet_alz"],
             [*run, "--out", str(tmp_path / "neo4j-run")],
             ["specs", "validate", "primekg.dual_indication", "--kg", "quiet_alz"],
             ["prompts", "--kg", "quiet_alz", "--spec", "primekg.exposure_drug", "--n", "2"],
             ["writeback", str(tmp_path / "neo4j-run")],
             ["writeback", str(tmp_path / "neo4j-run"), "--delete"],
             ["report", str(tmp_path / "neo4j-run")],
             ["compare", str(tmp_path / "neo4j-run")]]
    for step in steps:
        done = _cli(step, neo4j_env, tmp_path / "data")
        assert done.returncode == 0, (step, done.stderr)
        assert "Notification" not in done.stderr and "gql_status" not in done.stderr, step
        # kgcert's own "warning: ..." lines (e.g. a setting that holds no distractor) aside
        server = [line for line in done.stderr.splitlines() if not line.startswith("warning: ")]
        assert "WARN" not in "\n".join(server).upper(), (step, done.stderr)
    embedded = tmp_path / "embedded-data"
    for step in (steps[0], [*run, "--out", str(tmp_path / "embedded-run")]):
        done = _cli(step, {}, embedded)
        assert done.returncode == 0, done.stderr
    certificates = _certificates(tmp_path / "neo4j-run")
    assert certificates and certificates == _certificates(tmp_path / "embedded-run")


def test_versions_before_5_are_recognised():
    assert _agent_major("Neo4j/4.4.30") == 4 and _agent_major("Neo4j/5.26.19") == 5
    assert _agent_major("ArcadeDB/25.1") is None


def _comparable(info: dict[str, Any]) -> dict[str, Any]:
    manifest = info["manifest"]
    return {**info, "manifest": {"fingerprint": manifest["fingerprint"],
                                 "counts": manifest["counts"], "status": manifest["status"]}}


def test_neo4j_admin_import_equals_a_direct_load(neo4j_env, embedded_server, shared_data,
                                                 tmp_path):
    """`kgcert export neo4j-admin` files fed to a real `neo4j-admin database import full`,
    then the export's schema.cypher: `info` equals a direct load, and specs count alike."""
    if not SHARED_NEO4J.is_file():
        pytest.skip("needs ../shared/neo4j (a local Neo4j whose neo4j-admin the test can run)")
    home = tmp_path / "home"
    home.mkdir()
    tarball = next(SHARED_NEO4J.parent.glob("neo4j-community-*.tar.gz"))
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(home), "--strip-components=1"],
                   check=True)
    out = tmp_path / "import"
    exported = _cli(["export", "neo4j-admin", "primekg", str(shared_data / ALZ), "--out", str(out),
                     "--kg", "admin_alz"], {}, tmp_path / "data")
    assert exported.returncode == 0, exported.stderr
    imported = subprocess.run(["bash", str(out / "import.sh")], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "NEO4J_HOME": str(home),
                                                "NEO4J_ADMIN": str(home / "bin" / "neo4j-admin")})
    assert imported.returncode == 0, imported.stdout[-2000:] + imported.stderr[-2000:]
    server_env = shared_neo4j(tmp_path, home=home, keep_data=True)
    env = next(server_env)
    try:
        server = Neo4jServer(env["KGCERT_NEO4J_URI"],
                             auth=(env["KGCERT_NEO4J_USER"], env["KGCERT_NEO4J_PASSWORD"]))
        whole = _whole(server)
        script = "\n".join(line for line in (out / "schema.cypher").read_text().splitlines()
                           if not line.strip().startswith("//"))
        for statement in filter(None, (part.strip() for part in script.split(";"))):
            whole.execute(statement)
        direct = _load(embedded_server, shared_data, "admin_alz", replace=False)
        assert server.list_kgs() == ["admin_alz"]
        assert _comparable(kg_info(server.open("admin_alz"))) == \
            _comparable(kg_info(embedded_server.open("admin_alz")))
        assert direct.manifest.fingerprint == kg_info(server.open("admin_alz"))["manifest"][
            "fingerprint"]
        spec = load_spec_file(REPO / "specs" / "primekg" / "dual_indication.yaml")
        assert _samples(spec, server.open("admin_alz"), 30) == \
            _samples(spec, embedded_server.open("admin_alz"), 30)
        server.close()
    finally:
        server_env.close()


def test_entity_specs_generate_and_sample_alike_on_both_servers(neo4j_server, embedded_server,
                                                                shared_data, tmp_path):
    """The countries KG in Wikidata5m layout: `specs generate` picks the same pivots and the
    entity samplers draw the same paths (first 200) on both servers."""
    from kgcert.specs import EntitySampler
    from kgcert.specs.generate import generate_entity_specs

    drawn = []
    for server in (neo4j_server, embedded_server):
        _load(server, shared_data, "diff_wd5m", "wikidata5m_countries", "wikidata5m",
              replace=False)
        store = server.open("diff_wd5m")
        out = tmp_path / type(server).__name__
        paths = generate_entity_specs(store, "diff_wd5m", out, count=2, rho=4, rule="degree",
                                      threshold=2000, exclude=["P31", "P279"], seed=0)
        texts = [path.read_text() for path in paths]
        sampler = prepare_sampler(load_spec_file(paths[0]), store)
        assert isinstance(sampler, EntitySampler)
        drawn.append((texts, [sampler.sample(2, i) for i in range(SAMPLES)]))
    assert drawn[0] == drawn[1]


def test_edge_properties_are_written_key_by_key_as_the_embedded_server_writes_them(
        neo4j_server, embedded_server, shared_data):
    """The Bolt writer sets each edge property by name (the diabetes export's display
    relation): every edge's properties equal the embedded bulk API's, and Neo4j plans the
    statement without an Eager, which `SET e = row.p` drew (rows held first)."""
    edges = ("MATCH (a:Entity{{:kg}})-[e]->(b:Entity{{:kg}}) RETURN a.id AS a, type(e) AS type, "
             "b.id AS b, properties(e) AS p")
    found = []
    for server in (neo4j_server, embedded_server):
        _load(server, shared_data, "props_diabetes", "primekg/diabetes_export", "neo4j-import",
              replace=False)
        found.append(sorted(server.open("props_diabetes").query(edges),
                            key=lambda row: json.dumps(row, sort_keys=True)))
    assert found[0] == found[1]
    assert sum(1 for row in found[0] if row["p"]) > 10_000
    from kgcert.store.bulk import edge_statement

    query = neo4j_server.open("props_diabetes").scoped(edge_statement("indication",
                                                                      ["display_relation"]))
    with neo4j_server.driver.session(database=neo4j_server.database) as session:
        plan = session.run("EXPLAIN " + query, rows=[{"s": "Q1", "t": "Q2", "p": {}}]
                           ).consume().plan
    operators, todo = [], [plan]
    while todo:
        step = todo.pop()
        operators.append(step["operatorType"].split("@")[0])
        todo += step.get("children", [])
    assert "Create" in operators and "Eager" not in operators
