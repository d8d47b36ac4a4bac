"""The response cache lives where the README says: $KGCERT_CACHE_DIR, else the user cache dir,
never under the data dir; a fresh cache dir starts empty (issue 46, item 5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_kg_fixture import CLI_KG, cli_env
from fake_openai import serve

pytest.importorskip("httpx")

N = 4


def _run(data_dir: Path, cache: Path, tmp_path: Path, url: str, out: Path) -> None:
    run_file = tmp_path / "run-file.yaml"
    run_file.write_text(yaml.safe_dump({"model_options": {"openai:m": {
        "base_url": url, "max_attempts": 1}}}))
    done = subprocess.run(
        [sys.executable, "-m", "kgcert", "run", "--config", str(run_file), "--kg", CLI_KG,
         "--spec", "primekg.dual_indication", "--model", "openai:m", "--n", str(N),
         "--seed", "0", "--out", str(out)],
        env=cli_env(data_dir, KGCERT_CACHE_DIR=str(cache)), cwd=tmp_path,
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_responses_are_cached_in_the_cache_dir(cli_kg: Path, tmp_path: Path) -> None:
    first, fresh = tmp_path / "cache-1", tmp_path / "cache-2"
    with serve() as (url, script):
        script.reply = "correct answer: 1. The first option."
        _run(cli_kg, first, tmp_path, url, tmp_path / "a")
        asked = len(script.seen)
        assert asked == N
        _run(cli_kg, first, tmp_path, url, tmp_path / "b")  # the same cache: nothing asked
        assert len(script.seen) == asked
        _run(cli_kg, fresh, tmp_path, url, tmp_path / "c")  # a fresh cache starts empty
        assert len(script.seen) == asked + N
    assert (first / "responses" / "responses.sqlite").is_file()
    assert (fresh / "responses" / "responses.sqlite").is_file()
    assert not list(cli_kg.rglob("responses.sqlite"))
