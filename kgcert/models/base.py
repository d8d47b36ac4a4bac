"""Types shared by every model provider.

A provider turns a batch of :class:`ModelRequest` into one :class:`ModelResponse` each, in order.
A failed call is reported in ``ModelResponse.error``; it is never turned into a wrong answer.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from kgcert.errors import InputError

Mode = Literal["generate", "choice"]

#: Asked of a reply so far each time a line of it ends: True ends that reply there.
StopRule = Callable[[str], bool]


@dataclass(frozen=True)
class GenerationConfig:
    """How to produce a response; every field is part of the cache key.

    ``stop_when`` (local models) ends a reply once it holds for the reply so far, asked at each
    line end. ``mode="choice"`` (local models only) scores the option numbers after
    ``choice_prefix`` in one forward pass instead of generating text. The caller gives both
    (a run gives the answer format's): providers know nothing of what a reply should say.
    """

    max_new_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    mode: Mode = "generate"
    stop_when: StopRule | None = None
    choice_prefix: str = ""

    def __post_init__(self) -> None:
        if self.max_new_tokens < 1:
            raise InputError(f"max_new_tokens must be at least 1, got {self.max_new_tokens}")
        if self.temperature < 0:
            raise InputError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise InputError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.mode not in ("generate", "choice"):
            raise InputError(f"mode must be 'generate' or 'choice', got {self.mode!r}")
        if self.mode == "choice" and not self.choice_prefix:
            raise InputError("choice mode needs the prefix the option numbers follow "
                             "(choice_prefix)")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def as_dict(self) -> dict[str, Any]:
        """The fields, for cache keys and sample records. The stop rule counts as whether
        there is one, under its earlier name: a run passes one rule only (the answer line's),
        and earlier caches and records keep their keys."""
        data = {}
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name == "stop_when":
                data["stop_at_answer"] = value is not None
            else:
                data[item.name] = value
        return data


@dataclass(frozen=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ModelRequest:
    """One prompt: either plain ``prompt`` text or chat ``messages`` (exactly one of them).

    ``n_options`` is needed for choice scoring. ``correct_option`` (1-based) is read only by the
    test providers (``bernoulli``, ``oracle``); real providers never see it, and it is not part
    of the cache key.
    """

    prompt: str | None = None
    messages: tuple[Message, ...] = ()
    sample_index: int = 0
    n_options: int | None = None
    correct_option: int | None = None
    options: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if (self.prompt is None) == (not self.messages):
            raise InputError("a model request needs exactly one of prompt or messages")
        if self.sample_index < 0:
            raise InputError(f"sample_index must be >= 0, got {self.sample_index}")
        if self.n_options is not None and self.n_options < 1:
            raise InputError(f"n_options must be >= 1, got {self.n_options}")
        if self.options and self.n_options is None:
            object.__setattr__(self, "n_options", len(self.options))

    def chat(self) -> list[dict[str, str]]:
        """The request as chat messages (a plain prompt is one user message)."""
        if self.prompt is not None:
            return [{"role": "user", "content": self.prompt}]
        return [{"role": m.role, "content": m.content} for m in self.messages]

    def plain_text(self) -> str:
        """The request as one string, for models without a chat template."""
        if self.prompt is not None:
            return self.prompt
        return "\n\n".join(m.content for m in self.messages)

    def content_key(self) -> dict[str, Any]:
        """What the model sees, for cache keys."""
        if self.prompt is not None:
            return {"prompt": self.prompt}
        return {"messages": [[m.role, m.content] for m in self.messages]}


@dataclass(frozen=True)
class ModelResponse:
    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    error: str | None = None
    choice_probs: tuple[float, ...] | None = None
    cached: bool = False
    # The model declined (safety block, refusal, empty completion with a finish reason): an
    # answer, counted wrong, never a failed call. Says why.
    refused: str | None = None
    # Seconds a local model held a CUDA device for this answer (0.0 on a CPU); None for a
    # model served elsewhere, whose hardware is not seen.
    gpu_s: float | None = None
    # The model name the server's reply gave (replicas of one model must all give the same);
    # None where the provider names none. Not kept in the response cache (its format stays).
    served_model: str | None = None

    @classmethod
    def failure(cls, error: str, latency_s: float = 0.0) -> ModelResponse:
        return cls(text="", error=error, latency_s=latency_s)

    @classmethod
    def from_exception(cls, exc: Exception, latency_s: float = 0.0) -> ModelResponse:
        """A refusal as the model's answer; any other failure as a failed call."""
        refused = getattr(exc, "refused", None)
        if isinstance(refused, str):
            return cls(text=str(getattr(exc, "text", "") or ""), refused=refused,
                       latency_s=latency_s)
        return cls.failure(str(exc), latency_s)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data.pop("cached")
        data.pop("served_model")
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> ModelResponse:
        data = json.loads(raw)
        probs = data.get("choice_probs")
        data["choice_probs"] = tuple(probs) if probs is not None else None
        return cls(**data, cached=True)


@runtime_checkable
class Model(Protocol):
    """A provider instance.

    ``generate`` returns one response per request, in order; ``config`` defaults to the
    model's own ``config``. ``identity()`` names everything besides the config and the prompt
    that changes outputs (provider, model, dtype, quantization, server URL); it never holds
    secrets. ``cacheable`` is false for the synthetic test providers.
    """

    name: str
    config: GenerationConfig
    cacheable: bool

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]: ...

    def identity(self) -> Mapping[str, Any]: ...

    def close(self) -> None: ...


#: Told as prompts get their answers, before the call returns: (how many, whether from a
#: cache); (0, False) says the model starts computing (its weights are loaded), so a rate
#: shown leaves out the load. A provider calls it through :func:`report_answers`; the run's
#: progress sets it.
AnswerHook = Callable[[int, bool], None]


def report_answers(model: object, count: int, cached: bool = False) -> None:
    """Tell ``model``'s answer hook (its ``on_answer`` attribute, when set) of ``count``
    answers."""
    hook = getattr(model, "on_answer", None)
    if hook is not None and (count or not cached):
        hook(count, cached)


def set_answer_hook(model: object, hook: AnswerHook | None) -> None:
    """Set (or clear) the answer hook of ``model`` and of the models it wraps."""
    while model is not None:
        try:
            model.on_answer = hook  # type: ignore[attr-defined]
        except AttributeError:  # a provider with fixed attributes: no per-prompt progress
            return
        model = getattr(model, "inner", None)
