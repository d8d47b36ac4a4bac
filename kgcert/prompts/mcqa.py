"""Multiple-choice prompts from spec samples (LLMCert-C §2.1, Appendix D.5-D.8).

    settings = PromptSettings(setting="distractor", few_shot=2)
    builder = PromptBuilder(store, spec, settings=settings, seed=0)
    prompt = builder.build(17)       # depends only on (KG, spec, seed, settings, 17)

`build(i)` draws sample i of the spec (its sampler's stream), then renders it. Every random
choice of the rendering comes from two per-prompt generators and nothing else:
`sample_rng(seed, "<spec hash>/prompt/query", i)` for the question (template, aliases), the
same in both settings so the two settings of prompt i ask the same question, and
`sample_rng(seed, "<spec hash>/prompt/<setting>", i)` for distractors, options, filler and
the shuffle. Graph reads are sorted before any of these choices, so the same seed gives the
same text byte for byte, whatever was built before, in any batch or order.

Settings.
- `vanilla`: no distractors. Sentences of edges that share a relationship type with an edge of
  the DAG (or path) are kept out, except the DAG's own (Appendix D.6's note): they would state
  alternative answers or wrong turns.
- `distractor`: no such filter; the Definition 2.3 distractors' edges are in the context
  (right after the options' sentences), with the edges that continue the wrong turn, and
  distractors come first among the options. Relation-centric DAGs use all of their
  distractors in a seeded random order; entity-centric paths draw `max_distractors`
  (default 1: Algorithm 6 picks one) by position weights, `weighting` tail, head or uniform.
  The distractors' own edges are essential to the setting: their sentences are kept before
  any other context after the sample's own (kgcert/prompts/context.py), and a prompt with
  distractors none of whose sentences fits the budget is skipped ("no distractor fits"). A
  sample without distractor candidates gives a prompt without one (`run` refuses a spec
  whose probed prompts hold none).

Conditioning. A relation spec with `distractors: required` (or `require_distractor=True`)
states the distribution conditioned on the DAG having a Definition 2.3 distractor, in both
settings, so the two settings share their DAGs. A draw without one is refused and prompt i
draws again from the sampler with a derived seed (`redraw_seed(seed, k)` for the k-th
redraw: an independent stream, unlike sample index i+1, which is prompt i+1's draw); the
first accepted draw is used, which is exactly the conditioned distribution, and the number
of refused draws is recorded as `Provenance.rejected_prompts`. This changes the distribution
the certificate is about; the spec file says so.

A prompt is skipped (empty text, `skipped` says why) when its essential sentences do not fit
the budget, the KG has too few entities of the answer's type for the options, or (distractor
setting) no distractor sentence fits beside the essential ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kgcert.errors import InputError
from kgcert.graphview import Fact, PromptGraph, open_graph
from kgcert.graphview.lengths import SentenceLengths
from kgcert.graphview.neighbours import Grouped, RowNeighbours, merged_ids
from kgcert.prompts import context as ctx
from kgcert.prompts.distractors import Distractor
from kgcert.prompts.fewshot import examples
from kgcert.prompts.kinds import SampleDag, kind_of
from kgcert.prompts.layout import LINE_OVERHEAD, Layout
from kgcert.prompts.options import Option, OptionPools, choose_options
from kgcert.prompts.query import Query
from kgcert.prompts.record import Prompt, Provenance
from kgcert.prompts.settings import DEFAULT_SETTINGS, PromptSettings
from kgcert.prompts.tiers import engine_for
from kgcert.specs import (
    DagSample,
    EntitySampler,
    EntitySpec,
    PathSample,
    RelationSampler,
    RelationSpec,
    prepare_sampler,
    spec_hash,
)
from kgcert.specs.kind import KindName, composed_spec
from kgcert.store.graph import GraphStore
from kgcert.util.rng import sample_rng

MAX_REDRAWS = 1_000
RANDOM_OPTION_TRIES = 200
# Offered and filler facts from which tiers 2 and 3 are de-duplicated as arrays (tiers.py):
# below it the arrays' fixed costs outweigh the Python pass (same prompts either way).
ARRAY_TIERS_FROM = 1_000
# An entity's allowed facts or neighbours are kept per excluded set up to this size: a hub's
# are a new answer for nearly every prompt (the excluded types are the DAG's), and kept they
# filled gigabytes over a full-size Wikidata5m run; the graph keeps what it can reuse.
KEPT_UP_TO = 10_000


def redraw_seed(seed: int, attempt: int) -> int:
    """The sampler seed of the `attempt`-th redraw of a prompt (attempt 0 is the run seed)."""
    if attempt == 0:
        return seed
    digest = hashlib.sha256(f"kgcert/prompt-redraw/{seed}/{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


class PromptBuilder:
    """Prompt i of (spec, seed, setting) over one KG: `build(i) -> Prompt`.

    `sampler` defaults to `prepare_sampler(spec, store, cache_dir)`; `graph` to a new
    :class:`PromptGraph` (pass one to share its cache between builders of one KG).
    `settings` holds every knob (kgcert/prompts/settings.py; `settings.with_(setting=
    "distractor")` for a variation). Its `budget` bounds the whole prompt (default: 12,000
    characters).

    Its `require_distractor` (default: the spec's `distractors: required`) conditions the
    distribution on the DAG having a Definition 2.3 distractor: refused draws are redrawn
    (see the module docstring) and counted in `Provenance.rejected_prompts`.
    """

    array_tiers_from = ARRAY_TIERS_FROM

    def __init__(self, store: GraphStore, spec: RelationSpec | EntitySpec,
                 sampler: RelationSampler | EntitySampler | None = None, *,
                 settings: PromptSettings = DEFAULT_SETTINGS, seed: int = 0,
                 graph: PromptGraph | None = None, cache_dir: Path | None = None) -> None:
        if composed_spec(spec) is None:
            raise InputError(f"spec {getattr(spec, 'name', spec)!r} is not a relation or entity "
                             "spec; task specs use TaskPromptBuilder")
        if seed < 0:
            raise InputError(f"the run seed must be non-negative, got {seed}")
        self.settings = settings
        self.spec = spec
        self.store = store
        self.sampler = sampler if sampler is not None else prepare_sampler(spec, store, cache_dir)
        self.graph = graph if graph is not None else open_graph(store)
        self.seed = seed
        # Resolved from the settings once, not copies of them: the baseline never shuffles,
        # and a budget left unset is the default one.
        self.shuffle = settings.shuffle and settings.setting != "baseline"
        self.budget = settings.prompt_budget
        self.spec_kind = kind_of(spec, self.graph, self.sampler)
        self.kind: KindName = self.spec_kind.name
        self.require_distractor = (settings.require_distractor
                                   if settings.require_distractor is not None
                                   else self.spec_kind.distractors_required)
        self.spec_hash = spec_hash(spec)
        self.examples = examples(self.kind, settings.few_shot)
        self._neighbours: dict[tuple[str, str, frozenset[str]],
                               Mapping[str, Sequence[Fact]]] = {}
        self._allowed: dict[tuple[str, frozenset[str]], Sequence[Fact]] = {}
        self._emptied = self.graph.emptied
        # A character budget's line cost is the sentence's length plus the line's "- " and
        # newline (layout.py): nothing to count or cache.
        self._cost: Callable[[str], int] = (
            ctx.CharacterCost(LINE_OVERHEAD) if self.budget.counter is len
            else lru_cache(maxsize=65_536)(self._line_cost))
        self.tier_engine = engine_for(self.graph)  # arrays over snapshot rows, else Facts
        self._prepare()

    def _prepare(self) -> None:
        """What the first prompt would otherwise work out for all later ones (the graph's
        whole-KG indexes, the spec's answer sets, numpy's random module): preparation, so
        prompt i costs the same whether it comes first or later. Changes no prompt."""
        import numpy.random  # noqa: F401 (numpy imports it when first asked for a generator)

        self.graph.prepare(LINE_OVERHEAD if self.budget.counter is len else None)
        self.spec_kind.prepare()
        self.tier_engine.prepare()

    # -- drawing ------------------------------------------------------------------------------

    def build(self, index: int) -> Prompt:
        """Prompt `index`: draw its sample (redrawing when the spec conditions on a distractor)
        and render it."""
        if index < 0:
            raise InputError(f"prompt index must be non-negative, got {index}")
        sample, refused = self.draw(index)
        return self.render(sample, index=index, rejected_prompts=refused)

    def draw(self, index: int) -> tuple[DagSample | PathSample, int]:
        """Sample `index` and how many draws the spec's condition refused before it."""
        for attempt in range(MAX_REDRAWS):
            sample = self.sampler.sample(redraw_seed(self.seed, attempt), index)
            if not self.require_distractor or self._has_distractor(sample):
                return sample, attempt
        raise InputError(f"spec {self.spec.name}: no sample with a distractor in {MAX_REDRAWS} "
                         f"draws for prompt {index}; drop `distractors: required`")

    def _has_distractor(self, sample: DagSample | PathSample) -> bool:
        return self.spec_kind.has_distractor(sample)

    def correct_answers(self, sample: DagSample | PathSample) -> tuple[str, ...]:
        """Every entity that answers the sample's question (relation specs: the compiled
        answer-set query with the question's entities fixed; paths: the unique answer)."""
        return self.spec_kind.correct_answers(sample)

    # -- context pieces -----------------------------------------------------------------------

    def _allowed_facts(self, entity: str, dag: SampleDag) -> Sequence[Fact]:
        """The entity's edges the setting lets into the context (vanilla: none of the DAG's
        relationship types; the DAG's own edges are tier 1 anyway)."""
        if self.settings.setting == "distractor":
            return self.graph.adjacency(entity).facts
        key = (entity, dag.types)
        cached = self._allowed.get(key)
        if cached is None:
            cached = self.graph.adjacency(entity).allowed(dag.types)
            if len(self._allowed) > 200_000:
                self._allowed.clear()
            if len(cached) <= KEPT_UP_TO:
                self._allowed[key] = cached
        return cached

    def _neighbours_of_label(self, entity: str, label: str,
                             dag: SampleDag) -> Mapping[str, Sequence[Fact]]:
        """Neighbours of `entity` with `label` through allowed edges, with those edges."""
        excluded = dag.types if self.settings.setting != "distractor" else frozenset()
        key = (entity, label, excluded)
        cached = self._neighbours.get(key)
        if cached is None:
            cached = self.graph.adjacency(entity).neighbours(label, excluded, self.graph.label)
            if len(self._neighbours) > 200_000:
                self._neighbours.clear()
            if len(cached) <= KEPT_UP_TO:
                self._neighbours[key] = cached
        return cached

    def _distractors(self, sample: DagSample | PathSample,
                     rng: np.random.Generator) -> tuple[list[Distractor], int]:
        """The setting's distractors in order of preference, and how many candidates there
        were."""
        if self.settings.setting != "distractor":
            return [], 0
        return self.spec_kind.distractors(sample, rng, self.settings.max_distractors,
                                          self.settings.weighting)

    def _random_entities(self, label: str, rng: np.random.Generator) -> Iterator[str]:
        members = self.graph.label_members(label)
        if not members:
            return
        for _ in range(0, RANDOM_OPTION_TRIES, 20):
            batch = [members[int(i)] for i in rng.integers(len(members), size=20)]
            self.graph.preload(batch)
            yield from batch

    def _line_cost(self, text: str) -> int:
        return self.budget.count(f"- {text}\n")

    def _measured_lengths(self) -> SentenceLengths | None:
        """What gives each snapshot row's line cost without writing it: with a character
        budget, the sentence's length (kgcert/graphview/lengths.py) plus the line's "- " and
        newline."""
        if self.budget.counter is not len:
            return None
        return self.graph.sentence_lengths(LINE_OVERHEAD)

    @property
    def _floor(self) -> int:
        """What any template sentence's line costs at least: with a character budget the
        shortest template (or generic sentence) with empty names, plus the line's "- " and
        newline; other budgets give no such bound (0)."""
        if self.budget.counter is not len:
            return 0
        return self.graph.shortest_template() + LINE_OVERHEAD

    # -- rendering ----------------------------------------------------------------------------

    def render(self, sample: DagSample | PathSample, *, index: int | None = None,
               rejected_prompts: int = 0) -> Prompt:
        """The prompt for an already drawn sample (prompt `index`, default the sample's)."""
        index = sample.index if index is None else index
        graph = self.graph
        graph.begin_prompt()
        if graph.emptied != self._emptied:  # what was kept from the graph's cache goes too
            self._emptied = graph.emptied
            self._neighbours.clear()
            self._allowed.clear()
        dag = self.spec_kind.dag(sample)
        correct = self.correct_answers(sample)
        query_rng = sample_rng(self.seed, f"{self.spec_hash}/prompt/query", index)
        rng = sample_rng(self.seed, f"{self.spec_hash}/prompt/{self.settings.setting}", index)
        query = self.spec_kind.query(sample, dag, query_rng,
                                     fixed=self.settings.setting == "baseline")
        distractors, candidates = self._distractors(sample, rng)
        label = graph.label(dag.answer)
        dag_ids = list(dag.roles.values())

        # Read once, kept by hand: functools.cache made a wrapper object per prompt.
        read: list[list[Mapping[str, Sequence[Fact]]]] = []

        def neighbours() -> list[Mapping[str, Sequence[Fact]]]:
            """Each DAG node's neighbours of the answer's label: read only for related options
            (a distractor prompt's options are mostly its distractors), once."""
            if not read:
                read.append([self._neighbours_of_label(node, label, dag) for node in dag_ids])
            return read[0]

        def related() -> Sequence[str]:
            """The neighbours' ids, sorted, DAG nodes left out. Each node's are sorted
            already: sorting their concatenation merges those runs (a hub has thousands)."""
            found = neighbours()
            rows = [n for n in found if isinstance(n, RowNeighbours)]
            if (rows and len(rows) == len(found)  # over a snapshot: merged as arrays,
                    and not all(isinstance(n, Grouped) for n in rows)):  # unless all few
                return merged_ids(rows, dag_ids)
            return sorted(set().union(*(n.keys() for n in found)).difference(dag_ids))

        pools = OptionPools(distractors=[d.id for d in distractors], path=dag.path,
                            related=graph.option_pool(related),
                            random=lambda: self._random_entities(label, rng))
        options = choose_options(dag.answer, correct, pools, self.settings.options, rng,
                                 name=graph.name, label=graph.label, excluded=dag.given)

        def provenance(details: dict[str, Any] | None = None,
                       distractors: tuple[str, ...] = ()) -> Provenance:
            return self._provenance(sample, dag, query, index, rejected_prompts, correct,
                                    candidates, details, distractors)

        if len(options) < self.settings.options:
            return Prompt("", provenance(), skipped=f"only {len(options)} answer options of type "
                                            f"{label} were found, {self.settings.options} "
                                            "were asked for")

        tiers = self._tiers(sample, dag, options, distractors, neighbours, rng)
        layout = Layout(self.examples, query.text, tuple(o.name for o in options), query.notes,
                        path_query=self.spec_kind.kind.path)
        room = self.budget.limit - self.budget.count(layout.render([]))
        trimmed = ctx.trim(tiers, room, self._cost, graph.sentence, self._floor)
        correct_option = next(i for i, o in enumerate(options, 1) if o.role == "answer")
        details: dict[str, Any] = {
            "option_roles": [o.role for o in options],
            "context_offered": trimmed.offered,
            "context_kept": trimmed.kept,
        }
        if trimmed.skipped is not None:
            return Prompt("", provenance(details), options=tuple(o.name for o in options),
                          option_ids=tuple(o.id for o in options),
                          correct_option=correct_option, answer_id=dag.answer,
                          skipped=trimmed.skipped)
        lines = list(trimmed.lines)
        if self.shuffle:
            lines = ctx.shuffled(lines, rng)
        text = layout.render([line.text for line in lines])
        if not self.budget.exact:  # token counts of parts may not add up: check the whole
            marked = {f.fact_key for d in distractors for f in d.facts}

            def is_distractor(line: ctx.Line) -> bool:
                return (line.tier == ctx.OPTIONS and line.fact is not None
                        and line.fact.fact_key in marked)

            while self.budget.count(text) > self.budget.limit:
                # The last optional line goes first; distractor sentences after all others,
                # and never the last of them.
                droppable = ([i for i, line in enumerate(lines)
                              if line.tier != ctx.ESSENTIAL and not is_distractor(line)]
                             or [i for i, line in enumerate(lines) if is_distractor(line)][1:])
                if not droppable:
                    cause = (f"{ctx.NO_DISTRACTOR_FITS}: the essential context and one "
                             "distractor sentence do not fit" if any(map(is_distractor, lines))
                             else "the essential context does not fit")
                    return Prompt("", provenance(details), skipped=(
                        f"{cause} {self.budget.limit} {self.budget.unit} with the rest of "
                        "the prompt"))
                last = max(droppable, key=lambda i: trimmed.lines.index(lines[i]))
                del lines[last]
                text = layout.render([line.text for line in lines])
        kept_facts = [line.fact for line in lines if line.fact is not None]
        details["context_edges"] = list(dict.fromkeys([  # facts unpacked: no field reads
            f"{source}|{rel_type}|{target}" for source, rel_type, target, _, _ in kept_facts]))
        details["prompt_units"] = self.budget.count(text)
        in_context = {f.key for f in kept_facts} if distractors else set()
        shown = tuple(d.id for d in distractors if any(f.key in in_context for f in d.facts))
        return Prompt(text, provenance(details, shown), options=tuple(o.name for o in options),
                      option_ids=tuple(o.id for o in options), correct_option=correct_option,
                      answer_id=dag.answer)

    def _tiers(self, sample: DagSample | PathSample, dag: SampleDag, options: Sequence[Option],
               distractors: Sequence[Distractor],
               neighbours: Callable[[], Sequence[Mapping[str, Sequence[Fact]]]],
               rng: np.random.Generator) -> ctx.Tiers:
        graph = self.graph
        tiers = self.tier_engine(graph, self.settings.filler_per_entity, self._measured_lengths,
                                  self.array_tiers_from)
        tiers.essential(dag.essential)
        by_id = {d.id: d for d in distractors}
        extra_ids = [o.id for o in options if o.role == "random"]
        graph.load([*extra_ids, *by_id])
        for option in options:
            if option.role == "distractor":
                distractor = by_id[option.id]
                tiers.offer_distractor(distractor.facts,
                                       self.spec_kind.continuations(distractor, sample))
            elif option.role == "related":
                for found in neighbours():
                    facts = found.get(option.id)
                    if facts:  # most DAG nodes have none of an option: nothing to offer
                        tiers.offer(facts)
            elif option.role == "random":
                own = self._allowed_facts(option.id, dag)
                picks = sorted(int(i) for i in rng.permutation(len(own))[:2])
                tiers.offer([own[i] for i in picks])
        for distractor in distractors:  # those not among the options
            tiers.offer_distractor(distractor.facts,
                                   self.spec_kind.continuations(distractor, sample))
        involved = list(dict.fromkeys([*dag.roles.values(), *(o.id for o in options),
                                       *by_id]))
        graph.load(involved)
        return tiers.finish([self._allowed_facts(entity, dag) for entity in involved], rng)

    def _provenance(self, sample: DagSample | PathSample, dag: SampleDag, query: Query, index: int,
                    rejected_prompts: int, correct: Sequence[str], candidates: int,
                    details: dict[str, Any] | None = None,
                    distractors: tuple[str, ...] = ()) -> Provenance:
        """The prompt's provenance, `details` of its context after the rest of `extra` and
        the distractors in its context: made once, not made and then replaced."""
        extra: dict[str, Any] = {
            "sample_seed": sample.seed,
            "correct_answers": list(correct),
            "few_shot": self.settings.few_shot,
            "shuffle": self.shuffle,
            "budget": self.budget.describe(),
            "notes": list(query.notes),
        }
        if self.settings.setting == "distractor":
            extra["distractor_candidates"] = candidates
            extra.update(self.spec_kind.provenance(self.settings.weighting))
        if query.relation_aliases:
            extra["relation_aliases"] = list(query.relation_aliases)
        if details:
            extra.update(details)
        return Provenance(
            spec=self.spec.name, spec_hash=self.spec_hash, kind=self.kind, seed=self.seed,
            index=index, setting=self.settings.setting, nodes=dict(dag.roles), edges=dag.edges,
            template=query.template, aliases=dict(query.aliases),
            rejected_draws=sample.rejected, rejected_prompts=rejected_prompts,
            distractors=distractors, extra=extra)


def build_prompt(store: GraphStore, spec: RelationSpec | EntitySpec,
                 sample: DagSample | PathSample, *,
                 settings: PromptSettings = DEFAULT_SETTINGS,
                 sampler: RelationSampler | EntitySampler | None = None,
                 graph: PromptGraph | None = None) -> Prompt:
    """The prompt for one drawn sample (run seed and index taken from the sample). For many
    prompts, keep one :class:`PromptBuilder` (it caches the graph reads)."""
    builder = PromptBuilder(store, spec, sampler, settings=settings, seed=sample.seed,
                            graph=graph)
    return builder.render(sample)
