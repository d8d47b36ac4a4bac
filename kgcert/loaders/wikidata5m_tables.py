"""Wikidata5m's kept edges and their nodes as tables that make their rows one part at a time.

`pair_sentences` picks each entity pair's sentences (wikidata5m.supporting_sentences) as pool
ids; `ColumnNodes` and `ColumnEdges` act as NodeTable and EdgeTable (store/kg_data.py) for the
writer: `parts()` builds the Python rows of one part from the columns, so the whole KG never
exists as Python objects. `rows` and `sources`/`targets`/`properties` build everything, for
small KGs and tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from kgcert.loaders.wikidata5m_columns import Matched
from kgcert.loading import progress as loadprogress
from kgcert.store.kg_data import EDGE_PART, NODE_PART, EdgePart

PAIR_CHUNK = 100_000  # pairs whose sentences are picked at a time
# Edges per part where they carry sentences (about 1 KB each as Python rows, and again as
# the JSON the server parses): a part of EDGE_PART such edges held 200 MB or more in each.
SENTENCE_EDGE_PART = 50_000


@dataclass
class PairSentences:
    pair_of_fact: np.ndarray  # each fact's pair (its two entities, either order)
    supported: np.ndarray  # bool per pair: some sentence mentions one end in the other's text
    offsets: np.ndarray  # pair p's pool ids are ids[offsets[p]:offsets[p + 1]]
    ids: np.ndarray


def _spans(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions start..start+length-1 of every span, one after the other."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(lengths) - lengths
    return np.repeat(starts - before, lengths) + np.arange(total, dtype=np.int64)


def pair_sentences(heads: np.ndarray, tails: np.ndarray, entities: int, matched: Matched,
                   cap: int, phase: str) -> PairSentences:
    """Sentences of each pair, picked at its first fact (whose direction orders them): the
    head's sentences mentioning the tail, then the tail's mentioning the head, distinct,
    then the two first sentences, at most `cap` (supporting_sentences)."""
    width = max(entities, 1)
    h, t = heads.astype(np.int64), tails.astype(np.int64)
    _, first, pair_of_fact = np.unique(np.minimum(h, t) * width + np.maximum(h, t),
                                       return_index=True, return_inverse=True)
    h0, t0 = h[first], t[first]
    keys = matched.mention_keys
    a0, a1 = (np.searchsorted(keys, h0 * width + t0, side) for side in ("left", "right"))
    b0, b1 = (np.searchsorted(keys, t0 * width + h0, side) for side in ("left", "right"))
    supported = (a1 > a0) | (b1 > b0)
    lengths = np.zeros(len(first), dtype=np.int64)
    picked: list[np.ndarray] = []
    chosen = np.flatnonzero(supported)
    loadprogress.tick(phase, 0, len(chosen), "pairs")
    for start in range(0, len(chosen), PAIR_CHUNK):
        pairs = chosen[start:start + PAIR_CHUNK]
        counts = np.stack([a1[pairs] - a0[pairs], b1[pairs] - b0[pairs]], axis=1).ravel()
        spans = np.stack([a0[pairs], b0[pairs]], axis=1).ravel()
        ids = matched.mention_pool[_spans(spans, counts)]
        texts = matched.pool.take(pa.array(ids)).to_pylist()
        firsts = [_pool_texts(matched, matched.first[ends[pairs]]) for ends in (h0, t0)]
        firsts_ids = [matched.first[ends[pairs]].tolist() for ends in (h0, t0)]
        per_pair = counts.reshape(-1, 2).sum(axis=1).tolist()
        ids_list = ids.tolist()
        out: list[int] = []
        at = 0
        for j, count in enumerate(per_pair):
            support: list[str] = []
            support_ids: list[int] = []
            for k in range(at, at + count):
                if texts[k] not in support:
                    support.append(texts[k])
                    support_ids.append(ids_list[k])
            at += count
            extra: list[str] = []
            extra_ids: list[int] = []
            for sentence, pool_id in ((firsts[0][j], firsts_ids[0][j]),
                                      (firsts[1][j], firsts_ids[1][j])):
                if sentence and sentence not in support and sentence not in extra:
                    extra.append(sentence)
                    extra_ids.append(pool_id)
            kept = (support_ids[: max(0, cap - len(extra))] + extra_ids)[:cap]
            lengths[pairs[j]] = len(kept)
            out.extend(kept)
        picked.append(np.array(out, dtype=np.int64))
        loadprogress.tick(phase, min(start + PAIR_CHUNK, len(chosen)), len(chosen), "pairs")
    offsets = np.zeros(len(first) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    ids_all = np.concatenate(picked) if picked else np.zeros(0, dtype=np.int64)
    return PairSentences(pair_of_fact, supported, offsets, ids_all)


def keep_paired_sentences(matched: Matched, pairs: PairSentences) -> None:
    """Once pairs are picked, the edges read only their sentences: the pool keeps those
    alone (renumbered in `pairs.ids`) and the mention rows are let go of, so that less is
    held beside the server's heap while the KG is written."""
    used, pairs.ids = np.unique(pairs.ids, return_inverse=True)
    matched.pool = matched.pool.take(pa.array(used))
    empty = np.zeros(0, dtype=np.int64)
    matched.first = matched.mention_keys = matched.mention_pool = empty


