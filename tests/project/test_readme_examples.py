"""Every `kgcert` command in the README's bash blocks runs against the README's demo KG.

The commands are read from README.md itself, so an example that stops working (or a new one
that never did) fails here. One load of the Alzheimer PrimeKG extract as `primekg` (the demo's
first command), then each command in README order, as a user types it: a subprocess in a
temporary folder with its own data dir, no Neo4j in the environment, and the warm server the
README describes as the default. Optional `[...]` parts
are left out; `kg.csv` is the demo extract; the demo's `smollm2` (a model download) is
replaced by a test model. Commands for other KGs' files or for Neo4j are skipped, each by a
rule below that must match something.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO_PATH = "../shared/data/primekg/kg_alzheimer_neighbourhood.csv"

# (pattern in the command, why it does not run against the demo KG here)
NOT_HERE = (
    (r"path/to/kg\.csv", "the Neo4j walk-through needs a Neo4j server"),
    (r"countries/", "loads the WikiDataSets countries files, not the demo KG"),
    (r"diabetes_export/", "loads a second PrimeKG extract into the demo's name"),
    (r"\bwikidata5m\b", "loads Wikidata5m files"),
    (r"\bneo4j-import\b", "loads neo4j-admin import files"),
    (r"\btriples\b", "loads a user's triples file"),
    (r"runs/formats", "task specs in two formats need the WikiDataSets countries KG "
                      "(tests/report/test_report_variants.py runs them there)"),
    (r"^kgcert drop\b", "drops the demo KG that the later examples read "
                         "(tests/store/test_drop_and_changed_kg.py runs it)"),
    (r"^kgcert view\b", "serves until Ctrl-C (tests/report/test_report_view.py starts it, "
                         "reads its page and stops it)"),
)
# Commands that are meant to exit non-zero on the demo KG, with what they must say.
EXPECTED_FAILURES = {
    "kgcert specs validate --kg primekg": (2, ("primekg.synergistic", "primekg.gene_target",
                                               "primekg.phenotype_contraindication")),
}

# Commands that must be refused here, with one of these reasons on stderr.
EXPECTED_REFUSALS = {
    "--quant 4bit": (2, ("needs a CUDA GPU", "model path not found", "pip install")),
    # the demo KG's dual_indication questions have no Definition 2.3 distractor
    "--out runs/no-distractor": (2, ("holds a distractor, so it would certify what vanilla",)),
}


def readme_commands() -> list[str]:
    """The `kgcert ...` commands of README.md's bash blocks, in order, continuation lines
    joined, comments and `&&` chains split off."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            for part in line.split("&&"):
                part = " ".join(part.split())
                if part.startswith("kgcert "):
                    commands.append(part)
    return commands


def runnable(command: str, demo_csv: Path) -> str:
    command = re.sub(r"\s*\[[^\]]*\]", "", command)  # optional parts left out
    command = command.replace(DEMO_PATH, str(demo_csv))
    command = re.sub(r"(?<=\s)kg\.csv\b", str(demo_csv), command)
    return command.replace("--model smollm2", "--model bernoulli:0.6")


def test_the_readme_has_examples_and_every_skip_rule_is_used() -> None:
    commands = readme_commands()
    assert len(commands) >= 20
    for pattern, reason in NOT_HERE:
        assert any(re.search(pattern, c) for c in commands), f"stale skip rule: {reason}"
    assert set(EXPECTED_FAILURES) <= set(commands)
    for flag in ("--few-shot 0", "--temperature", "--strategy system --system-prompt",
                 "--strategy cot", "--strategy tot", "--distractor-weighting", "--quant"):
        assert any(flag in c for c in commands), f"no README example of the ablation {flag}"
    for flag in ("--suite demo.mix --spec", "--weights exposure_drug=", "--weights matches",
                 "--suite primekg.table1_extract --model", "--price "):
        assert any(flag in c for c in commands), f"no README example of {flag}"


