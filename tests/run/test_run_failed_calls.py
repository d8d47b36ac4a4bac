"""A flaky provider, end to end (issue 33, causes 2 and 5): a run whose every call failed
says "0 answered, N failed" and exits 5 with one line, keeping its files; rerunning the same
command after the outage asks the failed samples again (their failures kept beside, in the
`.failed` file) and never the answered ones, and ends with the certificate a fresh directory
gets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_kg_fixture import CLI_KG, cli_env
from fake_openai import serve

pytest.importorskip("httpx")

N = 6


def _run(data_dir: Path, tmp_path: Path, url: str, out: Path) -> subprocess.CompletedProcess:
    run_file = tmp_path / "run-file.yaml"
    run_file.write_text(yaml.safe_dump({"model_options": {"openai:m": {
        "base_url": url, "max_attempts": 1}}}))
    return subprocess.run(
        [sys.executable, "-m", "kgcert", "run", "--config", str(run_file), "--kg",
         CLI_KG, "--spec", "primekg.dual_indication", "--model", "openai:m", "--n",
         str(N), "--batch-size", "3", "--seed", "0", "--out", str(out)],
        env=cli_env(data_dir), cwd=tmp_path, capture_output=True, text=True, timeout=300)


def _certificate(out: Path) -> dict:
    [path] = (out / "certificates").glob("*.json")
    body = json.loads(path.read_text())
    return {key: body[key] for key in ("k", "n", "lower", "upper", "outcomes")}


def _samples(out: Path) -> tuple[Path, list[dict]]:
    [path] = (out / "samples").glob("**/*.jsonl")
    return path, [json.loads(line) for line in path.read_text().splitlines()]


def test_outage_exits_5_and_a_rerun_asks_the_failed_calls_again(cli_kg: Path,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve() as (url, script):
        script.reply = "correct answer: 1. The first option."
        script.echo_auth = lambda call: 503  # the provider is down
        down = _run(cli_kg, tmp_path, url, out)
        assert down.returncode == 5, down.stderr
        assert down.stderr.count("\n") == 1 and "no answered prompt" in down.stderr
        assert "HTTP 503" in down.stderr and "rerun the same command" in down.stderr
        assert f"0 answered, {N} failed" in down.stdout
        assert _certificate(out)["outcomes"]["error"] == N  # written all the same

        script.echo_auth = lambda call: None  # back up
        calls = len(script.seen)
        again = _run(cli_kg, tmp_path, url, out)
        assert again.returncode == 0, again.stderr
        assert len(script.seen) - calls == N
        fresh = _run(cli_kg, tmp_path, url, tmp_path / "fresh")
        assert fresh.returncode == 0, fresh.stderr
    assert _certificate(out) == _certificate(tmp_path / "fresh")
    assert _certificate(out)["n"] == N
    path, records = _samples(out)
    assert sorted(r["index"] for r in records) == list(range(N))
    history = [json.loads(line) for line in
               path.with_name(path.name + ".failed").read_text().splitlines()]
    assert sorted(r["index"] for r in history) == list(range(N))
    assert all("HTTP 503" in r["response"]["error"] for r in history)


def test_answered_samples_are_never_asked_again(cli_kg: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with serve() as (url, script):
        script.reply = "correct answer: 1. The first option."
        script.echo_auth = lambda call: 503 if call % 2 == 0 else None  # every other fails
        first = _run(cli_kg, tmp_path, url, out)
        assert first.returncode == 0, first.stderr  # some answered: a certificate stands
        assert f"{N // 2} failed" in first.stdout
        _, before = _samples(out)
        failed = {r["index"] for r in before if r["response"]["error"]}
        answered = {r["index"]: r for r in before if not r["response"]["error"]}
        assert len(failed) == N // 2

        script.echo_auth = lambda call: None
        asked = len(script.seen)
        again = _run(cli_kg, tmp_path, url, out)
        assert again.returncode == 0, again.stderr
        assert len(script.seen) - asked == len(failed)
    _, after = _samples(out)
    assert all(not r["response"]["error"] for r in after) and len(after) == N
    assert {r["index"]: r for r in after if r["index"] in answered} == answered
