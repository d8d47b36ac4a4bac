"""An `hf:` hub id whose files are not in the local Hugging Face cache, where the Hub cannot be
reached (issue 47 item 7): `kgcert run` fails at once with one line saying what to do, instead
of transformers' minute of retries before its own error."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import kgcert_process

from kgcert.models.hub import hub_reachable

REPO = "kgcert-tests/a-model-never-downloaded"


@pytest.mark.parametrize("env", [
    {"HF_ENDPOINT": "http://127.0.0.1:9", "HF_HUB_OFFLINE": ""},  # nothing listens there
    {"HF_HUB_OFFLINE": "1"},
])
def test_a_hub_model_that_is_not_local_fails_at_once(tmp_path: Path, env: dict[str, str]):
    pytest.importorskip("transformers", reason="the hf extra is not installed")
    done = kgcert_process("run", "--kg", "primekg", "--spec", "primekg.dual_indication",
                          "--model", f"hf:{REPO}", "--n", "5", "--out", str(tmp_path / "run"),
                          data_dir=tmp_path / "data",
                          env={"HF_HOME": str(tmp_path / "hf"), **env}, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    why = ("HF_HUB_OFFLINE is set" if env.get("HF_HUB_OFFLINE") == "1"
           else "the Hub (http://127.0.0.1:9) cannot be reached")
    assert line == (f"error: model '{REPO}' is not in the local Hugging Face cache and {why}: "
                    f"download it where there is a network (huggingface-cli download {REPO}), "
                    "or give a local folder with hf:./path")
    assert not (tmp_path / "run" / "samples").exists()


def test_reachability_is_a_quick_connect():
    assert hub_reachable("http://127.0.0.1:9") is False
