"""``bernoulli:<p>``: a test model that answers correctly with known probability ``p``.

Each outcome is a deterministic function of (seed, the model's own name, prompt, sample index),
and independent uniform across them, so statistics can be tested against the known ``p``. The
name is in the draw so that two test models of one run are independent given the prompt, as
two real models' mistakes are not forced to nest: with one shared stream `bernoulli:0.7` would
be right whenever `bernoulli:0.65` is, and paired comparisons would stop far sooner than for
real models. `coupled=True` (model option `coupled: true`) asks for that shared stream, for a
test that wants nested models. Requests must carry ``correct_option`` and ``n_options``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from kgcert.answer_format import reply
from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse


def uniform(*parts: Any) -> float:
    """A uniform number in [0, 1) from the hash of ``parts``."""
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2.0**64


def answer_line(option: int, request: ModelRequest) -> str:
    """The test models' reply: the answer line the prompt asks for, naming ``option``."""
    label = request.options[option - 1] if 0 < option <= len(request.options) else "option"
    return reply.answer_line(option, label, "the context says so") + "\n"


def known_answer(request: ModelRequest, provider: str) -> tuple[int, int]:
    """The request's (correct option, option count), or a clear error."""
    if request.correct_option is None or not request.n_options:
        raise InputError(
            f"the {provider} test model needs requests with correct_option and options"
        )
    if not 1 <= request.correct_option <= request.n_options:
        raise InputError(
            f"correct_option {request.correct_option} is not in 1..{request.n_options}"
        )
    return request.correct_option, request.n_options


class BernoulliModel:
    cacheable = False

    def __init__(
        self, p: float, config: GenerationConfig, seed: int = 0, unparseable_rate: float = 0.0,
        *, stream: str | None = None,
    ) -> None:
        self.p = p
        self.seed = seed
        self.unparseable_rate = unparseable_rate
        self.config = config
        self.name = f"bernoulli:{p:g}"
        # None: the stream every coupled test model shares; else the model's own
        self.stream = stream

    def identity(self) -> dict[str, Any]:
        return {
            "provider": "bernoulli",
            "p": self.p,
            "seed": self.seed,
            "unparseable_rate": self.unparseable_rate,
            "draw": "coupled" if self.stream is None else f"independent ({self.stream})",
        }

    def _uniform(self, *parts: Any) -> float:
        if self.stream is None:
            return uniform(self.seed, *parts)
        return uniform(self.seed, self.stream, *parts)

    def close(self) -> None:
        pass

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        return [self._one(r) for r in requests]

    def _one(self, request: ModelRequest) -> ModelResponse:
        correct, n = known_answer(request, "bernoulli")
        content = request.content_key()
        if self._uniform(content, request.sample_index, "parse") < self.unparseable_rate:
            return ModelResponse(text="I am not sure.", completion_tokens=4)
        if self._uniform(content, request.sample_index, "correct") < self.p or n == 1:
            option = correct
        else:
            others = [k for k in range(1, n + 1) if k != correct]
            pick = self._uniform(content, request.sample_index, "wrong")
            option = others[int(pick * len(others))]
        return ModelResponse(text=answer_line(option, request), completion_tokens=12)


def create(
    name: str, config: GenerationConfig, *, seed: int = 0, unparseable_rate: float = 0.0,
    coupled: bool = False,
) -> BernoulliModel:
    """`bernoulli:<name>`, drawing from its own stream keyed by `bernoulli:<name>` as written
    (so `bernoulli:0.7` and `bernoulli:0.70` are two independent models), or from the shared
    one with `coupled`."""
    try:
        p = float(name)
    except ValueError:
        raise InputError(f"bernoulli:<p> needs a probability, got {name!r}") from None
    if not 0.0 <= p <= 1.0:
        raise InputError(f"bernoulli:<p> needs 0 <= p <= 1, got {p}")
    if not 0.0 <= unparseable_rate <= 1.0:
        raise InputError(f"unparseable_rate must be in [0, 1], got {unparseable_rate}")
    if not isinstance(coupled, bool):
        raise InputError(f"bernoulli: coupled must be true or false, got {coupled!r}")
    return BernoulliModel(p, config, seed=seed, unparseable_rate=unparseable_rate,
                          stream=None if coupled else f"bernoulli:{name}")
