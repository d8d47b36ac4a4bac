"""The answer format's one home: providers know nothing of it, and handing them its rules
kept every cache key and sample record as it was."""

from __future__ import annotations

import dataclasses

import pytest

from kgcert.answer_format.reply import ANSWER_PREFIX, answer_line_complete
from kgcert.errors import InputError
from kgcert.models.base import GenerationConfig, ModelRequest
from kgcert.models.cache import cache_key
from tests.project.test_import_graph import import_graph

# The test providers answer the prompt's format by construction; real providers never read it.
ANSWERING_TEST_MODELS = {"kgcert.models.bernoulli", "kgcert.models.oracle"}


def test_no_provider_imports_the_answer_format() -> None:
    graph = import_graph()
    providers = [name for name in graph
                 if name.startswith("kgcert.models") and name not in ANSWERING_TEST_MODELS]
    assert "kgcert.models.hf" in providers
    readers = [name for name in providers
               if any(dep.startswith("kgcert.answer_format") for dep in graph[name])]
    assert readers == []


def test_a_runs_generation_config_keeps_its_keys() -> None:
    """A run hands the stop rule and the prefix; the record and cache key read as before."""
    config = GenerationConfig(max_new_tokens=128, stop_when=answer_line_complete,
                              choice_prefix=ANSWER_PREFIX)
    assert config.as_dict() == {"max_new_tokens": 128, "temperature": 0.0, "top_p": 1.0,
                                "seed": 0, "mode": "generate", "stop_at_answer": True,
                                "choice_prefix": "correct answer: "}
    # the keys that GenerationConfig(max_new_tokens=128[, mode="choice"]) had before the move
    model = {"provider": "hf", "model": "m"}
    assert cache_key(model, config, ModelRequest(prompt="q")) == (
        "10aac784387137562cde7b104dd08bca56d1c922395d443754b7542d545eeb9f")
    choice = dataclasses.replace(config, mode="choice")
    assert cache_key(model, choice, ModelRequest(prompt="q", n_options=4)) == (
        "c11fb63bcd887c4de151ed907997e9efd79bfb30f9fcfc35a83ad384f0471720")
    assert GenerationConfig().as_dict()["stop_at_answer"] is False


def test_choice_mode_needs_the_prefix_its_options_follow() -> None:
    with pytest.raises(InputError, match="choice_prefix"):
        GenerationConfig(mode="choice")
