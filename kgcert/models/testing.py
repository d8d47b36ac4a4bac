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


def build_tiny_llama(directory: str | Path, seed: int = 0, hidden: int = 64) -> Path:
    """Write a tiny random Llama and its tokenizer to ``directory``; returns the directory."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    directory = Path(directory)
    tokenizer = build_tiny_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    with torch.no_grad():  # larger logits: fewer near-ties, so greedy paths are well separated
        model.lm_head.weight.mul_(8.0)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory
