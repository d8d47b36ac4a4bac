"""How an ``hf`` model reads a request: its prompt text (the tokenizer's chat template when
it has one) and that text's token ids."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgcert.models.base import ModelRequest


class PromptText:
    """Rendering and tokenizing, for a model holding ``tokenizer``."""

    tokenizer: Any

    def render(self, request: ModelRequest) -> str:
        """The prompt text the model reads: chat template if the tokenizer has one."""
        if getattr(self.tokenizer, "chat_template", None):
            messages = request.chat()
            try:
                text = self.tokenizer.apply_chat_template(
                    messages, tokenize=False, add_generation_prompt=True
                )
            except Exception:  # templates that reject a system role: fold it into the user turn
                if messages[0]["role"] != "system" or len(messages) < 2:
                    raise
                merged = [
                    {
                        "role": "user",
                        "content": messages[0]["content"] + "\n\n" + messages[1]["content"],
                    },
                    *messages[2:],
                ]
                text = self.tokenizer.apply_chat_template(
                    merged, tokenize=False, add_generation_prompt=True
                )
            return str(text)
        return request.plain_text()

    def _encode_all(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of many texts in one call: a fast tokenizer spreads a batch over its
        threads, and a run's prompts are thousands of tokens each."""
        if not texts:
            return []
        templated = bool(getattr(self.tokenizer, "chat_template", None))
        encoded = self.tokenizer(list(texts), add_special_tokens=not templated)["input_ids"]
        return [[int(i) for i in ids] for ids in encoded]

    def _encode(self, text: str) -> list[int]:
        return self._encode_all([text])[0]

