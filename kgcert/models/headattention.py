"""Attention of a suffix over a cached head, on a CPU, without a (suffix x prompt) mask.

A suffix that starts from the head's cache has fewer queries than keys, which SDPA's causal
flag cannot express (it aligns the triangle top-left), so transformers hands it an explicit
mask and the CPU kernel computes every query-key block, masked or not: on the tiny Llama
(attention is most of its work) that made head reuse slower than computing prompts whole.
Here the suffix attends the head without a mask and itself causally, two flash-kernel calls
merged by their log-sum-exps, which is exact softmax algebra. It applies only inside
:func:`split_head`, for one unpadded row on a CPU; everything else is transformers' SDPA.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import torch

NAME = "kgcert_head_sdpa"
_active: contextvars.ContextVar[bool] = contextvars.ContextVar("kgcert_head_split",
                                                               default=False)
_registered = False


def register() -> str:
    """Register the attention (and its mask) with transformers; returns its name."""
    global _registered
    if not _registered:
        from transformers import AttentionInterface, AttentionMaskInterface
        from transformers.masking_utils import sdpa_mask

        def mask(*args: Any, **kwargs: Any) -> Any:
            return None if _active.get() else sdpa_mask(*args, **kwargs)

        AttentionInterface.register(NAME, _attention)
        AttentionMaskInterface.register(NAME, mask)
        _registered = True
    return NAME


@contextlib.contextmanager
def split_head() -> Iterator[None]:
    """Within: one unpadded row whose keys start with a cached head."""
    token = _active.set(True)
    try:
        yield
    finally:
        _active.reset(token)


def _attention(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
               attention_mask: torch.Tensor | None, dropout: float = 0.0,
               scaling: float | None = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    head = key.shape[2] - query.shape[2]
    if not (_active.get() and query.device.type == "cpu" and query.shape[0] == 1
            and head > 0 and query.shape[2] > 1 and not dropout):
        if _active.get() and attention_mask is None and query.shape[2] > 1:
            attention_mask = _causal(query.shape[2], key.shape[2], query.device)
        return sdpa_attention_forward(module, query, key, value, attention_mask,
                                      dropout=dropout, scaling=scaling, **kwargs)
    over_head, lse_head = _flash(query, key[:, :, :head], value[:, :, :head], False, scaling)
    over_self, lse_self = _flash(query, key[:, :, head:], value[:, :, head:], True, scaling)
    top = torch.maximum(lse_head, lse_self)
    weight_head = (lse_head - top).exp().unsqueeze(-1)
    weight_self = (lse_self - top).exp().unsqueeze(-1)
    out = (over_head * weight_head + over_self * weight_self) / (weight_head + weight_self)
    return out.to(query.dtype).transpose(1, 2).contiguous(), None


def _flash(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, causal: bool,
           scaling: float | None) -> tuple[torch.Tensor, torch.Tensor]:
    """The CPU flash kernel's output and log-sum-exp. It reads grouped key/value heads as they
    are (torch 2.13); a torch whose kernel refuses them gets one key/value head per query
    head, copied (the head's keys, every layer, every prompt)."""
    flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
    if key.shape[1] != query.shape[1]:
        try:
            return flash(query, key, value, 0.0, causal, scale=scaling)
        except RuntimeError:
            groups = query.shape[1] // key.shape[1]
            key = key.repeat_interleave(groups, dim=1)
            value = value.repeat_interleave(groups, dim=1)
    return flash(query, key, value, 0.0, causal, scale=scaling)


def _causal(q_len: int, kv_len: int, device: torch.device) -> torch.Tensor:
    """A bottom-right aligned causal mask (query i sees keys up to kv_len - q_len + i)."""
    rows = torch.arange(q_len, device=device).unsqueeze(1) + (kv_len - q_len)
    return (torch.arange(kv_len, device=device).unsqueeze(0) <= rows)[None, None]
