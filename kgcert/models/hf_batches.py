"""How an ``hf`` model batches prompts: length-sorted, left-padded rows, with the head's cache
when prompts share one, and a batch size that halves on CUDA out-of-memory.

Attention mask and position ids follow the padding, so a prompt is computed as it would be
alone, up to rounding: in float32 on a CPU its greedy output does not depend on the batch it
lands in, while in bf16 on a GPU other batch shapes pick other kernels, and a near-tie between
two tokens can go either way (random-weight models, whose logits are nearly flat, matched
batch 1 on 0-10 of 16-32 prompts). Prompts that do not fit the context window are error
outcomes, never truncated (the reference code cut the options off the end).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kgcert.models.base import ModelResponse
from kgcert.models.headcache import Head
from kgcert.models.hf_text import PromptText

log = logging.getLogger(__name__)


def is_oom(exc: BaseException) -> bool:
    """Whether ``exc`` says the GPU ran out of memory."""
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(exc, oom_type):
        return True
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


class Batches(PromptText):
    """Batching for a model holding ``model`` (its weights) and the fields below."""

    model: Any
    pad_id: int
    batch_size: int  # lowered on CUDA out-of-memory, kept for later calls
    context_limit: int | None

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _pad(self, rows: Sequence[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[i, width - len(row) :] = torch.tensor(row, dtype=torch.long)
            mask[i, width - len(row) :] = 1
        return ids.to(self.device), mask.to(self.device)

    def _inputs(
        self, batch: Sequence[list[int]], head: Head | None
    ) -> tuple[torch.Tensor, torch.Tensor, dict[str, Any]]:
        """Token ids and attention mask of a batch, and the keyword that hands the model the
        head's cache. With a head, rows are [head][padding][suffix]: the mask hides the
        padding and positions follow the mask, so each row is computed as it would be alone."""
        if head is None:
            input_ids, mask = self._pad(batch)
            return input_ids, mask, {}
        suffixes, suffix_mask = self._pad([row[len(head):] for row in batch])
        n, device = len(batch), suffixes.device
        head_ids = torch.tensor([head.ids], dtype=torch.long, device=device).expand(n, -1)
        head_mask = torch.ones((n, len(head)), dtype=torch.long, device=device)
        return (torch.cat([head_ids, suffixes], 1), torch.cat([head_mask, suffix_mask], 1),
                {self._cache_keyword(): head.cache(self.model, n)})

    def _cache_keyword(self) -> str:
        accepted = inspect.signature(self.model.forward).parameters
        return "cache" if "cache" in accepted else "past_key_values"


    def _run_batches(
        self,
        rows: dict[int, list[int]],
        step: Callable[[list[int]], list[Any]],
        results: dict[int, Any],
        largest: int | None = None,
    ) -> None:
        """Run ``step`` on request indices in length-sorted batches (longest first), of at most
        ``largest`` when given.

        The batch size halves on CUDA out-of-memory and stays lowered for later calls.
        """
        order = sorted(rows, key=lambda i: len(rows[i]), reverse=True)
        pos = 0
        while pos < len(order):
            chunk = order[pos : pos + min(self.batch_size, largest or self.batch_size)]
            try:
                outputs = step(chunk)
            except Exception as exc:
                if not is_oom(exc):
                    raise
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                if len(chunk) == 1:
                    results[chunk[0]] = ModelResponse.failure("CUDA out of memory at batch size 1")
                    pos += 1
                    continue
                self.batch_size = max(1, len(chunk) // 2)
                log.warning("CUDA out of memory; batch size lowered to %d", self.batch_size)
                continue
            for i, out in zip(chunk, outputs, strict=True):
                results[i] = out
            pos += len(chunk)

    def _too_long(self, n_prompt: int, n_new: int) -> str | None:
        if self.context_limit is not None and n_prompt + n_new > self.context_limit:
            return (
                f"prompt has {n_prompt} tokens; with {n_new} new tokens it exceeds the model's "
                f"context of {self.context_limit} tokens"
            )
        return None

