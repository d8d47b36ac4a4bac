"""How an ``hf`` model reuses the head its prompts share: the head's key/value cache computed
once (see :mod:`kgcert.models.headcache`), and on a CPU an attention that skips the mask over
it (see :mod:`kgcert.models.headattention`)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import torch

from kgcert.models.headattention import NAME as HEAD_ATTENTION
from kgcert.models.headattention import register as register_head_attention
from kgcert.models.headcache import Head, HeadCache, KeyValues
from kgcert.models.hf_batches import Batches, is_oom

log = logging.getLogger(__name__)


class _NoReuse(Exception):
    """This model's cache cannot be cut at a head (e.g. sliding-window layers)."""


class HeadReuse(Batches):
    """The shared head of a model holding ``heads`` (its cache) and ``reuse_head``."""

    name: str
    reuse_head: bool
    heads: HeadCache

    def _can_split_head(self) -> bool:
        """Whether a suffix's attention over the head can skip the explicit mask (CPU SDPA;
        see :mod:`kgcert.models.headattention`)."""
        if self.device.type != "cpu":
            return False
        config = self.model.config
        if config._attn_implementation == "sdpa":
            self.model.set_attn_implementation(register_head_attention())
        return bool(config._attn_implementation == HEAD_ATTENTION)

    def _head_for(self, rows: Sequence[list[int]]) -> Head | None:
        """The shared head of these prompts' ids, when reuse is on and pays."""
        if not self.reuse_head:
            return None
        try:
            return self.heads.for_rows(rows)
        except _NoReuse as reason:
            log.info("head reuse off for %s: %s", self.name, reason)
            self.reuse_head = False
        except Exception as exc:
            if not is_oom(exc):
                raise
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        return None

    def _head_key_values(self, ids: list[int]) -> KeyValues:
        with torch.inference_mode():
            out = self.model(input_ids=torch.tensor([ids], device=self.device), use_cache=True)
        fields = getattr(out, "keys", lambda: ())()
        cache = out["cache"] if "cache" in fields else out.past_key_values
        layers = getattr(cache, "layers", None)
        if not layers or any(getattr(layer, "is_sliding", False) for layer in layers):
            raise _NoReuse("its cache is not one plain key/value tensor per layer")
        return [(layer.keys, layer.values) for layer in layers]

