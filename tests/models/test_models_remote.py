"""The shared base of the API providers: a provider that implements one call and names its
retryable errors gets the deadline, retries, the concurrency limit, refusals as answers,
masking and progress from RemoteModel."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from kgcert.errors import InputError
from kgcert.models import GenerationConfig, ModelRequest
from kgcert.models.base import set_answer_hook
from kgcert.models.remote import RemoteModel, Reply, status_failure
from kgcert.models.retry import CallFailed, Refused, RetryableError, RetryPolicy
from kgcert.models.secrets import Redactor

SECRET = "sk-remote-SECRET-42"


class Busy(Exception):
    """This provider's own transient error."""


class Scripted(RemoteModel):
    """Answers each prompt after the failures scripted for it (a list of exceptions)."""

    provider = "scripted"

    def __init__(self, plan: dict[str, list[Exception]], **options: Any) -> None:
        options.setdefault("concurrency", 2)
        super().__init__("m", GenerationConfig(), timeout_s=0.2, retry=RetryPolicy(3),
                         redact=Redactor([SECRET]), api_key_env="K", base_url=None, **options)
        self.plan = plan
        self.in_flight = self.most_in_flight = 0
        self.sleep = self._no_sleep

    async def _no_sleep(self, seconds: float) -> None:
        return None

    def session(self, config: GenerationConfig) -> contextlib.AbstractAsyncContextManager[Any]:
        return contextlib.nullcontext("client")

    def body(self, request: ModelRequest, config: GenerationConfig) -> str:
        return request.plain_text()

    async def call(self, target: Any, body: Any, config: GenerationConfig) -> Any:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            steps = self.plan.get(body, [])
            if steps:
                raise steps.pop(0)
            return f"answer to {body}"
        finally:
            self.in_flight -= 1

    def classify(self, error: Exception, target: Any,
                 config: GenerationConfig) -> RetryableError | CallFailed | None:
        return RetryableError(f"busy {SECRET}") if isinstance(error, Busy) else None

    def read(self, reply: Any) -> Reply:
        if reply == "answer to no":
            raise Refused("declined", "I will not")
        return Reply(reply, 1, 2)


def test_retries_limits_refusals_masking_and_progress() -> None:
    model = Scripted({"a": [Busy(), Busy()], "b": [Busy(), Busy(), Busy()],
                      "c": [CallFailed(f"bad key {SECRET}")]})
    answered: list[int] = []
    set_answer_hook(model, lambda count, cached: answered.append(count))
    prompts = ["a", "b", "c", "no", "d", "e"]
    out = model.generate([ModelRequest(prompt=p) for p in prompts])
    a, b, c, no, d, _ = out
    assert a.error is None and a.text == "answer to a" and a.completion_tokens == 2
    assert b.error == "busy *** (gave up after 3 attempts)"
    assert c.error == "bad key ***"
    assert no.refused == "declined" and no.text == "I will not" and no.error is None
    assert d.text == "answer to d"
    assert model.most_in_flight == 2 and sum(answered) == len(prompts)
    assert model.identity() == {"provider": "scripted", "model": "m"}


def test_an_unexpected_error_propagates_and_a_slow_call_times_out() -> None:
    model = Scripted({"x": [KeyError("bug")]})
    with pytest.raises(KeyError):
        model.generate([ModelRequest(prompt="x")])

    async def hang(target: Any, body: Any, config: GenerationConfig) -> Any:
        await asyncio.sleep(5)

    model.call = hang  # type: ignore[method-assign]
    [slow] = model.generate([ModelRequest(prompt="y")])
    assert slow.error == "timeout: no complete response within 0.2 s (gave up after 3 attempts)"


def test_choice_mode_and_a_bad_concurrency_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="concurrency must be >= 1"):
        Scripted({}, concurrency=0)
    with pytest.raises(InputError, match="local model"):
        Scripted({}).generate([ModelRequest(prompt="q")],
                              GenerationConfig(mode="choice", choice_prefix="Answer: "))


def test_http_statuses_sort_into_retry_or_not() -> None:
    assert isinstance(status_failure(429, "slow", {"retry-after": "3"}, "K"), RetryableError)
    assert isinstance(status_failure(503, "down", {}, "K"), RetryableError)
    assert str(status_failure(401, "no", {}, "K")) == (
        "authentication failed (HTTP 401); check the key in K")
    assert str(status_failure(400, "too long", {}, "K")) == "request rejected (HTTP 400: too long)"
