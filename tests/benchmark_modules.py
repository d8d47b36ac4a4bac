"""The benchmark scripts as modules, for the tests that check their arithmetic."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str) -> ModuleType:
    """benchmarks/NAME.py, imported; benchmarks/ goes on the path since scripts import
    their neighbours (bench_common, bench_savings)."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class SmolVocabulary:
    """What a model config needs of a tokenizer: its length and special ids (SmolLM2's)."""

    pad_token_id, bos_token_id, eos_token_id = 2, 1, 2

    def __len__(self) -> int:
        return 49_152
