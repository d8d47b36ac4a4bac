"""Wikidata5m's text preprocessing, one entity at a time, over worker processes.

For each entity with a text: fold it to ASCII (when asked), split it into sentences, find the
sentences that mention an alias of a neighbour, and pick the entity's name (the alias that
occurs first). Entities are independent, so chunks of them go to forked workers that read the
texts, neighbours and alias keys from the parent's memory; only what later steps read comes
back: the first sentence, the mentioning sentences, the name, and the folded text where
folding changed it. A small KG, fewer than 4 cores (there the workers' overhead outweighs
what they take off the parent) or a JVM in this process (forking one is unsafe) keeps it
all in this process, with the same function and the same results.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from kgcert.loaders.wikidata_common import AliasMatcher, earliest_alias, split_sentences, words
from kgcert.loading import progress as loadprogress

MATCHING = "matching sentences"
PARALLEL_FROM = 5_000  # texts; below this a pool costs more than it saves
CHUNK = 1_000  # entities per task: big enough to amortise the pickling, small for progress
MAX_WORKERS = 8
MIN_CORES = 4  # fewer: no workers unless KGCERT_LOAD_WORKERS asks
Key = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EntityText:
    """What the loader needs of one entity's text."""

    text: str | None  # folded, where folding changed the raw text
    first: str  # the first sentence, "" for a text with none
    sentences: dict[int, str]  # by index: the sentences that mention a neighbour
    mentions: dict[str, list[int]]  # neighbour -> indexes of sentences mentioning it
    name: str | None  # the alias found first in the text


@dataclass(frozen=True)
class _Inputs:
    """By entity: its QID, or its integer code (wikidata5m_columns.py)."""

    texts: Mapping[Any, str]  # raw
    neighbours: Mapping[Any, set[Any]]
    keys: Mapping[Any, list[Key]]  # word keys of each entity's aliases
    aliases: Mapping[Any, list[str]]
    fold: Callable[[str], str]


_inputs: _Inputs | None = None  # set before the workers fork: they read it from there


def read_texts(texts: Mapping[str, str], neighbours: Mapping[str, set[str]],
               keys: Mapping[str, list[Key]], aliases: Mapping[str, list[str]],
               fold: Callable[[str], str], workers: int | None = None
               ) -> dict[str, EntityText]:
    """EntityText of every entity in `texts` (raw texts), in the order of `texts`."""
    global _inputs
    qids = list(texts)
    workers = workers or worker_count()
    chunks = [qids[i:i + CHUNK] for i in range(0, len(qids), CHUNK)]
    _inputs = _Inputs(texts, neighbours, keys, aliases, fold)
    found: dict[str, EntityText] = {}
    loadprogress.tick(MATCHING, 0, len(qids), "entities")
    try:
        for chunk, results in zip(chunks, _chunk_results(chunks, workers, len(qids)),
                                  strict=True):
            found.update(zip(chunk, results, strict=True))
            loadprogress.tick(MATCHING, len(found), len(qids), "entities")
    finally:
        _inputs = None
    return found


def worker_count() -> int:
    """Cores this process may use, at most MAX_WORKERS, or 1 below MIN_CORES;
    KGCERT_LOAD_WORKERS overrides."""
    given = os.environ.get("KGCERT_LOAD_WORKERS", "").strip()
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    # Workers cost CPU of their own (pickling, copied pages) while the parent keeps the
    # serial steps, so few cores keep it in-process (benchmarks/bench_wikidata5m_text.py).
    return 1 if cores < MIN_CORES else min(cores, MAX_WORKERS)


def _chunk_results(chunks: Sequence[list[str]], workers: int, total: int
                   ) -> Iterator[list[EntityText]]:
    if workers < 2 or total < PARALLEL_FROM or not fork_safe():
        yield from map(_entity_texts, chunks)
        return
    import multiprocessing

    gc.freeze()  # so that collections in the workers do not write to (and copy) shared pages
    try:
        with multiprocessing.get_context("fork").Pool(workers, _default_signals) as pool:
            yield from pool.imap(_entity_texts, chunks)
    finally:
        gc.unfreeze()


def _default_signals() -> None:
    # A worker inherits the parent's Python SIGTERM handler, which runs only between bytecodes:
    # a worker stuck in C would then outlive the pool's terminate() and hang the parent's join.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def fork_safe() -> bool:
    """No JVM in this process: a forked copy of one is not safe to run beside it."""
    jpype = sys.modules.get("jpype")
    return not (jpype is not None and jpype.isJVMStarted())


def _entity_texts(qids: list[str]) -> list[EntityText]:
    assert _inputs is not None
    return [entity_text(qid, _inputs) for qid in qids]


def entity_text(qid: Any, inputs: _Inputs) -> EntityText:
    """One entity's EntityText, as the former loader found it (tests/wikidata5m_before.py)."""
    raw = inputs.texts[qid]
    text = raw if raw.isascii() else inputs.fold(raw)  # folding leaves ASCII as it is
    split = split_sentences(text)
    tokens = [words(sentence) for sentence in split]
    vocabulary = set(chain.from_iterable(tokens))
    matcher = AliasMatcher()
    keys, fits = inputs.keys, vocabulary.issuperset  # a key not in it occurs nowhere in the text
    matcher.add_keys([(key, other) for other in inputs.neighbours.get(qid, ())
                      for key in keys[other] if fits(key)])
    mentions: dict[str, list[int]] = {}
    if matcher:
        for index, sentence_tokens in enumerate(tokens):
            for owner in matcher.owners_in(sentence_tokens):
                mentions.setdefault(str(owner), []).append(index)
    used = set(chain.from_iterable(mentions.values()))
    names = inputs.aliases.get(qid) or [qid]
    return EntityText(
        text=None if text == raw else text,  # the parent has the raw one: not sent back
        first=split[0] if split else "",
        sentences={index: split[index] for index in sorted(used)},
        mentions=mentions,
        name=earliest_alias(text, names) if text else None,
    )
