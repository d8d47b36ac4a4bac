"""Tiers 2 and 3 of a prompt's context, by one of two engines with one interface.

Tier 1 is the sample's own facts; tier 2 (`offer`) the options' and distractors' facts, in
the order offered; tier 3 (`finish`) the filler: up to `per_entity` facts of each entity
involved, drawn and shuffled with the prompt's generator. Each fact key is offered once, in
its first place. A distractor's own edges and the graph's edges that carry its wrong turn on
(`offer_distractor`) are in tier 2 too, and the own edges' sentences, with their places
there, also in `Tiers.distractors`: the trim keeps them first.

- `FactTiers`, the reference engine: Fact objects, de-duplicated in Python.
- `ArrayTiers`, over a KG snapshot's rows: parts are kept as rows, de-duplicated as arrays
  (kgcert/prompts/filler.py) and become Facts only when the trim reaches them. It makes the
  same random calls, so it gives the same prompts (a test checks it); below
  `array_tiers_from` offered and filler facts it hands the prompt to the reference engine,
  whose Python pass then costs less than the arrays' fixed costs.

`engine_for(graph)` picks the engine once per builder: arrays where the graph has snapshot
rows whose fact keys fit an integer, else the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from kgcert.graphview import Fact, PromptGraph
from kgcert.graphview.lengths import SentenceLengths
from kgcert.graphview.rows import FactRows, RowIndex
from kgcert.prompts import context as ctx
from kgcert.prompts.filler import draw_filler, offer_rows, prepare_filler
from kgcert.util.rng import sorted_subsets

FactKey = tuple[str, str, str, str]
Lengths = Callable[[], SentenceLengths | None]  # measured line costs, worked out if asked


class FactTiers:
    """The reference engine: tiers of Fact objects, each fact key once."""

    @staticmethod
    def prepare() -> None:
        """What the engine's first prompt would otherwise pay (nothing here)."""

    def __init__(self, graph: PromptGraph, per_entity: int, lengths: Lengths,
                 array_from: int) -> None:
        self.graph, self.per_entity = graph, per_entity
        self.tiers = ctx.Tiers()
        self.used: set[FactKey] = set()
        self.marked: set[FactKey] = set()  # the distractors' own edges
        self._options: list[ctx.Line | Fact] = []
        self.tiers.options = self._options

    def essential(self, facts: Sequence[Fact]) -> None:
        """Tier 1: the sample's own facts, every sentence of each."""
        for fact in facts:
            if fact.fact_key not in self.used:
                self.used.add(fact.fact_key)
                self.tiers.essential.extend(ctx.Line(text, ctx.ESSENTIAL, fact)
                                            for text in self.graph.sentences(fact))

    def offer(self, facts: Sequence[Fact]) -> None:
        """Tier 2: `facts`, after those offered before."""
        self._add(facts, ctx.OPTIONS, self._options)

    def offer_distractor(self, facts: Sequence[Fact],
                         continuations: Sequence[Sequence[Fact]]) -> None:
        """Tier 2: a distractor's own edges (those that make it one), marked as essential to
        the distractor setting, then `continuations`, edges read from the graph that carry
        its wrong turn on (`SpecKind.continuations`)."""
        self.marked.update(fact.fact_key for fact in facts)
        self._add(facts, ctx.OPTIONS, self._options)
        for part in continuations:
            self._add(part, ctx.OPTIONS, self._options)

    def _marked_lines(self) -> list[tuple[int, ctx.Line]]:
        """The marked facts' sentences in tier 2, each with its place there."""
        marked, sentence = self.marked, self.graph.sentence
        found: list[tuple[int, ctx.Line]] = []
        for place, entry in enumerate(self._options):
            if isinstance(entry, ctx.Line):
                if entry.fact is not None and entry.fact.fact_key in marked:
                    found.append((place, entry))
            elif entry.fact_key in marked:
                found.append((place, ctx.Line(sentence(entry), ctx.OPTIONS, entry)))
        return found

    def _add(self, facts: Sequence[Fact], tier: str, into: list[ctx.Line | Fact]) -> None:
        used, add, append = self.used, self.used.add, into.append
        for fact in facts:
            # `Fact.fact_key` written out: a prompt offers hundreds of facts, and the
            # property's call was much of this loop's time.
            source, rel_type, target, display, sentences = fact
            key = ((source, rel_type, target, display or "") if source <= target
                   else (target, rel_type, source, display or ""))
            if key in used:
                continue
            add(key)
            if sentences:
                into.extend(ctx.Line(text, tier, fact) for text in sentences)
            else:  # written when the budget may still take it
                append(fact)

    def finish(self, sources: Sequence[Sequence[Fact]], rng: np.random.Generator) -> ctx.Tiers:
        """Tier 3 from each entity's allowed facts (`sources`), and the three tiers."""
        pool: list[Fact] = []
        subsets = sorted_subsets(rng, [len(facts) for facts in sources], self.per_entity)
        for facts, drawn in zip(sources, subsets, strict=True):
            if drawn is None:  # no more than the filler takes: all of them
                pool.extend(facts)
            else:
                pool.extend(self._subset(facts, drawn))
        order = rng.permutation(len(pool))
        rest: list[ctx.Line | Fact] = []
        self._add([pool[i] for i in order.tolist()], ctx.REST, rest)
        self.tiers.rest = rest
        if self.marked:
            self.tiers.distractors = self._marked_lines()
        return self.tiers

    def _subset(self, facts: Sequence[Fact], drawn: np.ndarray) -> list[Fact]:
        """The facts at positions `drawn`, in order (snapshot rows made in one pass: with
        edges' own sentences a row made alone costs a gather of its own)."""
        if isinstance(facts, FactRows):
            return facts.take(drawn)
        return [facts[i] for i in drawn.tolist()]


