"""What a model's files say before its weights are loaded: their size on disk, and the context
window (from config.json, or from a GGUF file's header without reading its tensors or its
vocabulary: transformers' GGUF reader takes seconds for SmolLM2's)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")


def weights_bytes(source: str, gguf_file: str | None = None) -> int | None:
    """Bytes of the weight files of a local model (None for a Hub id)."""
    folder = Path(source)
    if gguf_file:
        path = folder / gguf_file
        return path.stat().st_size if path.is_file() else None
    if not folder.is_dir():
        return None
    sizes = [p.stat().st_size for p in folder.iterdir()
             if p.is_file() and p.name.endswith(WEIGHT_SUFFIXES)]
    return sum(sizes) or None


def describe_weights(source: str, gguf_file: str | None = None) -> str:
    size = weights_bytes(source, gguf_file)
    if size is None:
        return "from the Hugging Face Hub or its local cache"
    return f"{size / 1e6:,.0f} MB on disk" if size < 1e9 else f"{size / 1e9:,.1f} GB on disk"


def context_length(source: str, gguf_file: str | None, options: dict[str, Any]) -> int | None:
    """The model's context window, without loading its weights."""
    if gguf_file:
        return gguf_context_length(Path(source) / gguf_file)
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(source, **options)
    limit = getattr(config, "max_position_embeddings", None)
    return int(limit) if limit else None


# GGUF value types: fixed sizes; 8 is a string, 9 an array
_SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_INTS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 10: "<Q", 11: "<q"}


def gguf_context_length(path: Path) -> int | None:
    """``<architecture>.context_length`` from a GGUF header; None when it is not there."""
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            return None
        struct.unpack("<I", f.read(4))  # version
        _tensors, count = struct.unpack("<QQ", f.read(16))
        for _ in range(count):
            key = _string(f)
            kind = struct.unpack("<I", f.read(4))[0]
            if key.endswith(".context_length") and kind in _INTS:
                return int(struct.unpack(_INTS[kind], f.read(_SIZES[kind]))[0])
            _skip(f, kind)
    return None


def _string(f: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", f.read(8))
    return f.read(length).decode("utf-8", errors="replace")


def _skip(f: BinaryIO, kind: int) -> None:
    if kind in _SIZES:
        f.seek(_SIZES[kind], 1)
    elif kind == 8:
        (length,) = struct.unpack("<Q", f.read(8))
        f.seek(length, 1)
    elif kind == 9:
        item, n = struct.unpack("<IQ", f.read(12))
        if item in _SIZES:
            f.seek(_SIZES[item] * n, 1)
        else:
            for _ in range(n):
                _skip(f, item)
    else:
        raise ValueError(f"unknown GGUF value type {kind}")