# Every example in one test, one after another: its time grows with the README, so it gets
# more than the per-test default (each command keeps its own 600 s limit).
@pytest.mark.timeout(2400)
def test_every_readme_example_runs_on_the_demo_kg(shared_data: Path, tmp_path: Path) -> None:
    demo_csv = shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv"
    # The README's default: the first graph command starts a warm server that later commands
    # share (one JVM start instead of one per command; loads stop it and it restarts after).
    # Its idle time is short in case a failure leaves it running; the test stops it at the end.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KGCERT_NEO4J") and k != "KGCERT_NO_SERVER"}
    env.update(KGCERT_DATA_DIR=str(tmp_path / "data"), OMP_NUM_THREADS="1", COLUMNS="200",
               KGCERT_SERVER_IDLE="120")
    work = tmp_path / "work"
    work.mkdir()
    try:
        _run_every_example(demo_csv, env, work)
    finally:
        subprocess.run([sys.executable, "-m", "kgcert", "server", "stop"], cwd=work, env=env,
                       capture_output=True, text=True, timeout=300)


def _run_every_example(demo_csv: Path, env: dict[str, str], work: Path) -> None:
    ran = []
    run_example: list[str] = []

    def kgcert(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kgcert", *args[1:]], cwd=work, env=env,
                              capture_output=True, text=True, timeout=600)

    for command in readme_commands():
        if any(re.search(pattern, command) for pattern, _ in NOT_HERE):
            continue
        args = shlex.split(runnable(command, demo_csv))
        done = kgcert(args)
        shown = f"`{command}` -> exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr}"
        assert "Traceback" not in done.stderr, shown
        code, named = EXPECTED_FAILURES.get(command, (0, ()))
        refused = [v for k, v in EXPECTED_REFUSALS.items() if k in command]
        if refused:  # a one-line refusal that names why
            code, reasons = refused[0]
            assert done.returncode == code and len(done.stderr.strip().splitlines()) == 1, shown
            assert any(reason in done.stderr for reason in reasons), shown
        assert done.returncode == code, shown
        for name in named:
            assert f"error: spec {name}" in done.stderr, shown
        if args[1] == "compare" and args[2] == "runs/cot" and len(args) == 3:
            assert "strategy (vanilla, real names)" in done.stdout, shown
            assert "hierarchy (Holm" in done.stdout and "cot" in done.stdout, shown
        ran.append(command)
        if args[1] == "load":
            assert "loaded KG primekg" in done.stdout or "unchanged KG primekg" in done.stdout
            assert "every fact was listed in both directions" in done.stdout, shown
        if args[1:3] == ["specs", "show"]:
            assert "MATCH" in done.stdout, shown  # the compiled Cypher was printed
        if args[1] == "show":
            assert "--- prompt" in done.stdout and "correct answer:" in done.stdout, shown
        if "--json" in args:
            assert all(json.loads(line) for line in done.stdout.splitlines()), shown
        if args[1] == "run" and "runs/example" in args:
            run_example = args
        if args[1] == "report" and "runs/suite" in args:  # the suite beside a mean of bounds
            text = " ".join(done.stdout.split())
            assert "Suite certificates" in text and "(not certified)" in text, shown
            assert "a mean of bounds, not a confidence statement" in text, shown
    assert len(ran) >= 20, ran
    example = work / "runs" / "example"
    assert (example / "report" / "report.html").is_file()
    [suite] = (work / "runs" / "suite-matches" / "certificates").glob("*.json")
    assert json.loads(suite.read_text())["suite"]["weighting"] == "matches"
    beside = (work / "runs" / "suite" / "report" / "suites.csv").read_text().splitlines()
    assert len(beside) == 2 and ",2 of 2," in beside[1]  # runs/example certifies both specs

    # The same run again with --json: it resumes (nothing new to ask) and prints its
    # certificates as JSON lines, and nothing else on stdout.
    again = kgcert([*run_example, "--json"])
    assert again.returncode == 0, again.stderr
    printed = [json.loads(line) for line in again.stdout.splitlines()]
    written = {p.name: json.loads(p.read_text()) for p in (example / "certificates").iterdir()}
    assert len(printed) == len(written) == 2 * 2 * 2  # specs x (vanilla + baseline) x models
    for body in printed:
        assert {k: v for k, v in body.items() if k != "file"} == written[Path(body["file"]).name]
    count = kgcert(["kgcert", "specs", "count", "primekg.dual_indication", "--kg", "primekg",
                    "--json"])
    [counted] = [json.loads(line) for line in count.stdout.splitlines()]
    assert counted["matches"] == 90 and counted["method"] == "enumerated", count.stderr


