"""Loading an ``hf:`` model: where it comes from (a local folder or the Hub), on which device,
in which dtype, quantized or not; the tokenizer now, the weights on the first prompt that the
response cache does not answer."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import GenerationConfig
from kgcert.models.hf import HFModel
from kgcert.models.quiet import quiet_loading
from kgcert.models.weights import context_length, describe_weights

_DTYPES = {
    "float32": torch.float32,
    "fp32": torch.float32,
    "float16": torch.float16,
    "fp16": torch.float16,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "bf16": torch.bfloat16,
}



def _resolve_source(name: str) -> str:
    path = Path(name).expanduser()
    if path.exists():
        return str(path.resolve())
    looks_local = name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1
    if looks_local:
        raise InputError(f"model path not found: {name}")
    return name


def _resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise InputError(f"device {device!r} requested but no CUDA GPU is available")
    return device


def _resolve_dtype(dtype: str, device: str) -> torch.dtype:
    if dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if dtype not in _DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; use one of auto, {', '.join(sorted(_DTYPES))}")
    return _DTYPES[dtype]


def _quantization_config(bits: int | None, dtype: torch.dtype) -> Any:
    if bits is None:
        return None
    if not torch.cuda.is_available():
        raise InputError(
            f"{bits}-bit quantization uses bitsandbytes, which needs a CUDA GPU; none is available"
        )
    try:
        import bitsandbytes  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            "bitsandbytes is not installed; install it with: pip install 'kgcert[quant]'"
        ) from exc
    from transformers import BitsAndBytesConfig

    if bits == 4:
        return BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_compute_dtype=dtype, bnb_4bit_quant_type="nf4"
        )
    return BitsAndBytesConfig(load_in_8bit=True)


def load_tokenizer(source: str, gguf_file: str | None = None, **kwargs: Any) -> Any:
    extra = {"gguf_file": gguf_file} if gguf_file else {}
    return AutoTokenizer.from_pretrained(source, **extra, **kwargs)


def create(
    name: str,
    config: GenerationConfig,
    *,
    dtype: str = "auto",
    device: str = "auto",
    load_in_4bit: bool = False,
    load_in_8bit: bool = False,
    max_batch_size: int = 16,
    gguf_file: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
    reuse_head: bool = True,
) -> HFModel:
    """``hf:<local path or hub id>``; 4/8-bit loading needs CUDA and ``kgcert[quant]``.

    The tokenizer loads now (prompts are measured with it); the weights on the first prompt
    that the response cache does not answer. ``reuse_head=false`` computes every prompt
    whole (results equal; for measuring what the head's cache saves).
    """
    if load_in_4bit and load_in_8bit:
        raise InputError("choose one of load_in_4bit and load_in_8bit")
    source = _resolve_source(name)
    if not Path(source).exists():  # a hub id: cached, or the Hub reachable, else fail now
        from kgcert.models.hub import check_loadable

        check_loadable(source, revision)
    device = _resolve_device(device)
    torch_dtype = _resolve_dtype(dtype, device)
    bits = 4 if load_in_4bit else 8 if load_in_8bit else None
    quant = _quantization_config(bits, torch_dtype)
    if gguf_file and not (Path(source) / gguf_file).exists() and Path(source).exists():
        raise InputError(f"model path not found: {Path(source) / gguf_file}")
    common: dict[str, Any] = {"trust_remote_code": trust_remote_code}
    if revision:
        common["revision"] = revision
    if gguf_file:
        common["gguf_file"] = gguf_file
    model_kwargs: dict[str, Any] = {"dtype": torch_dtype, **common}
    if quant is not None:
        model_kwargs["quantization_config"] = quant
        model_kwargs["device_map"] = {"": device if ":" in device else f"{device}:0"}
    what = f"model {source}" + (f" ({gguf_file})" if gguf_file else "")
    try:
        with quiet_loading(f"tokenizer of {what}"):
            tokenizer = AutoTokenizer.from_pretrained(source, **common)
            limit = context_length(source, gguf_file, common)
    except OSError as exc:
        raise _not_loadable(name, exc) from exc

    def load() -> PreTrainedModel:
        """Called on the first prompt that no cache answers."""
        started = time.perf_counter()
        try:
            with quiet_loading(f"{what}, {describe_weights(source, gguf_file)}"):
                model = AutoModelForCausalLM.from_pretrained(source, **model_kwargs)
        except OSError as exc:
            raise _not_loadable(name, exc) from exc
        if quant is None:
            model = model.to(device)  # type: ignore[arg-type]
        parameters = sum(p.numel() for p in model.parameters())
        print(f"loaded {what} ({parameters / 1e6:,.0f}M parameters) in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        return model

    identity = {
        "provider": "hf",
        "model": source,
        "gguf_file": gguf_file,
        "revision": revision,
        "dtype": str(torch_dtype).removeprefix("torch."),
        "quantization": f"{bits}bit" if bits else None,
    }
    return HFModel(
        None,
        tokenizer,
        name=f"hf:{name}",
        config=config,
        max_batch_size=max_batch_size,
        identity=identity,
        loader=load,
        context_limit=limit,
        reuse_head=reuse_head,
    )


def _not_loadable(name: str, exc: OSError) -> InputError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(
        f"cannot load model {name!r}: not a local model directory and not loadable from the "
        f"Hugging Face Hub ({first})"
    )
