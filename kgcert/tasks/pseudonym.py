"""Deterministic fictional names for entities (pseudonymization).

A pseudonymized prompt tests whether a model reads the graph it is given rather than recalling
what it knows about the real entities. :func:`pseudonymize` renames entities of a subgraph and
returns a :class:`Pseudonymization`, which callers apply to everything the model sees and
everything the answer is checked against: the subgraph (:meth:`~Pseudonymization.apply_subgraph`,
before textualizing), and the question, the options and the answers
(:meth:`~Pseudonymization.apply_text`).

Names come from a small syllable generator in this module rather than a library. Faker is
maintained but its output follows its locale data, which changes between releases (prompts
would change with the installed version), and its realistic names are often real people,
places and companies, which defeats the purpose. The generator here has no dependency, and a
name depends only on (seed, entity id, entity type, the names already taken): the draws come
from BLAKE2b of those values, ids are processed in sorted order, and a candidate that is
already taken, or equal (ignoring case) to a name to avoid, is redrawn. An entity's type,
when given, picks a style: places end like place names, drugs like drug names, genes look
like gene symbols, and so on; other entities get plain invented words.

Policy for repeated names: pseudonymization renames *names*. All entities of the subgraph that
share a real name get the same fictional name, and distinct real names get distinct fictional
names, so the pseudonymized subgraph has exactly the same ambiguities as the real one (a
pseudonymized variant is neither easier nor harder to read), and replacing names in text is
well defined. If only some entities are chosen, every entity that shares a name with a chosen
one is renamed too.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from kgcert.errors import InputError
from kgcert.textualize.subgraph import Subgraph

_MAX_ATTEMPTS = 10_000


class _Draws:
    """A stream of pseudo-random integers fixed by the given key parts."""

    def __init__(self, *parts: str) -> None:
        key = bytearray()
        for part in parts:
            data = part.encode("utf-8", "surrogatepass")
            key += len(data).to_bytes(4, "little") + data
        self._key = bytes(key)
        self._block = 0
        self._buffer = b""

    def below(self, bound: int) -> int:
        if len(self._buffer) < 4:
            block = self._block.to_bytes(8, "little")
            self._buffer += hashlib.blake2b(self._key + block, digest_size=64).digest()
            self._block += 1
        value = int.from_bytes(self._buffer[:4], "little")
        self._buffer = self._buffer[4:]
        return value % bound

    def pick(self, options: Sequence[str]) -> str:
        return options[self.below(len(options))]


_ONSETS = (
    "b", "br", "c", "d", "dr", "f", "g", "gl", "h", "j", "k", "kr", "l", "m", "n",
    "p", "pl", "r", "s", "sk", "t", "tr", "v", "w", "z",
)  # fmt: skip
_NUCLEI = ("a", "e", "i", "o", "u", "a", "e", "o", "ai", "ea", "ou", "ia")
_CODAS = ("n", "r", "l", "s", "m", "th", "nd", "rn", "x")


def _word(draws: _Draws, low: int = 2, high: int = 3, ending: str | None = None) -> str:
    """An invented word of ``low`` to ``high`` syllables.

    Without ``ending`` the last syllable may close with a consonant. With one, the word
    closes with a consonant exactly when the ending starts with a vowel, so the join reads
    naturally ("Havun" + "ia", "Pouglu" + "mark").
    """
    count = low + draws.below(high - low + 1)
    first = "" if draws.below(4) == 0 else draws.pick(_ONSETS)
    syllables = [first + draws.pick(_NUCLEI)]
    syllables += [draws.pick(_ONSETS) + draws.pick(_NUCLEI) for _ in range(count - 1)]
    if ending is None:
        coda = draws.pick(_CODAS) if draws.below(2) else ""
    else:
        coda = draws.pick(_CODAS) if ending.startswith(tuple("aeiou")) else ""
    return ("".join(syllables) + coda + (ending or "")).capitalize()


def _place(draws: _Draws) -> str:
    return _word(draws, 2, 2, draws.pick(("ia", "land", "ora", "mark", "ovia", "esh", "enne")))


def _language(draws: _Draws) -> str:
    return _word(draws, 2, 2, draws.pick(("ish", "ese", "ic", "ian", "i")))


def _person(draws: _Draws) -> str:
    return f"{_word(draws, 2, 2)} {_word(draws, 2, 3)}"


def _organization(draws: _Draws) -> str:
    kind = ("Union", "League", "Council", "Alliance", "Assembly", "Accord", "Society")
    return f"{_word(draws)} {draws.pick(kind)}"


def _drug(draws: _Draws) -> str:
    endings = ("mab", "vir", "olol", "azole", "pril", "statin", "cillin", "tinib", "zepam")
    return _word(draws, 2, 2, draws.pick(endings))


def _disease(draws: _Draws) -> str:
    return f"{_word(draws)} {draws.pick(('syndrome', 'disease', 'disorder', 'fever', 'palsy'))}"


def _gene(draws: _Draws) -> str:
    letters = "BCDFGHKLMNPRSTVWXZ"
    count = 3 + draws.below(2)
    return "".join(draws.pick(letters) for _ in range(count)) + str(1 + draws.below(19))


# First match wins: the type (case-folded) contains one of the keywords.
_STYLES: tuple[tuple[tuple[str, ...], Callable[[_Draws], str]], ...] = (
    (("gene", "protein"), _gene),
    (("drug", "compound", "chemical", "molecule"), _drug),
    (("disease", "disorder", "syndrome", "phenotype", "effect"), _disease),
    (("language",), _language),
    (("person", "human", "people", "author", "actor"), _person),
    (
        ("organization", "organisation", "union", "league", "company", "party", "agency",
         "institution", "university", "association", "alliance"),
        _organization,
    ),
    (
        ("country", "state", "nation", "city", "town", "region", "province", "territory",
         "island", "kingdom", "republic", "county", "district", "place", "location"),
        _place,
    ),
)  # fmt: skip


def _style(entity_type: str) -> Callable[[_Draws], str]:
    folded = entity_type.casefold()
    for keywords, style in _STYLES:
        if any(keyword in folded for keyword in keywords):
            return style
    return _word


def _seed_text(seed: int | str) -> str:
    return f"{type(seed).__name__}:{seed}"


def _alternation(names: Iterable[str], flags: int = 0) -> re.Pattern[str] | None:
    """A regex matching any of ``names`` as a whole word, longest names first."""
    ordered = sorted({name for name in names if name}, key=lambda name: (-len(name), name))
    if not ordered:
        return None
    alternatives = "|".join(map(re.escape, ordered))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", flags)


def fictional_names(
    ids: Iterable[str],
    seed: int | str,
    *,
    types: Mapping[str, str] | None = None,
    avoid: Iterable[str] = (),
) -> dict[str, str]:
    """Entity id -> fictional name, distinct for distinct ids and clear of every ``avoid``.

    Deterministic: the result depends on the seed, the set of ids, their types and ``avoid``,
    not on the order in which they are given. Names are distinct ignoring case, and no name
    contains a name to avoid as a whole word, ignoring case (a real entity called ``Fever``
    never meets a fictional ``Dralo fever``).
    """
    clash = _alternation(avoid, re.IGNORECASE)
    taken: set[str] = set()
    types = types or {}
    out: dict[str, str] = {}
    for entity_id in sorted(set(ids)):
        style = _style(types.get(entity_id, ""))
        for attempt in range(_MAX_ATTEMPTS):
            draws = _Draws("kgcert-pseudonym-1", _seed_text(seed), entity_id, str(attempt))
            name = style(draws)
            if name.casefold() not in taken and (clash is None or not clash.search(name)):
                break
        else:  # pragma: no cover - needs millions of names of one style
            raise RuntimeError(f"no free fictional name for {entity_id!r}")
        taken.add(name.casefold())
        out[entity_id] = name
    return out


@dataclass(frozen=True)
class Pseudonymization:
    """A renaming of entities; apply it to the subgraph and to every text of the prompt.

    ``names`` maps each renamed entity id to its fictional name, ``by_name`` each real name
    to its fictional name, and ``kept_names`` lists the names of the entities left alone.
    """

    seed: int | str
    names: Mapping[str, str]
    by_name: Mapping[str, str]
    kept_names: tuple[str, ...] = ()

    @cached_property
    def _forward(self) -> re.Pattern[str] | None:
        return _alternation([*self.by_name, *self.kept_names])

    @cached_property
    def _backward(self) -> re.Pattern[str] | None:
        return _alternation([*self.by_name.values(), *self.kept_names])

    @cached_property
    def _inverse(self) -> dict[str, str]:
        return {fictional: real for real, fictional in self.by_name.items()}

    def apply_text(self, text: str) -> str:
        """Replace whole-word occurrences of real names by their fictional names.

        One left-to-right pass, longest names first, so ``New York City`` wins over ``New
        York`` and a replacement is never replaced again. Matching is case-sensitive; "whole
        word" means no letter, digit or underscore right before or after. The names of
        entities that were not renamed are protected: with ``York`` renamed and ``New York``
        kept, ``New York`` stays as it is.
        """
        if self._forward is None:
            return text
        return self._forward.sub(lambda m: self.by_name.get(m[0], m[0]), text)

    def restore_text(self, text: str) -> str:
        """The inverse of :meth:`apply_text`, e.g. to show a model's answer with real names."""
        if self._backward is None:
            return text
        return self._backward.sub(lambda m: self._inverse.get(m[0], m[0]), text)

    def apply_subgraph(self, subgraph: Subgraph) -> Subgraph:
        """The subgraph with renamed entities (ids, edges and order unchanged)."""
        return subgraph.renamed(dict(self.names))


