"""Several serving replicas of one model (vLLM, SGLang, TGI behind the OpenAI-compatible API):
which one a call goes to, and which to try next when one fails.

Calls go to the replica with the fewest calls in flight (then the one that has served fewest),
so a run's concurrency spreads evenly. A replica that fails a call (connection refused, a
timeout, a 5xx, a 429) is set aside for ``cooldown_s``: the call is retried at once on the
others, and the replica gets calls again after the cooldown, or sooner when every other
replica is set aside too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgcert.errors import InputError
from kgcert.models.secrets import UrlCredentials, split_credentials

COOLDOWN_S = 30.0


@dataclass
class Replica:
    credentials: UrlCredentials
    busy: int = 0
    served: int = 0
    failed: int = 0
    down_until: float = 0.0

    @property
    def url(self) -> str:
        """The URL without credentials (what messages and identities show)."""
        return self.credentials.public_url.rstrip("/")


class ReplicaPool:
    def __init__(self, urls: Sequence[str], cooldown_s: float = COOLDOWN_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not urls:
            raise InputError("no base URL given")
        self.replicas = [Replica(split_credentials(url)) for url in urls]
        shown = [r.url for r in self.replicas]
        repeated = sorted({u for u in shown if shown.count(u) > 1})
        if repeated:
            raise InputError(f"base URL {repeated[0]} is given twice")
        self.cooldown_s = cooldown_s
        self.clock = clock

    def __len__(self) -> int:
        return len(self.replicas)

    def order(self) -> list[Replica]:
        """Every replica, in the order a call should try them."""
        now = self.clock()
        up = [r for r in self.replicas if r.down_until <= now]
        down = [r for r in self.replicas if r.down_until > now]
        up.sort(key=lambda r: (r.busy, r.served))
        down.sort(key=lambda r: r.down_until)
        return up + down

    def set_aside(self, replica: Replica) -> None:
        replica.failed += 1
        replica.down_until = self.clock() + self.cooldown_s

    def answered(self, replica: Replica) -> None:
        replica.served += 1
        replica.down_until = 0.0


def parse_urls(value: str | Sequence[str]) -> list[str]:
    """A comma-separated string or a list of URLs, blanks dropped."""
    items = value.split(",") if isinstance(value, str) else list(value)
    if not all(isinstance(item, str) for item in items):
        raise InputError("base_urls must be URLs (a list, or one string separated by commas)")
    return [item.strip() for item in items if item.strip()]
