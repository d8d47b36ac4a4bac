"""The snapshot backend of the prompt graph: the whole KG's arrays, no read per prompt.

Edge lists are rows of the snapshot's arrays (kgcert/graphview/rows.py), names, labels and
aliases come from its columns, answer sets from kgcert/graphview/answers.py and sentence
lengths from kgcert/graphview/lengths.py: the same facts the per-entity reads give
(kgcert/graphview/reads.py), so the same prompts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from kgcert.errors import InputError
from kgcert.graphview.answers import AnswerFinder
from kgcert.graphview.lengths import SentenceLengths
from kgcert.graphview.packed_texts import item_getter
from kgcert.graphview.rows import RowIndex
from kgcert.graphview.snapshot import GraphSnapshot
from kgcert.graphview.view import AnswerSets, EntityInfo, PromptGraph, entity_label
from kgcert.specs.compile import CompiledRelationSpec
from kgcert.store.graph import GraphStore

# A snapshot entity's edges are a view of its arrays until asked more (some 16 bytes an edge
# over a full-size PrimeKG run): this bound holds all of PrimeKG's (16.2M, both ends), since
# emptying the cache every hundred hub prompts slows hub-heavy specs (gene_target).
SNAPSHOT_CACHE_EDGES = 24_000_000
# Edges with their own sentences become Facts holding those texts (a few hundred bytes each,
# as the per-entity reads' do): the reads' bound, so a full-size Wikidata5m run's cache stays
# within about a gigabyte.
SENTENCE_CACHE_EDGES = 2_000_000


class SnapshotGraph(PromptGraph):
    """A prompt graph over a KG snapshot (its relations still read once from the server)."""

    default_cache_edges = SNAPSHOT_CACHE_EDGES

    def __init__(self, store: GraphStore, snapshot: GraphSnapshot,
                 max_cached_edges: int | None = None) -> None:
        if max_cached_edges is None and snapshot.sentences is not None:
            max_cached_edges = SENTENCE_CACHE_EDGES
        super().__init__(store, max_cached_edges)
        self.snapshot = snapshot
        # The label prompts give each distinct label set of the snapshot, worked out once.
        self._set_labels = [entity_label(labels) for labels in snapshot.labels]
        # Each entity's label set as a Python int when indexed (no numpy scalar per lookup).
        self._set_of = np.ascontiguousarray(snapshot.label_set).data
        self._rows = RowIndex.of(snapshot, self._set_labels)
        self._name_at, self._aliases_at = (item_getter(snapshot.names),
                                           item_getter(snapshot.aliases))
        self._lengths: dict[int, SentenceLengths] = {}

    def _load(self, missing: list[str]) -> None:
        """The same facts the two edge reads give, as rows of the snapshot's arrays."""
        for entity in missing:
            at = self.snapshot.position(entity)
            if at is None:
                raise InputError(f"entities not in the KG: {entity}")
            self._keep(entity, self._rows.adjacency(entity, at))

    def _local_info(self, entity_id: str) -> EntityInfo | None:
        snapshot = self.snapshot
        at = snapshot.position(entity_id)
        if at is None:
            return None
        name = self._name_at(at)
        shown = name if name is not None else entity_id
        info = EntityInfo(entity_id, shown, self._set_labels[self._set_of[at]],
                          self._aliases_at(at) or (shown,))
        self._entities[entity_id] = info
        return info

    def _entities_kept(self) -> dict[str, EntityInfo]:
        return {}  # the snapshot gives them again without a read (they were all kept)

    def stored_names(self, ids: Sequence[str]) -> dict[str, str]:
        snapshot, found = self.snapshot, {}
        for entity in ids:
            at = snapshot.position(entity)
            name = None if at is None else snapshot.names[at]
            if name:
                found[entity] = name
        return found

    def label_members(self, label: str) -> list[str]:
        if label not in self._label_members:  # its ids are sorted: the members come out sorted
            snapshot = self.snapshot
            sets = [i for i, labels in enumerate(snapshot.labels) if label in labels]
            self._label_members[label] = snapshot.ids[np.isin(snapshot.label_set, sets)].tolist()
        return self._label_members[label]

    def answer_sets(self, compiled: CompiledRelationSpec) -> AnswerSets:
        return AnswerFinder(self.snapshot, compiled)

    def option_pool(self, listing: Callable[[], Sequence[str]]) -> Callable[[], Sequence[str]]:
        """Only when asked: a snapshot names only what is shown, without a read."""
        return listing

    @property
    def row_index(self) -> RowIndex:
        return self._rows

    def prepare(self, line_overhead: int | None = None) -> None:
        """The snapshot's whole-KG indexes, built when first asked (a first prompt at full
        PrimeKG size paid some 0.4 s for them): positions of ids, per-edge fact keys, and with
        a character budget every edge's line cost."""
        super().prepare(line_overhead)
        snapshot = self.snapshot
        snapshot.position("")
        snapshot.display_or_none  # noqa: B018 (a cached property: computed here, once)
        if len(snapshot.ids) and len(snapshot.types):
            snapshot.edges_of_type(0, 0)  # the per-edge type ranks its searches use
        if self._rows.keys_fit:
            self._rows.edge_keys  # noqa: B018
        lengths = None if line_overhead is None else self.sentence_lengths(line_overhead)
        if lengths is not None:
            lengths.prepare()

    def sentence_lengths(self, line_overhead: int) -> SentenceLengths | None:
        """None where edges carry their own sentences (the lengths are of template ones)."""
        if self._rows.carries_sentences:
            return None
        found = self._lengths.get(line_overhead)
        if found is None:
            found = self._lengths[line_overhead] = SentenceLengths(self, self._rows,
                                                                   line_overhead)
        return found