class ArrayTiers(FactTiers):
    """The array engine over snapshot rows (see the module docstring)."""

    @staticmethod
    def prepare() -> None:
        """Imports the hash table `first_fresh` uses on a hub prompt's keys (pandas): a
        once-a-process cost that the first such prompt of a run paid inside the run loop,
        now paid with the builder's preparation."""
        prepare_filler()

    def __init__(self, graph: PromptGraph, per_entity: int, lengths: Lengths,
                 array_from: int) -> None:
        super().__init__(graph, per_entity, lengths, array_from)
        self.index = cast(RowIndex, graph.row_index)
        self.lengths, self.array_from = lengths, array_from
        # Each part offered: rows [start, end) of a FactRows, or of `loose` made rows (None).
        self.parts: list[tuple[FactRows | None, int, int]] = []
        self.loose: list[Fact] = []  # facts not in rows yet, made rows together at the end
        # The distractors' own edges: [start, end) of `loose` (their keys come with its rows).
        self.marked_loose: list[tuple[int, int]] = []

    def offer(self, facts: Sequence[Fact]) -> None:
        self.parts.append((None, len(self.loose), len(self.loose) + len(facts)))
        self.loose.extend(facts)

    def offer_distractor(self, facts: Sequence[Fact],
                         continuations: Sequence[Sequence[Fact]]) -> None:
        start = len(self.loose)
        self.offer(facts)
        self.marked_loose.append((start, len(self.loose)))
        # The graph is a snapshot's (`engine_for`): what it reads of an entity's edges by
        # type and direction are rows.
        self.parts.extend((cast(FactRows, part), 0, len(part)) for part in continuations)

    def finish(self, sources: Sequence[Sequence[Fact]], rng: np.random.Generator) -> ctx.Tiers:
        offered = sum(end - start for _, start, end in self.parts)
        if offered + sum(min(len(facts), self.per_entity) for facts in sources) < self.array_from:
            loose, options = self.loose, self._options
            for rows, start, end in self.parts:  # a small prompt: the Python pass costs less
                self._add(loose[start:end] if rows is None else rows[start:end], ctx.OPTIONS,
                          options)
            self.marked.update(fact.fact_key for start, end in self.marked_loose
                               for fact in loose[start:end])
            return super().finish(sources, rng)
        index = self.index
        essential = np.array([index.key_of(key) for key in self.used], dtype=np.int64)
        lengths = self.lengths()
        joined = index.rows_of(self.loose)
        parts = [(rows if rows is not None else joined, start, end)
                 for rows, start, end in self.parts]
        pending, keys = offer_rows(parts, essential, lengths)
        self.tiers.options = pending
        self.tiers.rest = draw_filler(cast(list[FactRows], sources), self.per_entity,
                                      np.concatenate([essential, keys]), rng, lengths)
        if self.marked_loose:  # the distractors' own edges: found by key among the offered
            loose_keys = joined.fact_keys()
            marked = np.concatenate([loose_keys[start:end] for start, end in self.marked_loose])
            places = np.flatnonzero(np.isin(keys, marked)).tolist()
            sentence = self.graph.sentence
            self.tiers.distractors = [
                (place, ctx.Line(sentence(fact), ctx.OPTIONS, fact))
                for place, fact in zip(places, pending.facts_at(places), strict=True)]
        return self.tiers


def engine_for(graph: PromptGraph) -> type[FactTiers]:
    """The tier engine for prompts over `graph`: arrays over snapshot rows whose fact keys
    fit an integer (and whose edges carry no sentences of their own), else the reference."""
    index = graph.row_index
    usable = index is not None and index.keys_fit and not index.carries_sentences
    return ArrayTiers if usable else FactTiers