def _pool_texts(matched: Matched, ids: np.ndarray) -> list[str]:
    """Pool sentences by id, "" for -1 (an entity without a text)."""
    found = matched.pool.take(pa.array(np.maximum(ids, 0))).to_pylist()
    return [text if pool_id >= 0 else "" for text, pool_id in zip(found, ids.tolist(),
                                                                   strict=True)]


@dataclass
class Columns:
    """What the tables read their rows from."""

    entities: pa.Array  # code -> QID
    aliases: pa.Array  # code -> list of aliases, null where none
    label: str
    texts: pa.Array | None  # code -> raw text; None: no text file
    matched: Matched | None
    heads: np.ndarray  # kept facts, in order
    tails: np.ndarray
    node_codes: np.ndarray  # entity codes in the order nodes are written
    node_position: np.ndarray  # code -> position among the nodes (-1: not a node)
    pairs: PairSentences | None  # with sentences on the edges
    fact_of_kept: np.ndarray  # index of each kept fact among all facts (for its pair)


class ColumnNodes:
    def __init__(self, columns: Columns) -> None:
        self.columns = columns
        self.label = columns.label
        self.released = False

    def __len__(self) -> int:
        return len(self.columns.node_codes)

    def release(self) -> None:
        """Let go of what only the nodes read (raw texts, aliases, names: 80 MB at scale
        0.1, the largest columns) once they are written, so the edges are written beside
        less; the edges' columns (entities, pairs, sentence pool) stay."""
        empty = pa.array([], pa.string())
        self.columns.texts = None
        self.columns.aliases = pa.array([], pa.list_(pa.string()))
        if self.columns.matched is not None:
            self.columns.matched.names = self.columns.matched.folded = empty
        self.released = True

    def parts(self, size: int = NODE_PART) -> Iterator[list[dict[str, Any]]]:
        if self.released:
            raise RuntimeError("these nodes' columns were released once they were written")
        for start in range(0, len(self), size):
            yield self._rows(self.columns.node_codes[start:start + size])

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [row for part in self.parts() for row in part]

    def _rows(self, codes: np.ndarray) -> list[dict[str, Any]]:
        c = self.columns
        index = pa.array(codes)
        qids = c.entities.take(index).to_pylist()
        aliases = c.aliases.take(index).to_pylist()
        if c.matched is None or c.texts is None:
            names: list[str | None] = [None] * len(qids)
            texts: list[str | None] = [None] * len(qids)
        else:
            names = c.matched.names.take(index).to_pylist()
            folded = c.matched.folded.take(index).to_pylist()
            raw = c.texts.take(index).to_pylist()
            texts = [f if f is not None else r for f, r in zip(folded, raw, strict=True)]
        rows = []
        for qid, found, name, text in zip(qids, aliases, names, texts, strict=True):
            found = found or [qid]
            row: dict[str, Any] = {"id": qid, "name": name or found[0], "aliases": found,
                                   "type": c.label}
            if text:
                row["description"] = text
            rows.append(row)
        return rows


class ColumnEdges:
    def __init__(self, rel_type: str, kept: np.ndarray, columns: Columns) -> None:
        self.rel_type = rel_type
        self.kept = kept  # positions among the kept facts, in order
        self.columns = columns

    def __len__(self) -> int:
        return len(self.kept)

    def parts(self, size: int | None = None) -> Iterator[EdgePart]:
        if size is None:
            size = EDGE_PART if self.columns.pairs is None else SENTENCE_EDGE_PART
        for start in range(0, len(self), size):
            yield self._part(self.kept[start:start + size])

    def _part(self, kept: np.ndarray) -> EdgePart:
        c = self.columns
        heads, tails = c.heads[kept], c.tails[kept]
        return EdgePart(
            c.entities.take(pa.array(heads)).to_pylist(),
            c.entities.take(pa.array(tails)).to_pylist(),
            None if c.pairs is None else self._sentences(kept),
            c.node_position[heads], c.node_position[tails],
        )

    def _sentences(self, kept: np.ndarray) -> list[dict[str, Any]]:
        c = self.columns
        assert c.pairs is not None and c.matched is not None
        pairs = c.pairs.pair_of_fact[c.fact_of_kept[kept]]
        starts, stops = c.pairs.offsets[pairs], c.pairs.offsets[pairs + 1]
        counts = stops - starts
        ids = c.pairs.ids[_spans(starts, counts)]
        texts = c.matched.pool.take(pa.array(ids)).to_pylist()
        out: list[dict[str, Any]] = []
        at = 0
        for count in counts.tolist():
            out.append({"sentences": texts[at:at + count]} if count else {})
            at += count
        return out

    def _all(self) -> EdgePart:
        return self._part(self.kept)

    @property
    def sources(self) -> list[str]:
        return self._all().sources

    @property
    def targets(self) -> list[str]:
        return self._all().targets

    @property
    def properties(self) -> list[dict[str, Any]] | None:
        return self._all().properties
