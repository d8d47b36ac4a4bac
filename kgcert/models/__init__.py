"""Model providers behind one interface; see :func:`get_model`."""

from kgcert.models.base import (
    GenerationConfig,
    Message,
    Model,
    ModelRequest,
    ModelResponse,
)
from kgcert.models.cache import CachedModel, ResponseCache
from kgcert.models.registry import get_model, known_providers, parse_model_args, parse_model_spec

__all__ = [
    "CachedModel",
    "ResponseCache",
    "GenerationConfig",
    "Message",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "get_model",
    "known_providers",
    "parse_model_args",
    "parse_model_spec",
]
