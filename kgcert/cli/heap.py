"""The garbage collector's pace for commands that build thousands of prompts."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000  # allocations between collections of young objects (Python: 700)


def pace_for_prompts() -> None:
    """Collect young objects every 10,000 net allocations rather than every 700.

    A prompt at full PrimeKG size allocates tens of thousands of short-lived containers
    (facts, rows, lines), so the default pace ran dozens of collections per prompt, each
    walking whatever had survived so far: a fifth of a prompt's CPU time
    (benchmarks/bench_scale.py). Cycles are still found, a little later; the older
    generations keep their thresholds. Called by the commands that own their process.
    """
    young, older, oldest = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:  # 0: collection switched off; leave it so
        gc.set_threshold(YOUNG_THRESHOLD, older, oldest)


@contextmanager
def built_graphs_frozen() -> Iterator[None]:
    """Everything the process holds on entry kept out of the cyclic collector until exit.

    Entered once a command's prompt graphs are read: at full Wikidata5m size their snapshot
    holds millions of names and aliases for the whole run, and each full collection walked
    all of them again (0.45 s each). Inside, collections walk only what was made since.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
