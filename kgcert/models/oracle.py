"""``oracle``: a test model that always answers with the request's known correct option."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgcert.models.base import GenerationConfig, ModelRequest, ModelResponse
from kgcert.models.bernoulli import answer_line, known_answer


class OracleModel:
    cacheable = False
    name = "oracle"

    def __init__(self, config: GenerationConfig) -> None:
        self.config = config

    def identity(self) -> dict[str, Any]:
        return {"provider": "oracle"}

    def close(self) -> None:
        pass

    def generate(
        self, requests: Sequence[ModelRequest], config: GenerationConfig | None = None
    ) -> list[ModelResponse]:
        out = []
        for request in requests:
            correct, n = known_answer(request, "oracle")
            probs = tuple(1.0 if k == correct else 0.0 for k in range(1, n + 1))
            out.append(
                ModelResponse(
                    text=answer_line(correct, request), completion_tokens=12, choice_probs=probs
                )
            )
        return out


def create(name: str, config: GenerationConfig) -> OracleModel:
    return OracleModel(config)
