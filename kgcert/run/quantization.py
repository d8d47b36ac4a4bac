"""`kgcert run --quant`: every hf: model of a run loaded in 4 or 8 bits."""

from __future__ import annotations

from kgcert.errors import InputError
from kgcert.rundir.run_spec import RunSpec

QUANT_OPTIONS = {"4bit": "load_in_4bit", "8bit": "load_in_8bit"}  # hf: model options


def with_quantization(spec: RunSpec, quant: str) -> RunSpec:
    """The run with every hf: model loaded in 4 or 8 bits (bitsandbytes), as model options:
    run.yaml keeps them, the certificates' model identity records them, and the run's
    fingerprint tells it from the full-precision run."""
    if quant not in QUANT_OPTIONS:
        raise InputError(f"--quant must be one of {', '.join(QUANT_OPTIONS)}, got {quant!r}")
    local = [m for m in spec.models.names if m.strip().lower().startswith("hf:")]
    if not local:
        raise InputError(f"--quant {quant} applies to hf: models, and the run has none")
    _check_cuda(quant)
    options = {model: dict(values) for model, values in spec.models.options.items()}
    for model in local:
        chosen = options.setdefault(model, {})
        for key in QUANT_OPTIONS.values():
            chosen.pop(key, None)
        chosen[QUANT_OPTIONS[quant]] = True
    return spec.with_model_options(options)


def _check_cuda(quant: str) -> None:
    """Refuse before anything starts: bitsandbytes quantizes on CUDA only."""
    try:
        import torch
    except ImportError:
        raise InputError(f"--quant {quant} needs torch with CUDA; install it with: "
                         "pip install 'kgcert[hf,quant]'") from None
    if not torch.cuda.is_available():
        raise InputError(f"--quant {quant} uses bitsandbytes, which needs a CUDA GPU; none is "
                         "available")
