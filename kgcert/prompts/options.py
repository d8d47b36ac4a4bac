"""Answer options (LLMCert-C Algorithm 5), never offering a second correct answer.

Wrong options are taken in this order until there are `count - 1` of them: the distractors
(distractor setting only, in their order of preference), the other entities of the DAG or
path, entities related to the DAG's entities (uniformly at random), and finally random
entities of the answer's type. Every option has the answer's type (entity label), as the
paper asks for PrimeKG. A candidate is refused when it is a correct answer (every entity that
answers the question, not only the drawn one), when it is named in the question, or when its
name equals (ignoring case) the name of an option already taken or of any correct answer, so
the options are distinguishable by their text. The options are then shuffled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

ROLES = ("answer", "distractor", "path", "related", "random")


@dataclass(frozen=True)
class Option:
    id: str
    name: str
    role: str  # one of ROLES


@dataclass(frozen=True)
class OptionPools:
    """Candidates per source, each in a fixed order (distractors by preference, the others
    sorted by id); `related` and `random` are drawn from at random. `related` may be given
    as a function that lists them: it is called only when the options are still short (a
    distractor prompt's distractors usually fill them, and a hub has thousands of neighbours)."""

    distractors: Sequence[str] = ()
    path: Sequence[str] = ()
    related: Sequence[str] | Callable[[], Sequence[str]] = ()
    random: Callable[[], Iterable[str]] | None = None  # lazily: only when still short


def choose_options(answer: str, correct: Iterable[str], pools: OptionPools, count: int,
                   rng: np.random.Generator, *, name: Callable[[str], str],
                   label: Callable[[str], str], excluded: Iterable[str] = (),
                   shuffle: bool = True) -> list[Option]:
    """`count` options (fewer when the KG has too few candidates; the caller decides)."""
    if count < 2:
        raise ValueError("a multiple-choice question needs at least 2 options")
    wanted_label = label(answer)
    refused = set(correct) | set(excluded) | {answer}
    taken_names = {name(i).casefold() for i in set(correct) | {answer}}
    chosen = [Option(answer, name(answer), "answer")]

    def offer(candidate: str, role: str) -> bool:
        if candidate in refused or label(candidate) != wanted_label:
            return False
        shown = name(candidate)
        if not shown.strip() or shown.casefold() in taken_names:
            return False
        refused.add(candidate)
        taken_names.add(shown.casefold())
        chosen.append(Option(candidate, shown, role))
        return True

    for candidate in pools.distractors:
        if len(chosen) == count:
            break
        offer(candidate, "distractor")
    for candidate in pools.path:
        if len(chosen) == count:
            break
        offer(candidate, "path")
    related = (() if len(chosen) == count else
               pools.related() if callable(pools.related) else pools.related)
    if related:
        for position in rng.permutation(len(related)):
            if len(chosen) == count:
                break
            offer(related[int(position)], "related")
    if len(chosen) < count and pools.random is not None:
        for candidate in pools.random():
            if len(chosen) == count:
                break
            offer(candidate, "random")
    if shuffle:
        order = rng.permutation(len(chosen))
        chosen = [chosen[int(i)] for i in order]
    return chosen
