"""Hugging Face runner on the tiny random Llama: batching, stopping, choice scoring, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from kgcert.answer_format.reply import ANSWER_PREFIX, answer_line_complete
from kgcert.errors import InputError
from kgcert.models import GenerationConfig, Message, ModelRequest, get_model

PROMPTS = [
    "Which drug treats asthma? Options: 1. aspirin 2. ibuprofen 3. alpha 4. beta",
    "hi",
    "Context: (drug) aspirin is indicated for (disease) fever. Question: which drug is "
    "indicated for fever? Options: 1. aspirin 2. berlin 3. rome 4. gamma. Answer the question.",
    "paris rome",
    "correct answer:",
    "Options: 1. paris 2. rome 3. berlin 4. madrid and a much longer tail of words to vary the "
    "prompt length a lot more than the others in this batch",
]
CHOICE = GenerationConfig(mode="choice", choice_prefix=ANSWER_PREFIX)


def _requests() -> list[ModelRequest]:
    return [ModelRequest(prompt=p, n_options=4) for p in PROMPTS]


def test_batched_greedy_equals_unbatched(tiny_hf: Any) -> None:
    config = GenerationConfig(max_new_tokens=16)
    tiny_hf.batch_size = 4
    batched = tiny_hf.generate(_requests(), config)
    tiny_hf.batch_size = 1
    single = [tiny_hf.generate([r], config)[0] for r in _requests()]
    tiny_hf.batch_size = tiny_hf.max_batch_size
    assert [r.text for r in batched] == [r.text for r in single]
    assert [r.completion_tokens for r in batched] == [r.completion_tokens for r in single]
    assert all(r.error is None for r in batched)
    # the outputs are not trivially equal (e.g. all empty): the prompts lead to different text
    assert len({r.text for r in batched}) > 1


def test_batched_token_ids_equal_unbatched(tiny_hf: Any) -> None:
    """Compare raw token ids through the padded batch path against one row at a time."""
    config = GenerationConfig(max_new_tokens=10)
    rows = [tiny_hf._encode(tiny_hf.render(r)) for r in _requests()]
    assert len({len(r) for r in rows}) > 2  # lengths differ, so padding is exercised
    keys = [(0, r) for r in rows]
    together = tiny_hf._generate_batch(rows, config, keys)
    alone = [tiny_hf._generate_batch([r], config, [k])[0] for r, k in zip(rows, keys, strict=True)]
    assert [x.text for x in together] == [x.text for x in alone]


def test_token_counts_and_chat_template(tiny_hf: Any) -> None:
    request = ModelRequest(prompt="hi")
    rendered = tiny_hf.render(request)
    assert rendered.startswith("<|im_start|>user\nhi<|im_end|>")
    assert rendered.endswith("<|im_start|>assistant\n")
    [response] = tiny_hf.generate(
        [request], GenerationConfig(max_new_tokens=5)
    )
    assert response.prompt_tokens == len(tiny_hf._encode(rendered))
    assert 1 <= response.completion_tokens <= 5
    # GPU seconds: the answer's share of device time on CUDA, none spent on a CPU
    on_gpu = tiny_hf.device.type == "cuda"
    assert response.gpu_s == (pytest.approx(response.latency_s) if on_gpu else 0.0)
    chat = ModelRequest(messages=(Message("system", "be brief"), Message("user", "hi")))
    assert "<|im_start|>system\nbe brief" in tiny_hf.render(chat)


def test_sampling_is_reproducible_and_depends_on_sample_index(tiny_hf: Any) -> None:
    config = GenerationConfig(max_new_tokens=12, temperature=1.5, seed=7)
    reqs = [ModelRequest(prompt="paris rome", sample_index=i) for i in range(4)]
    first = [r.text for r in tiny_hf.generate(reqs, config)]
    again = [r.text for r in tiny_hf.generate(reqs, config)]
    assert first == again
    assert len(set(first)) > 1


def test_choice_scoring_is_a_distribution_and_matches_logits(tiny_hf: Any) -> None:
    import torch

    config = CHOICE
    assert tiny_hf.last_logits_only == {"logits_to_keep": 1}  # the last position alone
    responses = tiny_hf.generate(_requests(), config)
    for request, response in zip(_requests(), responses, strict=True):
        probs = response.choice_probs
        assert probs is not None and len(probs) == 4
        assert sum(probs) == pytest.approx(1.0, abs=1e-5)
        best = max(range(4), key=lambda k: probs[k]) + 1
        assert response.text == f"correct answer: {best}."
        assert response.gpu_s == (response.latency_s if tiny_hf.device.type == "cuda" else 0.0)
        # the same numbers from a separate unpadded forward pass
        context, ids = tiny_hf.choice_inputs(request, config.choice_prefix)
        with torch.inference_mode():
            logits = tiny_hf.model(torch.tensor([context])).logits[0, -1]
        expected = torch.softmax(logits[ids], dim=-1).tolist()
        assert probs == pytest.approx(expected, abs=1e-4)


def test_choice_scoring_on_a_cpu_runs_one_prompt_per_forward_pass(tiny_hf: Any) -> None:
    batches: list[int] = []
    hook = tiny_hf.model.register_forward_pre_hook(
        lambda module, args, kwargs: batches.append(kwargs["input_ids"].shape[0]),
        with_kwargs=True,
    )
    tiny_hf.batch_size = 4
    try:
        tiny_hf.generate(_requests()[:4], CHOICE)
        tiny_hf.generate(_requests()[:4], GenerationConfig(max_new_tokens=1))
    finally:
        hook.remove()
        tiny_hf.batch_size = tiny_hf.max_batch_size
    assert batches == [1, 1, 1, 1, 4]  # no padding for scoring; generation still batches


def test_choice_inputs_of_a_batch_equal_those_of_each_request(tiny_hf: Any) -> None:
    requests = _requests()
    batched = tiny_hf._choice_inputs(requests, "correct answer: ")
    assert batched == [tiny_hf.choice_inputs(r, "correct answer: ") for r in requests]
    for request, (context, ids) in zip(requests, batched, strict=True):
        rendered = tiny_hf.render(request) + "correct answer: "
        for k, last in enumerate(ids, start=1):
            assert tiny_hf._encode(rendered + str(k)) == [*context, last]


@pytest.mark.parametrize(
    ("variants", "expected"),
    [
        ([[5, 6, 1], [5, 6, 2], [5, 6, 3]], ([5, 6], [1, 2, 3])),
        ([[5, 6, 1], [5, 6, 2, 9]], "option 2 is 2 tokens"),  # one digit is two tokens
        ([[5, 1, 2], [5, 3, 4]], "option 1 is 2 tokens"),  # the digit merged with what precedes
        ([[5, 6, 1]], "option 1 is 0 tokens"),  # one option has no differing token to score
        ([[7], [8]], ([], [7, 8])),
    ],
)
def test_split_options_finds_the_shared_context(
    variants: list[list[int]], expected: tuple[list[int], list[int]] | str
) -> None:
    from kgcert.models.hf import HFModel

    if isinstance(expected, str):
        with pytest.raises(InputError, match=expected):
            HFModel._split_options(variants)
    else:
        assert HFModel._split_options(variants) == expected


def test_choice_scoring_needs_option_count(tiny_hf: Any) -> None:
    with pytest.raises(InputError, match="number of options"):
        tiny_hf.generate([ModelRequest(prompt="hi")], CHOICE)


def test_prompt_over_context_is_an_error_not_truncated(tiny_hf: Any) -> None:
    long = ModelRequest(prompt="paris " * 1200)
    short = ModelRequest(prompt="hi")
    out = tiny_hf.generate([long, short], GenerationConfig(max_new_tokens=4))
    assert out[0].error is not None and "context" in out[0].error
    assert out[1].error is None


def test_oom_backoff_halves_batch(tiny_hf: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = tiny_hf._generate_batch

    def flaky(batch: list[list[int]], *args: Any) -> Any:
        calls.append(len(batch))
        if len(batch) > 1:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return original(batch, *args)

    monkeypatch.setattr(tiny_hf, "_generate_batch", flaky)
    tiny_hf.batch_size = 4
    try:
        out = tiny_hf.generate(_requests()[:4], GenerationConfig(max_new_tokens=3))
        assert calls[:3] == [4, 2, 1]
        assert tiny_hf.batch_size == 1
        assert all(r.error is None for r in out)
    finally:
        tiny_hf.batch_size = tiny_hf.max_batch_size


def test_answer_line_stop_per_sequence(tiny_hf: Any) -> None:
    import torch

    from kgcert.models.hf import StopWhen

    assert answer_line_complete("correct answer: 2. paris, because x\n")
    assert answer_line_complete("Thinking\ncorrect answer:\n3. rome\n")
    assert not answer_line_complete("correct answer: 2. paris, because x")
    assert not answer_line_complete("correct answer:\n")
    assert not answer_line_complete("no answer here\n")
    assert not answer_line_complete("correct answer: <option_number>. <answer>\n")

    tok = tiny_hf.tokenizer
    prompt = tok("hi", add_special_tokens=False)["input_ids"]
    done_text = tok("correct answer: 2. paris\n", add_special_tokens=False)["input_ids"]
    open_text = tok("correct answer: 2. paris", add_special_tokens=False)["input_ids"]
    width = max(len(done_text), len(open_text))
    pad = tok.pad_token_id
    rows = [
        prompt + done_text + [pad] * (width - len(done_text)),
        prompt + open_text + [pad] * (width - len(open_text)),
    ]
    stopper = StopWhen(tok, len(prompt), answer_line_complete)
    # feed the sequences token by token, as generate() does
    for t in range(1, width + 1):
        flags = stopper(torch.tensor([r[: len(prompt) + t] for r in rows]), None)
    assert flags.tolist() == [True, False]
    assert stopper.stopped_at == {0: len(done_text)}


def test_generation_on_a_gpu_leaves_out_cudnn_attention() -> None:
    """cuDNN would build an attention plan at every decoding step (each step is a new shape);
    generation on CUDA turns that backend off for its duration, and only there."""
    import contextlib

    import torch

    from kgcert.models.hf import _generation_attention

    assert isinstance(_generation_attention(torch.device("cpu")), contextlib.nullcontext)
    before = torch.backends.cuda.cudnn_sdp_enabled()
    with _generation_attention(torch.device("cuda")):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled()
        assert torch.backends.cuda.mem_efficient_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled() == before


def test_model_path_not_found(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="model path not found"):
        get_model(f"hf:{tmp_path / 'missing'}")


def test_bad_dtype_and_both_quantizations(tiny_llama_dir: Path) -> None:
    with pytest.raises(InputError, match="unknown dtype"):
        get_model(f"hf:{tiny_llama_dir}", dtype="float8", device="cpu")
    with pytest.raises(InputError, match="one of load_in_4bit"):
        get_model(f"hf:{tiny_llama_dir}", load_in_4bit=True, load_in_8bit=True)


def test_bitsandbytes_without_cuda_is_a_clear_error(
    tiny_llama_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(InputError, match="needs a CUDA GPU"):
        get_model(f"hf:{tiny_llama_dir}", load_in_4bit=True, device="auto")
    with pytest.raises(InputError, match="no CUDA GPU"):
        get_model(f"hf:{tiny_llama_dir}", device="cuda")


def test_unknown_option_lists_accepted(tiny_llama_dir: Path) -> None:
    with pytest.raises(InputError, match="accepted: .*max_batch_size"):
        get_model(f"hf:{tiny_llama_dir}", batch=3)


def test_generation_stops_per_row_once_answer_line_is_complete(
    tiny_hf: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Force scripted outputs through the real generate() loop and check each row's stop."""

    import torch
    from transformers import LogitsProcessor, LogitsProcessorList

    tok = tiny_hf.tokenizer
    scripts = [
        "correct answer: 2. rome, because it is\nmore text that must not appear",
        "thinking about it for a while without ever giving the line the checker wants",
        "correct answer: 1. paris<|im_end|>",
    ]
    ids = [tok(s, add_special_tokens=False)["input_ids"] for s in scripts]

    class Script(LogitsProcessor):
        def __init__(self, start: int) -> None:
            self.start = start

        def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
            step = input_ids.shape[1] - self.start
            forced = torch.full_like(scores, float("-inf"))
            for row in range(scores.shape[0]):
                script = ids[row]
                forced[row, script[step] if step < len(script) else tok.pad_token_id] = 0.0
            return forced

    real_generate = tiny_hf.model.generate

    def scripted(**kwargs: Any) -> Any:
        start = kwargs["input_ids"].shape[1]
        return real_generate(**kwargs, logits_processor=LogitsProcessorList([Script(start)]))

    monkeypatch.setattr(tiny_hf.model, "generate", scripted)
    requests = [ModelRequest(prompt="hi") for _ in scripts]
    monkeypatch.setattr(tiny_hf, "batch_size", 3)
    out = tiny_hf.generate(
        requests, GenerationConfig(max_new_tokens=30, stop_when=answer_line_complete))
    assert out[0].text == "correct answer: 2. rome, because it is\n"
    first_line = tok("correct answer: 2. rome, because it is\n", add_special_tokens=False)
    assert out[0].completion_tokens == len(first_line["input_ids"])
    assert out[0].completion_tokens < 30
    assert out[1].completion_tokens == 30  # never complete: runs to max_new_tokens
    assert out[2].text == "correct answer: 1. paris"  # stopped by end-of-sequence
    assert out[2].completion_tokens == len(ids[2])
    unstopped = tiny_hf.generate(
        requests[:1], GenerationConfig(max_new_tokens=30)  # no stop rule: runs on
    )
    assert unstopped[0].text.startswith(out[0].text) and len(unstopped[0].text) > len(out[0].text)


def test_hub_id_not_found_is_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError, match="is not in the local Hugging Face cache and "
                                         "HF_HUB_OFFLINE is set"):
        get_model("hf:kgcert-no-such-org/no-such-model", device="cpu")


def test_bitsandbytes_missing_with_cuda_names_the_extra(
    tiny_llama_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    import torch

    from kgcert.errors import MissingDependencyError

    real_import = builtins.__import__

    def no_bnb(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "bitsandbytes":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(builtins, "__import__", no_bnb)
    with pytest.raises(MissingDependencyError, match=r"pip install 'kgcert\[quant\]'"):
        get_model(f"hf:{tiny_llama_dir}", load_in_8bit=True, dtype="float16", device="cuda")
