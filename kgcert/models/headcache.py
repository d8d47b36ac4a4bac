"""The key/value cache of the head that a cell's prompts share (instructions, worked examples).

Every prompt of a (spec, setting, few-shot) cell starts with the same text, so its tokens start
with the same ids: the head is found on the token ids of the full prompts (their longest common
prefix), never by splitting text, so head + suffix is exactly the tokenization of the prompt,
chat template included. Its keys and values are computed once and every prompt starts from
them. A causal model's keys and values at a position depend only on the tokens up to it, so the
cache of a shorter head is a slice of a longer one's: a later call whose prompts share only
part of the kept head uses that part, and one whose prompts share a longer head of their own
(another cell) computes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

#: Heads shorter than this are not worth a cache: the saving is smaller than the bookkeeping.
MIN_HEAD_TOKENS = 32
#: A call whose prompts share this many tokens more than the kept head computes its own head.
REHEAD_TOKENS = 32

KeyValues = list[tuple[torch.Tensor, torch.Tensor]]  # per layer: (keys, values), batch 1


@dataclass(frozen=True)
class Head:
    ids: list[int]
    key_values: KeyValues

    def __len__(self) -> int:
        return len(self.ids)

    def cache(self, model: Any, batch: int) -> Any:
        """A fresh cache holding the head for ``batch`` rows (a forward pass appends to it)."""
        from transformers import DynamicCache

        rows = [(k.expand(batch, -1, -1, -1), v.expand(batch, -1, -1, -1))
                for k, v in self.key_values]
        return DynamicCache(ddp_cache_data=rows, config=model.config)


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many leading ids ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    if list(a[:n]) == list(b[:n]):
        return n
    low, high = 0, n  # a[:low] == b[:low], a[:high] != b[:high]: bisect in C-speed slices
    while high - low > 1:
        mid = (low + high) // 2
        if list(a[low:mid]) == list(b[low:mid]):
            low = mid
        else:
            high = mid
    return low


def shared_prefix(rows: Sequence[Sequence[int]]) -> list[int]:
    """The ids every row starts with, leaving each row at least one id of its own (the last
    position's logits come from a token that is not in the cache)."""
    limit = min(len(r) for r in rows) - 1
    if limit <= 0:
        return []
    first = list(rows[0][:limit])
    length = limit
    for row in rows[1:]:
        length = min(length, common_prefix(first[:length], row))
    return first[:length]


class HeadCache:
    """Keeps one head (the current cell's) between calls."""

    def __init__(self, compute: Callable[[list[int]], KeyValues]) -> None:
        self.compute = compute
        self.head: Head | None = None

    def clear(self) -> None:
        self.head = None

    def for_rows(self, rows: Sequence[Sequence[int]]) -> Head | None:
        """The head to start ``rows`` from, or None when they share too little."""
        if not rows:
            return None
        shared = shared_prefix(rows)
        kept = self.head
        overlap = common_prefix(kept.ids, shared) if kept is not None else 0
        # One row says nothing about what the cell shares: it can only reuse the kept head.
        fresh = len(rows) > 1 and len(shared) >= overlap + REHEAD_TOKENS
        if kept is not None and overlap >= MIN_HEAD_TOKENS and not fresh:
            if overlap < len(kept):  # this call shares less: keep that part (a slice)
                kept = Head(kept.ids[:overlap],
                            [(k[:, :, :overlap].clone(), v[:, :, :overlap].clone())
                             for k, v in kept.key_values])
                self.head = kept
            return kept
        if len(shared) < MIN_HEAD_TOKENS:
            return None
        self.head = Head(shared, self.compute(shared))
        return self.head
