"""`kgcert run --quant 4bit|8bit`: hf: models get bitsandbytes loading as model options (kept in
run.yaml, part of the run's fingerprint, recorded in the model identity), and a machine
without CUDA gets one line before anything starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgcert.errors import InputError
from kgcert.run.quantization import with_quantization
from kgcert.rundir.run_spec import RunSpec


def _config(*models: str, **options: dict[str, object]) -> RunSpec:
    return RunSpec.of(kg="k", specs=("s",), models=models, model_options=options)


def test_quant_becomes_an_option_of_each_hf_model_only(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # only the check is bypassed
    base = _config("hf:./a", "HF:./b", "oracle", **{"hf:./a": {"load_in_8bit": True,
                                                               "dtype": "float16"}})
    quantized = with_quantization(base, "4bit")
    assert quantized.models.options == {
        "hf:./a": {"dtype": "float16", "load_in_4bit": True},  # 4bit replaces 8bit
        "HF:./b": {"load_in_4bit": True}}
    assert quantized.fingerprint() != base.fingerprint()  # a different run
    assert with_quantization(quantized, "8bit").models.options["HF:./b"] == {"load_in_8bit": True}
    with pytest.raises(InputError, match="applies to hf: models, and the run has none"):
        with_quantization(_config("oracle", "openai:m"), "8bit")


def test_quant_without_cuda_is_one_line_before_the_server_starts(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: the refusal is for machines without it")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGCERT_NEO4J")}
    done = subprocess.run(
        [sys.executable, "-m", "kgcert", "run", "--kg", "nowhere", "--spec",
         "primekg.dual_indication", "--model", "hf:./tiny", "--quant", "4bit"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**env, "KGCERT_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "error: --quant 4bit uses bitsandbytes, which needs a CUDA GPU; none is available"]
    assert not (tmp_path / "runs").exists() and not (tmp_path / "data").exists()