def pseudonymize(
    subgraph: Subgraph,
    seed: int | str,
    *,
    ids: Iterable[str] | None = None,
    avoid: Iterable[str] = (),
) -> Pseudonymization:
    """Fictional names for the entities ``ids`` (default: all) of ``subgraph``.

    Entities sharing a real name with a chosen one are renamed with it (see the module doc).
    Fictional names differ from every real name in the subgraph and from ``avoid`` (e.g. the
    names of answer options drawn from outside the subgraph), ignoring case.
    """
    chosen = [node.id for node in subgraph.nodes] if ids is None else list(ids)
    known = {node.id for node in subgraph.nodes}
    unknown = sorted(set(chosen) - known)
    if unknown:
        raise InputError(f"cannot pseudonymize entities outside the subgraph: {unknown[:5]}")
    hidden = {subgraph.node(entity_id).name for entity_id in chosen}
    groups: dict[str, list[str]] = {}
    for node in subgraph.nodes:
        if node.name in hidden:
            groups.setdefault(node.name, []).append(node.id)
    representative = {name: min(group) for name, group in groups.items()}
    generated = fictional_names(
        representative.values(),
        seed,
        types={rep: subgraph.node(rep).type for rep in representative.values()},
        avoid=[*(node.name for node in subgraph.nodes), *avoid],
    )
    by_name = {name: generated[rep] for name, rep in representative.items()}
    names = {node.id: by_name[node.name] for node in subgraph.nodes if node.name in by_name}
    kept = tuple(dict.fromkeys(node.name for node in subgraph.nodes if node.name not in by_name))
    return Pseudonymization(seed, names, by_name, kept)