# Certificate fields that README.md's "How to read a certificate" names (dotted: nested), each
# of which a written certificate of an `--until` run must hold.
NAMED_FIELDS = (
    "k", "n", "outcomes.refused", "unparseable_excluded", "lower", "upper", "confidence",
    "guarantee", "unconditional", "unconditional.upper", "multiplicity",
    "multiplicity.jointly_at_least", "design", "method", "validity", "looks",
    "looks.joint_confidence", "looks.earlier", "simultaneous", "chance", "warnings", "flags",
    "positions", "positions.chosen", "positions.correct", "positions.test", "seed_source",
    "cost", "cost.calls", "cost.failed_calls", "cost.cache_hits", "cost.prompt_tokens",
    "cost.completion_tokens", "cost.calls_without_token_counts", "cost.wall_s", "cost.gpu_s",
    "cost.money_usd", "cost.fixed_n_calls", "cost.calls_saved", "comparisons",
)


def test_the_fields_how_to_read_a_certificate_names_are_in_a_written_certificate(
        tmp_path: Path) -> None:
    from kgcert.models.base import GenerationConfig
    from kgcert.models.registry import get_model
    from kgcert.prompts.record import Prompt, Provenance
    from kgcert.run.runner import Job, ModelSlot, Runner
    from kgcert.rundir.run_spec import RunSpec

    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### How to read a certificate", 1)[1].split("\n### ", 1)[0]

    def build(index: int) -> Prompt:
        provenance = Provenance(spec="toy", spec_hash="toy", kind="relation", seed=3,
                                index=index, setting="vanilla")
        return Prompt(text=f"prompt {index}", provenance=provenance,
                      options=("w", "x", "y", "z"), option_ids=("w", "x", "y", "z"),
                      correct_option=1 + index % 4)

    generation = GenerationConfig()
    names = ("bernoulli:0.9", "bernoulli:0.2")
    slots = [ModelSlot(name, get_model(name, generation, seed=3), generation) for name in names]
    config = RunSpec.of(kg="toy", specs=("toy",), models=names, n=40, batch_size=10,
                        until="ranked", seed=3)
    paths = Runner(config, tmp_path / "run", [Job("toy", "toy", "vanilla", build)], slots).run()
    body = json.loads(paths[0].read_text())
    for dotted in NAMED_FIELDS:
        assert f"`{dotted}`" in section or f"`{dotted.rsplit('.', 1)[-1]}`" in section, dotted
        value: object = body
        for part in dotted.split("."):
            assert isinstance(value, dict) and part in value, f"certificate lacks {dotted}"
            value = value[part]
    # what the section says of them
    assert body["unconditional"]["upper"] == 1.0
    assert body["multiplicity"]["jointly_at_least"] == pytest.approx(1 - 3 * 0.05)
    assert body["chance"]["level"] == pytest.approx(0.25)
    assert body["method"].startswith("beta-binomial") and "anytime-valid" in body["validity"]
    cost = body["cost"]
    assert cost["calls_saved"] == cost["fixed_n_calls"] - cost["calls"] - cost["cache_hits"]
