"""Per-sample random streams: sample i depends only on (run seed, stream key, i).

Every random choice for one sample (which match, which template, which aliases, the
shuffle) comes from the generator for that sample, so resuming a run, running samples in
parallel or changing the batch size never changes a prompt. Keys name the consumer (a spec
hash plus a purpose such as "dag" or "prompt") so independent choices use independent
streams.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=1024)
def _key_words(key: str) -> tuple[int, ...]:
    """A stream key's words (kept: a run asks for a few keys in every prompt)."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4))


def sample_rng(seed: int, key: str, index: int) -> np.random.Generator:
    """The generator for sample `index` of stream `key` in a run seeded with `seed`."""
    if seed < 0 or index < 0:
        raise ValueError("seed and sample index must be non-negative")
    entropy = [seed & 0xFFFFFFFF, seed >> 32 & 0xFFFFFFFF, *_key_words(key)]
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(index,)))
