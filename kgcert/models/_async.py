"""Async helpers of the API providers: run a coroutine from sync code, and fan requests out
under a concurrency limit."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:  # inside a notebook or async caller
        return pool.submit(asyncio.run, coro).result()


async def gather_limited(items: Sequence[T], concurrency: int,
                         call: Callable[[T], Awaitable[R]]) -> list[R]:
    """`call` on every item, at most `concurrency` at a time, results in item order."""
    limit = asyncio.Semaphore(concurrency)

    async def one(item: T) -> R:
        async with limit:
            return await call(item)

    return list(await asyncio.gather(*(one(item) for item in items)))
