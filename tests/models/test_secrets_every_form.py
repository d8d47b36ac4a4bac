"""No API key in any form reaches a file or a message (issue 33, cause 1).

Keys are planted as a careless env file leaves them (a trailing newline, CRLF, spaces around)
and as no header can carry them (non-ASCII letters, a space or newline inside), for every API
provider. Read from the environment they are stripped or refused in one line naming the
variable; a header the HTTP client refuses is its own error, not "cannot reach" and not
retried; and a real `kgcert run` against local servers that echo the key leaves no byte
sequence of any key in the run, the cache, the data directory or the output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_kg_fixture import CLI_KG, cli_env
from fake_anthropic import serve as serve_anthropic
from fake_gemini import GeminiServer
from fake_openai import serve as serve_openai

from kgcert.errors import InputError
from kgcert.models import GenerationConfig, ModelRequest
from kgcert.models.retry import RetryPolicy
from kgcert.models.secrets import Redactor, key_from_env, secret_forms

pytest.importorskip("httpx")
pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

#: What an env file can leave around a good key: stripped, then the key is used.
PADDINGS = {"nl": "{}\n", "crlf": "{}\r\n", "spaces": "  {}  "}
#: Keys no HTTP header can carry: refused naming the variable.
UNSENDABLE = {"non-ascii": "sk-planted-cl\u00e9-{}", "inner-space": "sk-planted {}",
              "inner-newline": "sk-planted\n{}", "cyrillic": "sk-\u043a\u043b\u044e\u0447-{}"}
PROVIDERS = ("openai", "anthropic", "gemini")


def _core(provider: str, kind: str) -> str:
    return f"SECRET-{provider}-{kind}-7f3a9c1e5b"


def _variable(provider: str, kind: str) -> str:
    return f"KGT_{provider.upper()}_{kind.upper().replace('-', '_')}_KEY"


def _async_noop() -> Any:
    async def sleep(seconds: float) -> None:
        pass
    return sleep


@pytest.mark.parametrize("padding", sorted(PADDINGS))
def test_keys_from_the_environment_are_stripped(monkeypatch: pytest.MonkeyPatch,
                                                padding: str) -> None:
    monkeypatch.setenv("KGT_KEY", PADDINGS[padding].format("sk-good-0123"))
    assert key_from_env("KGT_KEY") == "sk-good-0123"
    monkeypatch.setenv("KGT_KEY", " \r\n")
    assert key_from_env("KGT_KEY") is None  # blank counts as unset: "missing API key"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", sorted(UNSENDABLE))
def test_a_key_no_header_can_carry_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, provider: str, kind: str) -> None:
    from kgcert.models.registry import get_model

    variable = _variable(provider, kind)
    key = UNSENDABLE[kind].format(_core(provider, kind))
    monkeypatch.setenv(variable, key)
    with pytest.raises(InputError) as refused:
        get_model(f"{provider}:m", GenerationConfig(), api_key_env=variable,
                  base_url="http://127.0.0.1:9/v1")
    message = str(refused.value)
    assert variable in message and "\n" not in message
    assert "header" in message and _core(provider, kind) not in message


def test_every_form_of_a_key_is_masked() -> None:
    key = "sk-\u043a\u043b\u044e\u0447-\"q\\-0123\n"
    redact = Redactor([key])
    for form in secret_forms(key):
        assert "0123" not in redact(f"before {form} after"), form
    shown = [repr(key), json.dumps(key), repr(key.encode()), f"Bearer {key.strip()}",
             json.dumps(key, ensure_ascii=False)]
    for text in shown:
        assert "0123" not in redact(f"error: {text}"), text


def _gemini_model(key: str, url: str) -> Any:
    from google import genai
    from google.genai import types

    from kgcert.models.gemini import GeminiModel

    client = genai.Client(api_key=key, http_options=types.HttpOptions(
        base_url=url, retry_options=types.HttpRetryOptions(attempts=1)))
    return GeminiModel("g", GenerationConfig(), client=client, concurrency=2,
                       retry=RetryPolicy(max_attempts=3), redact=Redactor([key]),
                       api_key_env="KGT_GEMINI_KEY")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("key", ["sk-refused-0123\n", "sk-refused-cl\u00e9-0123"])
def test_a_refused_header_is_its_own_error_and_not_retried(provider: str, key: str) -> None:
    """A model built around the environment check (as a library user can) with a key no
    header can carry: where the HTTP client refuses the header, the call fails once, saying
    so, never as 'cannot reach'; on main this was retried as 'cannot reach' (openai) or
    raised UnicodeEncodeError out of the run (openai, gemini)."""
    from kgcert.models.anthropic_messages import AnthropicModel
    from kgcert.models.openai_compat import OpenAICompatModel

    with ExitStack() as stack:
        if provider == "gemini":
            server = GeminiServer()
            stack.callback(server.close)
            model = _gemini_model(key, server.url)
            seen: list[Any] = server.keys
        else:
            serve = serve_openai if provider == "openai" else serve_anthropic
            url, script = stack.enter_context(serve())
            kind = OpenAICompatModel if provider == "openai" else AnthropicModel
            model = kind("m", GenerationConfig(), base_url=url, api_key=key,
                         api_key_env="KGT_KEY", retry=RetryPolicy(max_attempts=3))
            seen = script.auth
        model.sleep = _async_noop()
        [response] = model.generate([ModelRequest(prompt="q")])
    if response.error is None:  # this client sends such a header (UTF-8, or stripped)
        assert len(seen) == 1
        return
    assert "refused before sending" in response.error
    assert "cannot reach" not in response.error and "gave up" not in response.error
    assert "0123" not in response.error
    assert seen == []  # nothing was sent


def _files(*roots: Path) -> list[Path]:
    return [p for root in roots for p in sorted(root.rglob("*")) if p.is_file()]


def _run(data_dir: Path, tmp_path: Path, env: dict[str, str], models: dict[str, Any],
         out: str) -> subprocess.CompletedProcess[str]:
    run_file = tmp_path / f"{out}.yaml"
    run_file.write_text(yaml.safe_dump({"model_options": models}))
    command = [sys.executable, "-m", "kgcert", "run", "--config", str(run_file), "--kg",
               CLI_KG, "--spec", "primekg.dual_indication", "--n", "4", "--batch-size",
               "4", "--out", str(tmp_path / out)]
    for model in models:
        command += ["--model", model]
    return subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)


def test_planted_keys_leave_no_trace(cli_kg: Path, tmp_path: Path) -> None:
    keys: dict[str, str] = {}
    models: dict[str, Any] = {}
    fast = {"max_attempts": 2, "base_retry_delay_s": 0.01}
    with ExitStack() as stack:
        openai_url, openai_script = stack.enter_context(serve_openai())
        anthropic_url, anthropic_script = stack.enter_context(serve_anthropic())
        gemini = GeminiServer()
        stack.callback(gemini.close)
        # every other call is refused with the key echoed back, the rest are answered
        for script in (openai_script, anthropic_script):
            script.echo_auth = lambda call: 400 if call % 2 == 0 else None
            script.reply = "correct answer: 1. The first option."
        gemini.echo_auth = lambda call: 400 if call % 2 == 0 else None
        gemini.reply = "correct answer: 1. The first option."
        urls = {"openai": openai_url, "anthropic": anthropic_url, "gemini": gemini.url}
        for provider in PROVIDERS:
            for padding, form in PADDINGS.items():
                variable = _variable(provider, padding)
                keys[variable] = form.format(_core(provider, padding))
                models[f"{provider}:m-{padding}"] = {**fast, "api_key_env": variable,
                                                     "base_url": urls[provider]}
        env = cli_env(cli_kg, **keys)
        ran = _run(cli_kg, tmp_path, env, models, "padded")
        # the keys were sent stripped, and echoed back
        sent = openai_script.auth + anthropic_script.auth + gemini.keys
        for provider in PROVIDERS:
            for padding in PADDINGS:
                assert any(s and s.endswith(_core(provider, padding)) for s in sent)

        unsendable = {f"{provider}:m-{kind}": {**fast, "api_key_env": _variable(provider, kind),
                                              "base_url": urls[provider]}
                      for provider in PROVIDERS for kind in UNSENDABLE}
        bad_keys = {_variable(p, k): UNSENDABLE[k].format(_core(p, k))
                    for p in PROVIDERS for k in UNSENDABLE}
        refused = _run(cli_kg, tmp_path, cli_env(cli_kg, **bad_keys), unsendable,
                       "unsendable")
    assert ran.returncode == 0, ran.stderr
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert any(_variable("openai", kind) in refused.stderr for kind in UNSENDABLE)

    cache = Path(os.environ.get("KGCERT_CACHE_DIR", tmp_path))  # spec caches, listings
    files = _files(tmp_path, cli_kg, cache)
    assert any(p.name == "responses.sqlite" for p in files)  # the cache was written
    cores = [_core(p, k) for p in PROVIDERS for k in [*PADDINGS, *UNSENDABLE]]
    leaks = [(str(p), c) for p in files for c in cores if c.encode() in p.read_bytes()]
    output = ran.stdout + ran.stderr + refused.stdout + refused.stderr
    leaks += [("output", c) for c in cores if c in output]
    assert leaks == []
    errors = [json.loads(line)["response"]["error"]
              for p in (tmp_path / "padded").glob("samples/**/*.jsonl")
              for line in p.read_text().splitlines()]
    assert sum(1 for e in errors if e and "***" in e) >= 9  # echoed by each model, masked
