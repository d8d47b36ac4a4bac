"""A tiny Llama with random weights and an offline-trained tokenizer, for tests and benchmarks.

Builds in a few seconds with no download: a byte-level BPE tokenizer trained with
``tokenizers`` on a small built-in corpus, a chat template, a pad token, and a 2-layer Llama.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL_TOKENS = ["<pad>", "<s>", "<unk>", "<|im_start|>", "<|im_end|>"]

_CORPUS = [
    "correct answer: {n}. {e}, because {e} is linked to {f} in the context.",
    "Options: 1. {e} 2. {f} 3. {g} 4. {h}",
    "Question: which {t} is related to {e} and {f}? Answer the question using the context.",
    "Context: ({t}) {e} is indicated for ({t}) {g}. ({t}) {h} has side effect {f}.",
    "The format for beginning your response is: correct answer: <option_number>. <answer>",
]
_WORDS = [
    "paris", "rome", "berlin", "madrid", "aspirin", "ibuprofen", "asthma", "fever", "gene",
    "protein", "drug", "disease", "effect", "country", "river", "capital", "alpha", "beta",
    "gamma", "delta", "methylphenidate", "clopenthixol", "narcolepsy", "obesity",
]  # fmt: skip


def _corpus() -> list[str]:
    lines = []
    w = _WORDS
    for i in range(len(w)):
        for n, template in enumerate(_CORPUS):
            lines.append(
                template.format(
                    n=(i + n) % 9 + 1,
                    e=w[i],
                    f=w[(i + 3) % len(w)],
                    g=w[(i + 5) % len(w)],
                    h=w[(i + 7) % len(w)],
                    t=w[(i + n) % 4 + 10],
                )
            )
    lines.append(" ".join(str(k) for k in range(100)))
    return lines


def build_tiny_tokenizer(vocab_size: int = 600) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="<|im_end|>",
        unk_token="<unk>",
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


#: Llama 3.x layer shapes for random-weight models built from a config (1b and 3b as in
#: Llama 3.2, 8b as in Llama 3.1). The vocabulary comes from the tokenizer in use, so parameter
#: counts differ from the released models by the embedding rows alone.
LLAMA_SHAPES: dict[str, dict[str, Any]] = {
    "tiny": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "tie_word_embeddings": False},
    "1b": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
           "num_attention_heads": 32, "num_key_value_heads": 8, "tie_word_embeddings": True},
    "3b": {"hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 28,
           "num_attention_heads": 24, "num_key_value_heads": 8, "tie_word_embeddings": True},
    "8b": {"hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
           "num_attention_heads": 32, "num_key_value_heads": 8, "tie_word_embeddings": False},
}  # fmt: skip


def llama_config(shape: str, tokenizer: Any, max_positions: int = 1024, **overrides: Any) -> Any:
    """A Llama config of one of :data:`LLAMA_SHAPES` for ``tokenizer``'s vocabulary."""
    from transformers import LlamaConfig

    if shape not in LLAMA_SHAPES:
        raise ValueError(f"unknown model shape {shape!r}; known: {', '.join(LLAMA_SHAPES)}")
    return LlamaConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=max_positions,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **{**LLAMA_SHAPES[shape], **overrides},
    )


def build_llama(
    directory: str | Path,
    tokenizer: Any,
    shape: str,
    *,
    device: str = "cpu",
    dtype: Any = None,
    seed: int = 0,
    max_positions: int = 8192,
    logit_scale: float = 1.0,
    **overrides: Any,
) -> Path:
    """Write a random-weight Llama of ``shape`` and ``tokenizer`` to ``directory``.

    The weights are made on ``device`` in ``dtype``: an 8B model is initialised on a GPU in
    seconds, where the CPU would take minutes.
    """
    import torch
    from transformers import LlamaForCausalLM

    directory = Path(directory)
    config = llama_config(shape, tokenizer, max_positions, **overrides)
    torch.manual_seed(seed)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype or previous)
    try:
        with torch.device(device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    if logit_scale != 1.0:
        with torch.no_grad():
            model.lm_head.weight.mul_(logit_scale)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def build_tiny_llama(directory: str | Path, seed: int = 0, hidden: int = 64) -> Path:
    """Write a tiny random Llama and its tokenizer to ``directory``; returns the directory.

    Its logits are scaled up so near-ties are rare and greedy paths are well separated.
    """
    return build_llama(
        directory, build_tiny_tokenizer(), "tiny", seed=seed, max_positions=1024,
        logit_scale=8.0, hidden_size=hidden, intermediate_size=2 * hidden,
    )
