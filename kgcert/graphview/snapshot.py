"""The KG's entities and edges as arrays in this process, for prompts without per-prompt reads.

Prompt i touches the edges of its DAG's entities and of its options, and at full PrimeKG size
the options are mostly entities no earlier prompt touched: read one by one over Bolt, their
edge lists cost about 0.1 s per prompt. A run builds thousands of prompts over one KG, so it
reads the whole KG once instead: the entities (id, name, labels) in one query, then every
edge in pages of source ids, grouped per (source, type) on the server (`collect` is cheaper
to transfer than one row per edge). The arrays take about 12 bytes per edge,
and are kept on disk keyed by the KG's fingerprint (like the samplers' edge tables), so the
next run reads no edge at all. Entities carry their aliases too, so a prompt's question needs no
read either.

Each entity's edges, both ways and in fact order (the order prompts list them in), are sorted
once for the whole KG when it is read from the server and stored with it: at full PrimeKG size
one sort of 16M rows where each prompt sorted the edge lists of the entities it met.

A KG whose edges carry their own sentences (Wikidata5m with texts) keeps them apart from the
arrays (kgcert/graphview/edge_sentences.py): a pool of text on disk, mapped, and numbers per
edge. Only such a KG that stores one edge twice with the same ends, type and display gets no
snapshot (`pull` returns None): its two edges' sentences could differ, which the arrays'
one-edge-per-fact order does not tell apart.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from kgcert.graphview.edge_sentences import EdgeSentences, SentenceWriter
from kgcert.graphview.edge_sentences import load as load_sentences
from kgcert.graphview.packed_texts import aliases_of, names_of
from kgcert.loading.manifest import read_manifest
from kgcert.store.cypher import named
from kgcert.store.graph import GraphStore
from kgcert.util.atomicfile import replacing

STATEMENTS = "prompts"
PAGE_SOURCES = 5_000  # source entities per edge query: bounds each query's rows on the server
FORMAT = 3  # bump when the file's content changes


@dataclass(frozen=True)
class GraphSnapshot:
    """Entities sorted by id; edges as codes, sorted by source then kept in that order.

    `out_start[i]:out_start[i+1]` are entity i's outgoing edges; `in_order[in_start[i]:
    in_start[i+1]]` are the positions of its incoming edges."""

    ids: np.ndarray  # unicode, sorted
    names: Sequence[str | None]  # a tuple, or read from a file PackedNames (packed_texts.py)
    aliases: Sequence[tuple[str, ...]]  # per entity the non-empty ones, in stored order
    labels: tuple[tuple[str, ...], ...]  # per distinct label set, see `label_set`
    label_set: np.ndarray  # int32 per entity: index into `labels`
    types: tuple[str, ...]
    displays: tuple[str, ...]
    source: np.ndarray  # int32 entity positions
    target: np.ndarray  # int32
    type: np.ndarray  # int32 into `types`
    display: np.ndarray  # int32 into `displays`, -1: none
    out_start: np.ndarray  # int64, len(ids) + 1
    in_order: np.ndarray  # int64 edge positions sorted by target
    in_start: np.ndarray  # int64, len(ids) + 1
    fact_edges: np.ndarray  # edge positions: per entity its edges in fact order, see `fact_order`
    fact_start: np.ndarray  # int64, len(ids) + 1: entity i's are fact_edges[fact_start[i]:...]
    sentences: EdgeSentences | None = None  # the edges' own, where they carry some

    @cached_property
    def id_list(self) -> list[str]:
        """`ids` as Python strings: indexing it is cheaper than the array."""
        return self.ids.tolist()

    @cached_property
    def display_or_none(self) -> tuple[str | None, ...]:
        """`displays` with None after the last, so display code -1 (none) indexes None."""
        return (*self.displays, None)

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {entity: at for at, entity in enumerate(self.id_list)}

    def position(self, entity: str) -> int | None:
        return self._positions.get(entity)

    def edges_of(self, at: int) -> np.ndarray:
        """Entity `at`'s edge positions in fact order (see `fact_order`)."""
        return self.fact_edges[self.fact_start[at]:self.fact_start[at + 1]]

    @cached_property
    def type_ranks(self) -> np.ndarray:
        """Per type code, the rank of its name: the order of `fact_order`."""
        return ranks(self.types)

    @cached_property
    def _fact_type_ranks(self) -> np.ndarray:
        """Per `fact_edges` entry, its type's rank (ascending within each entity's run)."""
        small = np.int16 if len(self.types) < 2 ** 15 else np.int64
        return self.type_ranks.astype(small)[self.type[self.fact_edges]]

    def edges_of_type(self, at: int, code: int) -> np.ndarray:
        """Entity `at`'s edges of type `code`, in fact order: a run of `edges_of(at)` found by
        binary search, where a comparison would gather the type of every edge of a hub."""
        low, high = self.type_run(at, code)
        start = self.fact_start[at]
        return self.fact_edges[start + low:start + high]

    def type_run(self, at: int, code: int) -> tuple[int, int]:
        """Where entity `at`'s edges of type `code` start and end in `edges_of(at)`."""
        start, end = self.fact_start[at], self.fact_start[at + 1]
        here = self._fact_type_ranks[start:end]
        rank = here.dtype.type(self.type_ranks[code])  # else numpy casts all of `here` to it
        # The array's own method: np.searchsorted's Python wrapper cost more than the search.
        return int(here.searchsorted(rank, "left")), int(here.searchsorted(rank, "right"))

    def __len__(self) -> int:
        return len(self.source)


def pull(store: GraphStore, cache_dir: Path | None = None) -> GraphSnapshot | None:
    """The KG's snapshot: from `cache_dir` when a run already stored it for this KG's
    fingerprint, else read from the server (and stored there). None for a KG whose edges
    carry their own sentences and one edge is stored twice (see the module docstring)."""
    path = _path(store, cache_dir)
    if path is not None and path.exists():
        try:
            return _read(path)
        except (OSError, ValueError, KeyError):
            pass  # a damaged file is read again from the server, never trusted
    if not store.query(named(STATEMENTS, "any_edge_sentences")):
        snapshot = _read_server(store, None)
    elif path is None:
        snapshot = _read_server(store, SentenceWriter(None))
    else:  # the pool is written beside the arrays' file, in a folder renamed when complete
        path.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=".sentences-", dir=path.parent))
        try:
            snapshot = _read_server(store, SentenceWriter(folder))
            if snapshot is not None and snapshot.sentences is not None:
                snapshot.sentences.save(folder)
                final = _sentences_folder(path)
                shutil.rmtree(final, ignore_errors=True)
                folder.rename(final)  # the mapped pool stays mapped under its new name
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if snapshot is not None and path is not None:
        _write(path, snapshot)
    return snapshot


def _sentences_folder(path: Path) -> Path:
    return path.with_name(path.stem + "-sentences")


def _path(store: GraphStore, cache_dir: Path | None) -> Path | None:
    manifest = read_manifest(store)
    if cache_dir is None or manifest is None or manifest.status != "complete":
        return None
    digest = hashlib.sha256(f"{manifest.fingerprint}/{FORMAT}".encode()).hexdigest()[:24]
    return cache_dir / manifest.fingerprint[:24] / f"prompt-graph-{digest}.npz"


def _read_server(store: GraphStore, writer: SentenceWriter | None) -> GraphSnapshot | None:
    """The snapshot read over Bolt; with `writer`, the edges' own sentences into it."""
    entities = sorted((str(node_id), name, tuple(sorted(str(x) for x in labels or ())),
                       tuple(str(a) for a in aliases or () if a))
                      for node_id, name, labels, aliases
                      in store.rows(named(STATEMENTS, "all_entities")))
    ids = np.array([e[0] for e in entities], dtype=str)
    label_sets: dict[tuple[str, ...], int] = {}
    label_set = np.array([label_sets.setdefault(e[2], len(label_sets)) for e in entities],
                         dtype=np.int32)
    names = tuple(None if e[1] is None else str(e[1]) for e in entities)
    aliases = tuple(e[3] for e in entities)
    del entities
    types: dict[str, int] = {}
    displays: dict[str, int] = {}
    sources: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    type_codes: list[np.ndarray] = []
    display_codes: list[np.ndarray] = []
    cypher = named(STATEMENTS, "edge_groups" if writer is None else "edge_sentence_groups")
    for low, high in _pages(ids):
        page_sources: list[str] = []
        page_targets: list[str] = []
        page_types: list[int] = []
        page_displays: list[int] = []
        if writer is not None:
            for source, edges in store.rows(cypher, low=low, high=high):
                page_sources.extend([str(source)] * len(edges))
                for rel_type, target, display, sentences in edges:
                    page_types.append(types.setdefault(str(rel_type), len(types)))
                    page_targets.append(str(target))
                    page_displays.append(-1 if display is None else
                                         displays.setdefault(str(display), len(displays)))
                    writer.add(sentences)
            writer.end_page()
        else:
            for source, rel_type, edges, with_sentences in store.rows(cypher, low=low,
                                                                      high=high):
                if with_sentences:
                    return None  # sentences written since the check: the per-entity reads
                code = types.setdefault(str(rel_type), len(types))
                page_sources.extend([str(source)] * len(edges))
                for target, display in edges:
                    page_targets.append(str(target))
                    page_displays.append(-1 if display is None else
                                         displays.setdefault(str(display), len(displays)))
                page_types.extend([code] * len(edges))
        sources.append(_positions(ids, page_sources))
        targets.append(_positions(ids, page_targets))
        type_codes.append(np.array(page_types, dtype=np.int32))
        display_codes.append(np.array(page_displays, dtype=np.int32))
    source = np.concatenate(sources) if sources else np.zeros(0, dtype=np.int32)
    order = np.argsort(source, kind="stable")
    source = source[order]
    target = (np.concatenate(targets) if targets else np.zeros(0, dtype=np.int32))[order]
    type_ = (np.concatenate(type_codes) if type_codes else np.zeros(0, dtype=np.int32))[order]
    display = (np.concatenate(display_codes) if display_codes
               else np.zeros(0, dtype=np.int32))[order]
    sentences = writer.finish().reordered(order) if writer is not None else None
    fact_edges, fact_start = fact_order(source, target, type_, display, tuple(types),
                                        tuple(displays), len(ids))
    if sentences is not None and len(fact_edges) != len(source) + np.count_nonzero(
            source != target):
        return None  # an edge stored twice: its sentences could tell the two apart
    return _indexed(ids, names, aliases, tuple(label_sets), label_set, tuple(types),
                    tuple(displays), source, target, type_, display, fact_edges, fact_start,
                    sentences)


def ranks(texts: tuple[str, ...]) -> np.ndarray:
    """Per text, its rank among `texts` sorted."""
    rank = np.zeros(len(texts), dtype=np.int64)
    rank[sorted(range(len(texts)), key=texts.__getitem__)] = np.arange(len(texts))
    return rank


def in_sorted(values: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Whether each value is in `ordered` (sorted, not empty): a binary search each."""
    found = np.searchsorted(ordered, values)
    np.minimum(found, len(ordered) - 1, out=found)
    return ordered[found] == values


def fact_order(source: np.ndarray, target: np.ndarray, type_: np.ndarray,
               display: np.ndarray, types: tuple[str, ...], displays: tuple[str, ...],
               size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per entity, its edges both ways (a loop once, an edge stored twice once) in fact order:
    by type name, source id, target id, shown display (entity positions follow the sorted
    ids). The edge positions, grouped by entity, and where each entity's begin."""
    incoming = np.flatnonzero(source != target)  # a loop is once, among outgoing
    edges = np.concatenate([np.arange(len(source), dtype=np.int64), incoming])
    owner = np.concatenate([source, target[incoming]])
    del incoming
    ends = source[edges], target[edges], type_[edges], display[edges]
    order = np.lexsort((ends[3], ranks(("", *displays))[ends[3] + 1], ends[1], ends[0],
                        ranks(types)[ends[2]], owner))
    edges, owner = edges[order], owner[order]
    distinct = np.ones(len(order), dtype=bool)
    if len(order):
        s, t, ty, d = (end[order] for end in ends)
        distinct[1:] = ((owner[1:] != owner[:-1]) | (s[1:] != s[:-1]) | (t[1:] != t[:-1])
                        | (ty[1:] != ty[:-1]) | (d[1:] != d[:-1]))
    del order, ends
    edges, owner = edges[distinct], owner[distinct]
    start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=size), out=start[1:])
    dtype = np.int32 if len(source) < 2 ** 31 else np.int64
    return edges.astype(dtype), start


def _indexed(ids: np.ndarray, names: Sequence[str | None],
             aliases: Sequence[tuple[str, ...]], labels: tuple[tuple[str, ...], ...],
             label_set: np.ndarray, types: tuple[str, ...], displays: tuple[str, ...],
             source: np.ndarray, target: np.ndarray, type_: np.ndarray,
             display: np.ndarray, fact_edges: np.ndarray, fact_start: np.ndarray,
             sentences: EdgeSentences | None = None) -> GraphSnapshot:
    size = len(ids)
    out_start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(source, minlength=size), out=out_start[1:])
    in_start = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(target, minlength=size), out=in_start[1:])
    in_order = np.argsort(target, kind="stable").astype(np.int64)
    return GraphSnapshot(ids, names, aliases, labels, label_set, types, displays, source, target,
                         type_, display, out_start, in_order, in_start, fact_edges, fact_start,
                         sentences)


def _pages(ids: np.ndarray) -> list[tuple[str, str]]:
    """[low, high] id ranges of PAGE_SOURCES entities; one range when an id is outside the
    part of Unicode where the server orders strings as numpy does (see specs/edge_tables.py)."""
    if not len(ids):
        return []
    if np.ascontiguousarray(ids).view(np.uint32).max() >= 0xE000:
        return [(str(ids[0]), str(ids[-1]))]
    return [(str(ids[start]), str(ids[min(start + PAGE_SOURCES, len(ids)) - 1]))
            for start in range(0, len(ids), PAGE_SOURCES)]


def _positions(ids: np.ndarray, wanted: list[str]) -> np.ndarray:
    if not wanted:
        return np.zeros(0, dtype=np.int32)
    found = np.array(wanted, dtype=str)
    at = np.searchsorted(ids, found)
    if (at >= len(ids)).any() or (ids[np.minimum(at, len(ids) - 1)] != found).any():
        raise RuntimeError("an edge ends at an entity the entity read did not return")
    return at.astype(np.int32)


def _write(path: Path, snapshot: GraphSnapshot) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, "wb") as out:  # never a half-written file in its place
        np.savez(out, ids=snapshot.ids,
                 names_utf8=_utf8(_joined(snapshot.names)),
                 named=np.array([n is not None for n in snapshot.names], dtype=bool),
                 aliases_utf8=_utf8(_joined("\x01".join(a) for a in snapshot.aliases)),
                 labels_utf8=_utf8(_joined("\x01".join(s) for s in snapshot.labels)),
                 label_set=snapshot.label_set, types_utf8=_utf8(_joined(snapshot.types)),
                 displays_utf8=_utf8(_joined(snapshot.displays)), source=snapshot.source,
                 target=snapshot.target, type=snapshot.type, display=snapshot.display,
                 fact_edges=snapshot.fact_edges, fact_start=snapshot.fact_start,
                 with_sentences=np.array(snapshot.sentences is not None))


def _joined(texts: object) -> str:
    return "\x00".join("" if t is None else str(t) for t in texts)  # type: ignore[attr-defined]


def _utf8(text: str) -> np.ndarray:
    """`text` as UTF-8 bytes: a numpy string is UCS-4, four bytes a character, and the joined
    names and aliases of a full-size Wikidata5m are hundreds of millions of characters."""
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


def _split(data: Any, key: str, count: int) -> list[str]:
    """The texts stored joined under `key`: as UTF-8 bytes (`key`_utf8), decoded from the
    array's own buffer, or in a file written before them as one UCS-4 string."""
    if not count:
        return []
    if f"{key}_utf8" in data.files:
        return str(memoryview(data[f"{key}_utf8"]), "utf-8", "surrogatepass").split("\x00")
    return str(data[key]).split("\x00")


def _read(path: Path) -> GraphSnapshot:
    with np.load(path, allow_pickle=False) as data:
        ids, label_set, type_, display = (data["ids"], data["label_set"], data["type"],
                                          data["display"])
        names: Sequence[str | None]
        aliases: Sequence[tuple[str, ...]]
        if "names_utf8" in data.files:  # kept as UTF-8, decoded per entity when asked for
            names = names_of(data["names_utf8"], data["named"])
            aliases = aliases_of(data["aliases_utf8"], len(ids))
        else:  # a file written before the texts were UTF-8
            names = tuple(n if has else None for n, has in
                          zip(_split(data, "names", len(ids)), data["named"], strict=True))
            aliases = tuple(tuple(a.split("\x01")) if a else ()
                            for a in _split(data, "aliases", len(ids)))
        labels = tuple(tuple(s.split("\x01")) if s else () for s in
                       _split(data, "labels", int(label_set.max()) + 1 if len(ids) else 0))
        types = _split(data, "types", int(type_.max()) + 1 if len(type_) else 0)
        displays = _split(data, "displays", int(display.max()) + 1 if len(display) else 0)
        own = ("with_sentences" in data.files and bool(data["with_sentences"]))
        return _indexed(ids, names, aliases, labels, label_set, tuple(types), tuple(displays),
                        data["source"], data["target"], type_, display, data["fact_edges"],
                        data["fact_start"],
                        load_sentences(_sentences_folder(path)) if own else None)
