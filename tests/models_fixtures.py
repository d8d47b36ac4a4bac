"""Fixtures for the model tests (a pytest plugin; see tests/conftest.py)."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama saved to disk (seconds, no download)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import torch

    torch.set_num_threads(1)
    from kgcert.models.testing import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="session")
def tiny_hf(tiny_llama_dir: Path) -> Any:
    """The tiny Llama loaded through the ``hf:`` provider, float32 on the CPU."""
    from kgcert.models import GenerationConfig, get_model

    model = get_model(
        f"hf:{tiny_llama_dir}",
        GenerationConfig(max_new_tokens=12),
        dtype="float32",
        device="cpu",
        max_batch_size=4,
    )
    yield model
    model.close()
