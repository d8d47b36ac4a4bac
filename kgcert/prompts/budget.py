"""How much text a prompt may hold: characters, or tokens of the target model's tokenizer.

A `Budget` bounds the whole rendered prompt (instructions, few-shot examples, context,
question, options and answer line), since that is what has to fit the model's context next
to its answer. The context is filled into what the rest leaves (LLMCert-C Algorithm 7); a
prompt whose essential sentences do not fit is skipped, never truncated.

With a character budget every count is exact. With a tokenizer, sentences are counted one by
one while the context is filled (a sentence's tokens plus a separator's), which can differ
from the count of the joined text by a token here and there; the builder therefore counts the
finished prompt once more and drops the last optional sentences until it fits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgcert.errors import InputError
from kgcert.util import defaults

DEFAULT_CHARACTERS = defaults.CONTEXT_CHARS


@dataclass(frozen=True)
class Budget:
    """At most `limit` units (characters or tokens) for a whole prompt.

    `counter` measures a text in those units; `unit` names them for messages and provenance.
    Build one with :meth:`characters`, :meth:`tokens` or :meth:`from_hf_tokenizer`.
    """

    limit: int
    unit: str = "characters"
    counter: Callable[[str], int] = field(default=len, compare=False, repr=False)
    exact: bool = True  # whether counts of parts add up to the count of the joined text
    label: str | None = field(default=None, compare=False)  # a name other than limit and unit

    def text(self) -> str:
        """How certificates name it: "2750 characters", "700 tokens (X)", or its label."""
        return self.label or f"{self.limit} {self.unit}"

    def __post_init__(self) -> None:
        if not isinstance(self.limit, int) or self.limit < 1:
            raise InputError(f"a prompt budget must be a positive integer, got {self.limit!r}")

    @classmethod
    def characters(cls, limit: int = DEFAULT_CHARACTERS) -> Budget:
        return cls(limit, "characters", len, True)

    @classmethod
    def tokens(cls, count: Callable[[str], int], max_tokens: int,
               name: str = "tokens") -> Budget:
        """A budget counted by `count` (text -> number of tokens)."""
        return cls(max_tokens, name, count, False)

    @classmethod
    def from_hf_tokenizer(cls, tokenizer: Any, max_tokens: int, *, reserve: int = 0) -> Budget:
        """Tokens of a Hugging Face tokenizer (`transformers.AutoTokenizer` or a `tokenizers`
        Tokenizer), special tokens left out. `reserve` keeps that many tokens free, e.g. for
        the chat template's wrapping and the answer: the prompt gets `max_tokens - reserve`."""
        limit = max_tokens - reserve
        if limit < 1:
            raise InputError(f"reserve {reserve} leaves no room in {max_tokens} tokens")
        name = f"tokens ({getattr(tokenizer, 'name_or_path', type(tokenizer).__name__)})"
        encode = getattr(tokenizer, "encode", None)
        if encode is None:
            raise InputError("the tokenizer has no encode method")

        def count(text: str) -> int:
            try:
                encoded = encode(text, add_special_tokens=False)
            except TypeError:  # a `tokenizers.Tokenizer`: keyword not accepted positionally
                encoded = encode(text)
            ids = getattr(encoded, "ids", encoded)
            return len(ids)

        return cls(limit, name, count, False)

    def count(self, text: str) -> int:
        return int(self.counter(text))

    def describe(self) -> dict[str, Any]:
        return {"limit": self.limit, "unit": self.unit}
