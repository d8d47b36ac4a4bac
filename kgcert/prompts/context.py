"""Context sentences in three tiers, trimmed to the budget (LLMCert-C Algorithm 7).

Tier 1 (essential): the sentences of the DAG's or path's own edges, which the answer rests on.
Tier 2 (options): the sentences that bring each wrong option and each distractor into the
context. Tier 3 (rest): other sentences of the entities involved, in a seeded random order.
Tier 1 must fit whole or the prompt is skipped; then every later sentence is added, in order,
when it still fits and is not already there (Algorithm 7's greedy pass). Nothing is cut.

In the distractor setting the sentences of the distractors' own edges (`Tiers.distractors`,
each with its place in tier 2) come right after tier 1: they are taken greedily before any
other line of tiers 2 and 3, and a prompt none of whose distractor sentences fits is skipped
("no distractor fits"). The kept lines stay in tier order, the distractor sentences at their
places in tier 2, so a prompt whose distractor sentences all fit is the one Algorithm 7 gives.

A hub's edges offer thousands of sentences of which a budget keeps a hundred or so, so a
sentence filled in from its relation's template waits in its tier as the bare `Fact` and is
written only when the room left could still take it: never once the room left is below
`floor`, a lower bound on the cost of any such sentence. Over a KG snapshot a hub prompt's
tiers 2 and 3 come as `LazyPending` rows (kgcert/prompts/filler.py) with each line's cost
worked out from the arrays (kgcert/graphview/lengths.py): a line that cannot fit is not written.
A tier of up to `_WRITE_AHEAD` entries is written whole instead: a prompt below a hub mostly
keeps every line it is offered, and then they are all kept in one step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from kgcert.graphview import Fact

ESSENTIAL, OPTIONS, REST = "essential", "options", "rest"
_CHUNK = 512  # lazy entries whose costs are compared at once (see `trim`)
_WRITE_AHEAD = 512  # a tier of up to this many entries is written whole before trimming
_new_line = tuple.__new__  # a Line without its named tuple's Python __new__ frame
TIERS = (ESSENTIAL, OPTIONS, REST)


class Line(NamedTuple):
    """One context sentence and the edge it states (None for notes that state no edge). A
    named tuple: a prompt makes some 200."""

    text: str
    tier: str
    fact: Fact | None = None


class LazyPending(Sequence[Fact]):
    """A tier of facts alone, each a sentence still to be written, made as it is read
    (kgcert/prompts/filler.py): once the room left is below `floor`, the trim stops reading
    it. `costs`, when known: a lower bound on each entry's line cost (-1: none), so a line
    that cannot fit is never written."""

    costs: np.ndarray | None = None

    def fact(self, i: int) -> Fact:
        return self[i]


@dataclass
class Tiers:
    essential: list[Line] = field(default_factory=list)
    # A Fact here is a sentence still to be written from its relation's template.
    options: Sequence[Line | Fact] = field(default_factory=list)
    rest: Sequence[Line | Fact] = field(default_factory=list)
    # The distractor setting's distractor sentences, written, each with its place in `options`
    # (where it is too), in the order offered: kept before any other line after tier 1.
    distractors: Sequence[tuple[int, Line]] = ()


NO_DISTRACTOR_FITS = "no distractor fits"


class CharacterCost:
    """A line's cost under a character budget: its length plus a fixed `overhead` (the
    line's marker and newline). `trim` adds up a tier's costs without a call per line."""

    def __init__(self, overhead: int) -> None:
        self.overhead = overhead

    def __call__(self, text: str) -> int:
        return len(text) + self.overhead


@dataclass(frozen=True)
class Trimmed:
    lines: tuple[Line, ...]  # kept, in tier order
    skipped: str | None  # why the essential (or no distractor) sentences fit, else None
    offered: dict[str, int]
    kept: dict[str, int]


def trim(tiers: Tiers, room: int, cost: Callable[[str], int],
         write: Callable[[Fact], str] | None = None, floor: int = 0) -> Trimmed:
    """Fill `room` units: tier 1 whole or nothing, then tiers 2 and 3 greedily.

    `cost(text)` is what one line adds to the prompt (its own units plus a separator's);
    `write(fact)` writes a fact's sentence, whose cost is at least `floor`.
    """
    offered = {ESSENTIAL: len(tiers.essential), OPTIONS: len(tiers.options),
               REST: len(tiers.rest)}
    seen: set[str] = set()
    kept: list[Line] = []
    used = 0
    for line in tiers.essential:
        if line.text in seen:
            continue
        seen.add(line.text)
        kept.append(line)
        used += cost(line.text)
    if used > room:
        return Trimmed((), f"the essential context needs {used} units but only {room} are "
                           "left for the context", offered, {})
    first: list[tuple[int, Line]] = []  # distractor sentences kept, placed in tier 2 below
    if tiers.distractors:
        held = False
        for place, line in tiers.distractors:
            if line.text in seen:  # already stated (by tier 1): in the context at no cost
                held = True
            elif used + (extra := cost(line.text)) <= room:
                seen.add(line.text)
                first.append((place, line))
                used += extra
        if not held and not first:
            least = min(cost(line.text) for _, line in tiers.distractors)
            return Trimmed((), f"{NO_DISTRACTOR_FITS}: the shortest distractor sentence needs "
                               f"{least} units but only {room - used} are left after the "
                               "essential context", offered, {})
    tiers_after: tuple[tuple[str, Sequence[Line | Fact]], ...] = (
        (OPTIONS, tiers.options), (REST, tiers.rest))

    # Written out in each loop rather than in a helper: a prompt offers a few hundred lines.
    for tier, entries in tiers_after:
        tier_starts = len(kept)
        # Each kept line's place in tier 2, where distractor sentences are to be placed among
        # them (else not noted: a prompt keeps a hundred lines).
        places: list[int] | None = [] if tier == OPTIONS and first else None
        if isinstance(entries, LazyPending) and entries.costs is not None:
            assert write is not None
            costs = entries.costs
            # The room left only shrinks: an entry whose least cost is over it now never fits,
            # so each chunk hands the loop only those under it (a hub prompt offers thousands
            # of lines, and once the room is nearly full few of them can still fit).
            for start in range(0, len(costs), _CHUNK):
                if room - used < floor:
                    break  # nothing later in it can fit
                chunk = costs[start:start + _CHUNK]
                picked = np.flatnonzero(chunk <= room - used)
                for at, least in zip(picked.tolist(), chunk[picked].tolist(), strict=True):
                    left = room - used
                    if left < floor:
                        break
                    if least > left:
                        continue  # its line cannot fit: not worth writing
                    fact = entries.fact(start + at)
                    text = write(fact)
                    if text not in seen and (extra := cost(text)) <= left:
                        seen.add(text)
                        kept.append(Line(text, tier, fact))
                        if places is not None:
                            places.append(start + at)
                        used += extra
        elif (write is not None and not isinstance(entries, LazyPending)
              and len(entries) <= _WRITE_AHEAD):
            used = _keep_written(entries, tier, room, used, cost, write, seen, kept, places)
        else:
            lazy = isinstance(entries, LazyPending)
            for place, entry in enumerate(entries):
                if isinstance(entry, Fact):
                    if room - used < floor:
                        if lazy:
                            break  # nothing later in it can fit
                        continue  # it cannot fit: not worth writing
                    assert write is not None
                    text = write(entry)
                    if text not in seen and used + (extra := cost(text)) <= room:
                        seen.add(text)
                        kept.append(Line(text, tier, entry))
                        if places is not None:
                            places.append(place)
                        used += extra
                elif entry.text not in seen and used + (extra := cost(entry.text)) <= room:
                    seen.add(entry.text)
                    kept.append(entry)
                    if places is not None:
                        places.append(place)
                    used += extra
        if places is not None:  # the distractor sentences at their places in tier 2
            placed = sorted([*zip(places, kept[tier_starts:], strict=True), *first],
                            key=itemgetter(0))
            kept[tier_starts:] = [line for _, line in placed]
    counts = dict.fromkeys(TIERS, 0)
    for line in kept:
        counts[line.tier] += 1
    return Trimmed(tuple(kept), None, offered, counts)


def _keep_written(entries: Sequence[Line | Fact], tier: str, room: int, used: int,
                  cost: Callable[[str], int], write: Callable[[Fact], str], seen: set[str],
                  kept: list[Line], places: list[int] | None) -> int:
    """`trim`'s greedy pass over a tier written and costed whole first: below a hub every
    line offered mostly fits, and then all are kept at once, with no step per line (the same
    lines the pass keeps: none repeats a text and together they fit). The room used after."""
    lines = [_new_line(Line, (write(entry), tier, entry)) if isinstance(entry, Fact) else entry
             for entry in entries]
    texts = [line[0] for line in lines]
    unique = set(texts)
    extras = None
    if isinstance(cost, CharacterCost):
        total = sum(map(len, texts)) + cost.overhead * len(texts)
    else:
        extras = list(map(cost, texts))
        total = sum(extras)
    if used + total <= room and len(unique) == len(texts) and seen.isdisjoint(unique):
        seen |= unique
        kept.extend(lines)
        if places is not None:
            places.extend(range(len(lines)))
        return used + total
    for place, (line, text, extra) in enumerate(zip(lines, texts, extras or map(cost, texts),
                                                    strict=True)):
        if text not in seen and used + extra <= room:
            seen.add(text)
            kept.append(line)
            if places is not None:
                places.append(place)
            used += extra
    return used


def shuffled(lines: Sequence[Line], rng: np.random.Generator) -> list[Line]:
    order = rng.permutation(len(lines))
    return [lines[i] for i in order.tolist()]
