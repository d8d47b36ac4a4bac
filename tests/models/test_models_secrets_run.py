"""No secret reaches disk: a real `kgcert run` against a local OpenAI-compatible server that
echoes the Authorization header in its errors, with an API key and a base URL carrying
`user:password`, leaves neither in any file of the run directory, the response cache or the
data directory."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml
from fake_openai import serve

from kgcert.errors import InputError
from kgcert.rundir.run_file_keys import load_run_file_keys
from kgcert.synth.primekg import SyntheticPrimeKG

pytest.importorskip("httpx")

API_KEY = "sk-grep-KEY-7f3a9c1e5b"
USER = "alice"
PASSWORD = "hunter2-PASS/w0rd"  # needs percent-encoding in the URL


def _env(data_dir: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("KGCERT_NEO4J_URI", "OPENAI_BASE_URL", "OPENAI_API_KEY")}
    return {**env, "KGCERT_DATA_DIR": str(data_dir), "OMP_NUM_THREADS": "1",
            "OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": base_url,
            "KGCERT_CACHE_DIR": str(data_dir.parent / "cache")}


def _files(*roots: Path) -> list[Path]:
    return [p for root in roots for p in sorted(root.rglob("*")) if p.is_file()]


def test_run_leaves_no_key_or_password_on_disk(tmp_path: Path) -> None:
    SyntheticPrimeKG(scale=0.003, seed=5).write_kg_csv(tmp_path / "kg.csv")
    data_dir = tmp_path / "data"
    with serve() as (url, script):
        # every fourth call is refused with the header echoed, the next one fails as a server
        # error (echoed, retried once), the others are answered
        script.echo_auth = lambda call: {0: 400, 1: 503}.get(call % 4)
        script.reply = "correct answer: 1. The first option."
        credentialed = url.replace("http://", f"http://{USER}:{quote(PASSWORD, safe='')}@")
        env = _env(data_dir, credentialed)
        loaded = subprocess.run([sys.executable, "-m", "kgcert", "load", "primekg",
                                 str(tmp_path / "kg.csv"), "--kg", "synth_secrets"],
                                env=env, cwd=tmp_path, capture_output=True, text=True,
                                timeout=300)
        assert loaded.returncode == 0, loaded.stderr
        fast = {"max_attempts": 2, "base_retry_delay_s": 0.01}
        run_file = tmp_path / "run-file.yaml"  # beta: the key as a bearer token, no URL creds
        run_file.write_text(yaml.safe_dump({"model_options": {
            "openai:alpha": fast, "openai:beta": {**fast, "base_url": url}}}))
        ran = subprocess.run(
            [sys.executable, "-m", "kgcert", "run", "--config", str(run_file),
             "--kg", "synth_secrets", "--spec", "primekg.dual_indication",
             "--model", "openai:alpha", "--model", "openai:beta", "--n", "16",
             "--batch-size", "4", "--out", str(tmp_path / "run")],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    # the secrets were really sent, and really echoed back
    assert f"Bearer {API_KEY}" in script.auth and f"Basic {basic}" in script.auth

    files = _files(tmp_path / "run", data_dir, tmp_path / "cache")
    assert any(p.name == "responses.sqlite" for p in files)  # the cache was written
    secrets = [API_KEY, PASSWORD, quote(PASSWORD, safe=""), basic]
    leaks = [(str(p.relative_to(tmp_path)), s) for p in files for s in secrets
             if s.encode() in p.read_bytes()]
    leaks += [("output", s) for s in secrets if s in ran.stdout + ran.stderr]
    assert leaks == []

    certificates = [json.loads(p.read_text()) for p in (tmp_path / "run").glob(
        "certificates/*.json")]
    assert len(certificates) == 2
    for body in certificates:
        assert body["outcomes"]["error"] > 0 and body["k"] + body["outcomes"]["wrong"] > 0
        assert body["model_identity"]["base_url"] == url
    errors = [json.loads(line)["response"]["error"]
              for p in (tmp_path / "run").glob("samples/**/*.jsonl")
              for line in p.read_text().splitlines()]
    assert any(e and "Bearer ***" in e for e in errors)
    assert any(e and "Basic ***" in e for e in errors)


def test_run_file_refuses_a_password_in_a_model_option() -> None:
    settings = {"kg": "k", "specs": ["s"], "models": ["openai:m"],
                "model_options": {"openai:m": {"base_url": "http://u:pw@127.0.0.1:1/v1"}}}
    with pytest.raises(InputError, match="password.*environment") as refused:
        load_run_file_keys(None, settings)
    assert "pw@" not in str(refused.value)
    # A token given as the URL's user name is as secret as a password (issue 46).
    for url in ("http://sk-token-46@127.0.0.1:1/v1", "http://127.0.0.1:1/v1,http://sk-46@h/v1"):
        settings["model_options"] = {"openai:m": {"base_url": url}}
        with pytest.raises(InputError, match="user name or password") as refused:
            load_run_file_keys(None, settings)
        assert "sk-" not in str(refused.value)
    settings["model_options"] = {"openai:m": {"base_url": "http://127.0.0.1:1/v1"}}
    assert load_run_file_keys(None, settings).model_options["openai:m"]["base_url"] == \
        "http://127.0.0.1:1/v1"


def test_a_token_as_the_url_user_name_is_never_shown() -> None:
    """`http://TOKEN@host/v1` sends the token as Basic auth's user name; a server that echoes
    the header or the name back leaves neither in the recorded error (issue 46)."""
    from fake_openai import serve

    from kgcert.models import GenerationConfig, ModelRequest
    from kgcert.models.registry import get_model

    token = "sk-user-token-46-9b1d"
    basic = base64.b64encode(f"{token}:".encode()).decode()
    with serve() as (url, script):
        script.echo_auth = lambda call: 400
        model = get_model("openai:m", GenerationConfig(max_new_tokens=8),
                          base_url=url.replace("http://", f"http://{token}@"), max_attempts=1)
        [response] = model.generate([ModelRequest(prompt="q")])
    assert f"Basic {basic}" in script.auth  # really sent, and echoed back
    assert response.error and "Basic ***" in response.error
    assert token not in response.error and basic not in response.error
    assert token not in json.dumps(model.identity())
