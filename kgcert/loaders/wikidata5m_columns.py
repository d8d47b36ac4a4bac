"""Wikidata5m's files read into columns: entities as integer codes, strings in Arrow arrays.

The whole Wikidata5m has 20.6M triples and 4.6M entities with an abstract each; held as Python
objects (a tuple per triple, a list of aliases and an EntityText per entity) that was about
12 GB. Here every per-triple and per-entity value lives in numpy or Arrow arrays, and Python
objects are made for one block of lines or one chunk of entities at a time:

- `read_triples`: the distinct kept triples, in the order of their first line, as int32
  codes into the entity and relation dictionaries (Arrow string arrays).
- `read_aliases`, `read_texts_column`: each entity's aliases (Arrow list of strings) and first
  text, by code; null where the files have none.
- `match_texts`: the text preprocessing of wikidata5m_text.entity_text, entity by entity in
  chunks, kept as columns: each entity's name and folded text, and a pool of the sentences
  later steps read (each entity's first sentence, then those mentioning a neighbour), with
  one row (entity, neighbour, pool id) per mention.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kgcert.loaders import wikidata5m_text as text_steps
from kgcert.loaders.wikidata5m_text import MATCHING, EntityText, _Inputs, entity_text
from kgcert.loaders.wikidata_common import read_tab_lines, word_key
from kgcert.loading import progress as loadprogress
from kgcert.store.kg_data import Problems
from kgcert.util.parts import in_parts

BLOCK = 1 << 18  # lines turned into Arrow arrays at a time
ENTITY_CHUNK = 20_000  # entities whose texts are matched at a time
TRIPLE_COLUMNS = ("head entity", "relation", "tail entity")
TRIPLE_KINDS = ("key", "type", "key")


@dataclass
class Triples:
    """Distinct kept triples as codes, in the order of their first line."""

    entities: pa.Array  # code -> QID
    relations: pa.Array  # code -> PID
    heads: np.ndarray  # int32 codes
    rels: np.ndarray
    tails: np.ndarray
    dropped: Counter[str]
    duplicates: int


def _blocks(rows: Iterator[tuple[int, list[str]]], width: int
            ) -> Iterator[list[list[str]]]:
    """Columns of `width` fields, BLOCK lines at a time (one append a line)."""
    for block in in_parts((fields for _, fields in rows), BLOCK):
        yield _columns(block, width)


def _columns(block: list[list[str]], width: int) -> list[list[str]]:
    columns = [[fields[i] for fields in block] for i in range(width)]
    block.clear()
    return columns


def read_triples(paths: Sequence[Path], drop: set[str], problems: Problems,
                 strict: bool) -> Triples:
    """Each block of lines leaves only its kept triples, as Arrow strings (relations
    dictionary-encoded); all are coded once the entities are known."""
    drop_set = pa.array(sorted(drop), pa.string())
    heads: list[pa.Array] = []
    rels: list[pa.DictionaryArray] = []
    tails: list[pa.Array] = []
    dropped: Counter[str] = Counter()
    for path in paths:
        lines = read_tab_lines(path, TRIPLE_COLUMNS, problems, strict=strict, kinds=TRIPLE_KINDS)
        for block in _blocks(lines, 3):
            head, rel, tail = (pa.array(column, pa.string()) for column in block)
            block.clear()
            if drop:
                is_dropped = pc.is_in(rel, value_set=drop_set)
                for row in pc.value_counts(pc.filter(rel, is_dropped)).to_pylist():
                    dropped[row["values"]] += row["counts"]
                keep = pc.invert(is_dropped)
                head, rel, tail = (pc.filter(c, keep) for c in (head, rel, tail))
            heads.append(head)
            rels.append(pc.dictionary_encode(rel))
            tails.append(tail)
    entities = pc.unique(pa.chunked_array(heads + tails, pa.string()))
    relations = pc.unique(pa.chunked_array([r.dictionary for r in rels], pa.string()))
    h = _coded_chunks(heads, entities)
    t = _coded_chunks(tails, entities)
    r_parts = []
    while rels:
        rel_block = rels.pop(0)
        mapping = _codes(pa.chunked_array([rel_block.dictionary]), relations)
        r_parts.append(mapping[rel_block.indices.to_numpy(zero_copy_only=False)])
    r = np.concatenate(r_parts) if r_parts else np.zeros(0, dtype=np.int32)
    first = _first_of_each(h, r, t, len(entities), len(relations))
    return Triples(entities, relations, h[first], r[first], t[first], dropped,
                   len(h) - len(first))


def _coded_chunks(chunks: list[pa.Array], dictionary: pa.Array) -> np.ndarray:
    """The chunks' codes, each chunk let go of once coded."""
    coded = []
    while chunks:
        coded.append(_codes(pa.chunked_array([chunks.pop(0)], pa.string()), dictionary))
    return np.concatenate(coded) if coded else np.zeros(0, dtype=np.int32)


def _codes(column: pa.ChunkedArray, dictionary: pa.Array) -> np.ndarray:
    if not len(column):
        return np.zeros(0, dtype=np.int32)
    found = pc.index_in(column, value_set=dictionary)
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=np.int32)


def _first_of_each(h: np.ndarray, r: np.ndarray, t: np.ndarray, entities: int,
                   relations: int) -> np.ndarray:
    """Positions of each distinct (h, r, t)'s first occurrence, in order."""
    if not len(h):
        return np.zeros(0, dtype=np.int64)
    width = max(entities, 1)
    if width * width * max(relations, 1) < 2**62:
        key = (h.astype(np.int64) * relations + r) * width + t
        _, first = np.unique(key, return_index=True)
    else:  # too many to pack in 63 bits: rows instead (slower)
        _, first = np.unique(np.stack([h, r, t], axis=1), axis=0, return_index=True)
    return np.sort(first)


def by_code(codes: np.ndarray, values: pa.Array, size: int) -> pa.Array:
    """`values[i]` placed at `codes[i]` in an array of `size` (null elsewhere); codes distinct."""
    row_of = np.full(size, -1, dtype=np.int64)
    row_of[codes] = np.arange(len(codes))
    return values.take(pa.array(row_of, mask=row_of < 0))


def read_aliases(path: Path, entities: pa.Array, fold: Callable[[str], str],
                 problems: Problems, strict: bool) -> tuple[pa.Array, np.ndarray]:
    """Each entity's aliases (folded, blanks squeezed, distinct, in file order) by code, and
    whether the file has a line for it (an entity whose aliases fold to nothing has one)."""
    lines = read_tab_lines(path, ("entity", "alias"), problems, strict=strict,
                           open_ended=True, kinds=("key", "name"))
    codes: list[np.ndarray] = []
    lists: list[pa.Array] = []
    block_ids: list[str] = []
    block_rest: list[list[str]] = []

    def flush() -> None:
        found = pc.index_in(pa.array(block_ids, pa.string()), value_set=entities)
        wanted = np.flatnonzero(pc.is_valid(found).to_numpy(zero_copy_only=False))
        at = pc.fill_null(found, 0).to_numpy(zero_copy_only=False)
        made = []
        for i in wanted.tolist():
            aliases: list[str] = []
            for alias in block_rest[i]:
                alias = " ".join(fold(alias).split())
                if alias and alias not in aliases:
                    aliases.append(alias)
            made.append(aliases)
        codes.append(at[wanted].astype(np.int64))
        lists.append(pa.array(made, pa.list_(pa.string())))
        block_ids.clear()
        block_rest.clear()

    for _, fields in lines:
        block_ids.append(fields[0])
        block_rest.append(fields[1:])
        if len(block_ids) >= BLOCK:
            flush()
    if block_ids:
        flush()
    all_codes = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
    all_lists = pa.concat_arrays(lists) if lists else pa.array([], pa.list_(pa.string()))
    all_codes, all_lists = _merge_repeats(all_codes, all_lists)
    has_line = np.zeros(len(entities), dtype=bool)
    has_line[all_codes] = True
    return by_code(all_codes, all_lists, len(entities)), has_line


def _merge_repeats(codes: np.ndarray, lists: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """One row per code: the aliases of an entity's later lines appended to its first's."""
    distinct, first, counts = np.unique(codes, return_index=True, return_counts=True)
    if len(distinct) == len(codes):
        return codes, lists
    repeated = set(distinct[counts > 1].tolist())
    merged: dict[int, list[str]] = {}
    for row in np.flatnonzero(np.isin(codes, list(repeated))):
        aliases = merged.setdefault(int(codes[row]), [])
        for alias in lists[int(row)].as_py():
            if alias not in aliases:
                aliases.append(alias)
    keep = np.sort(first)
    values = lists.take(pa.array(keep)).to_pylist()
    kept_codes = codes[keep]
    for i, code in enumerate(kept_codes.tolist()):
        if code in merged:
            values[i] = merged[code]
    return kept_codes, pa.array(values, pa.list_(pa.string()))


def read_texts_column(path: Path, entities: pa.Array, problems: Problems,
                      strict: bool) -> pa.Array:
    """The first text of each entity by code (not yet folded), null where it has none."""
    lines = read_tab_lines(path, ("entity", "text"), problems, strict=strict,
                           kinds=("key", "text"))
    codes: list[np.ndarray] = []
    texts: list[pa.Array] = []
    for qids, block in _blocks(lines, 2):
        found = pc.index_in(pa.array(qids, pa.string()), value_set=entities)
        wanted = pc.is_valid(found)
        codes.append(np.asarray(pc.filter(found, wanted).to_numpy(zero_copy_only=False),
                                dtype=np.int64))
        texts.append(pc.filter(pa.array(block, pa.large_string()), wanted))
    if not codes:
        return pa.nulls(len(entities), pa.large_string())
    all_codes = np.concatenate(codes)
    _, first = np.unique(all_codes, return_index=True)
    first = np.sort(first)  # an entity's first text wins
    # One take from the blocks as read: the texts (650 MB at full size) are copied once.
    row_of = np.full(len(entities), -1, dtype=np.int64)
    row_of[all_codes[first]] = first
    column = pa.chunked_array(texts, pa.large_string())
    del texts
    return column.take(pa.array(row_of, mask=row_of < 0)).combine_chunks()


def neighbour_lists(heads: np.ndarray, tails: np.ndarray, entities: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, neighbours): entity e's distinct neighbours, either direction, are
    neighbours[offsets[e]:offsets[e + 1]]. One int64 key per direction of a fact, sorted in
    place: at full size each temporary is 200 MB, so few are made."""
    width = max(entities, 1)
    keys = np.empty(2 * len(heads), dtype=np.int64)
    np.multiply(heads, width, out=keys[:len(heads)], dtype=np.int64)
    keys[:len(heads)] += tails
    np.multiply(tails, width, out=keys[len(heads):], dtype=np.int64)
    keys[len(heads):] += heads
    keys.sort()
    if len(keys):
        fresh = np.empty(len(keys), dtype=bool)
        fresh[0] = True
        np.not_equal(keys[1:], keys[:-1], out=fresh[1:])
        keys = keys[fresh]
        del fresh
    owner = (keys // width).astype(np.int32)
    neighbour = (keys - owner.astype(np.int64) * width).astype(np.int32)
    del keys
    offsets = np.zeros(entities + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=entities), out=offsets[1:])
    return offsets, neighbour


@dataclass
class Matched:
    """What the text preprocessing found, by entity code."""

    names: pa.Array  # the alias found first in the text; null: none (or no text)
    folded: pa.Array  # the folded text where folding changed it, else null
    pool: pa.Array  # sentences later steps read (large strings)
    first: np.ndarray  # pool id of each entity's first sentence; -1: no text
    mention_keys: np.ndarray  # entity * E + neighbour, sorted (stable: text order kept)
    mention_pool: np.ndarray  # pool id of the sentence of each mention


def alias_keys(aliases: pa.Array) -> pa.Array:
    """Each entity's aliases' word keys, as space-joined words (empty lists where none)."""
    keys = []
    for start in range(0, len(aliases), BLOCK):
        made = [[" ".join(k) for k in (word_key(a) for a in found or ()) if k]
                for found in aliases.slice(start, BLOCK).to_pylist()]
        keys.append(pa.array(made, pa.list_(pa.string())))
    return pa.concat_arrays(keys) if keys else pa.array([], pa.list_(pa.string()))


def match_texts(texts: pa.Array, entities: pa.Array, aliases: pa.Array,
                offsets: np.ndarray, neighbours: np.ndarray,
                fold: Callable[[str], str]) -> Matched:
    size = len(entities)
    keys = alias_keys(aliases)
    with_text = np.flatnonzero(pc.is_valid(texts).to_numpy(zero_copy_only=False))
    name_parts: list[pa.Array] = []
    folded_parts: list[pa.Array] = []
    pool_parts: list[pa.Array] = []
    first = np.full(size, -1, dtype=np.int64)
    mention_entity: list[np.ndarray] = []
    mention_other: list[np.ndarray] = []
    mention_pool: list[np.ndarray] = []
    pooled = 0
    loadprogress.tick(MATCHING, 0, len(with_text), "entities")
    chunks = [with_text[start:start + ENTITY_CHUNK]
              for start in range(0, len(with_text), ENTITY_CHUNK)]
    found_chunks = _chunk_results(chunks, _Columns(texts, entities, aliases, keys, offsets,
                                                   neighbours, fold), len(with_text))
    done = 0
    for chunk, results in zip(chunks, found_chunks, strict=True):
        name_parts.append(pa.array([r.name for r in results], pa.string()))
        folded_parts.append(pa.array([r.text for r in results], pa.large_string()))
        sentences: list[str] = []
        ents: list[int] = []
        others: list[int] = []
        pools: list[int] = []
        for code, found in zip(chunk.tolist(), results, strict=True):
            first[code] = pooled + len(sentences)
            sentences.append(found.first)
            pool_of: dict[int, int] = {}
            for index in sorted(found.sentences):
                pool_of[index] = pooled + len(sentences)
                sentences.append(found.sentences[index])
            for other, indexes in found.mentions.items():
                for index in indexes:
                    ents.append(code)
                    others.append(int(other))
                    pools.append(pool_of[index])
        pool_parts.append(pa.array(sentences, pa.large_string()))
        pooled += len(sentences)
        mention_entity.append(np.array(ents, dtype=np.int64))
        mention_other.append(np.array(others, dtype=np.int64))
        mention_pool.append(np.array(pools, dtype=np.int64))
        done += len(chunk)
        loadprogress.tick(MATCHING, done, len(with_text), "entities")
    ents_all = np.concatenate(mention_entity) if mention_entity else np.zeros(0, np.int64)
    others_all = np.concatenate(mention_other) if mention_other else np.zeros(0, np.int64)
    pools_all = np.concatenate(mention_pool) if mention_pool else np.zeros(0, np.int64)
    key = ents_all * max(size, 1) + others_all
    order = np.argsort(key, kind="stable")
    return Matched(
        names=by_code(with_text, _concat(name_parts, pa.string()), size),
        folded=by_code(with_text, _concat(folded_parts, pa.large_string()), size),
        pool=_concat(pool_parts, pa.large_string()),
        first=first, mention_keys=key[order], mention_pool=pools_all[order],
    )


def _concat(parts: list[pa.Array], kind: pa.DataType) -> pa.Array:
    return pa.concat_arrays(parts) if parts else pa.array([], kind)


@dataclass(frozen=True)
class _Columns:
    texts: pa.Array
    entities: pa.Array
    aliases: pa.Array
    keys: pa.Array
    offsets: np.ndarray
    neighbours: np.ndarray
    fold: Callable[[str], str]


_shared: _Columns | None = None  # set before the workers fork: they read it from there


def _chunk_results(chunks: list[np.ndarray], columns: _Columns, total: int
                   ) -> Iterator[list[EntityText]]:
    """Each chunk's results in order: in forked workers (wikidata5m_text.worker_count) that
    read the columns from the parent's memory (Arrow buffers and numpy arrays: no
    reference counts written, so the pages stay shared), else in this process."""
    global _shared
    workers = text_steps.worker_count()
    if workers < 2 or total < text_steps.PARALLEL_FROM or not text_steps.fork_safe():
        for chunk in chunks:
            yield _match_chunk(chunk, columns)
        return
    import multiprocessing

    _shared = columns
    try:
        with multiprocessing.get_context("fork").Pool(workers,
                                                      text_steps._default_signals) as pool:
            yield from pool.imap(_match_shared, chunks)
    finally:
        _shared = None


def _match_shared(chunk: np.ndarray) -> list[EntityText]:
    assert _shared is not None
    return _match_chunk(chunk, _shared)


def _match_chunk(chunk: np.ndarray, columns: _Columns) -> list[EntityText]:
    """entity_text of each entity in `chunk`, with the inputs of only this chunk in Python."""
    texts, entities, aliases, keys = columns.texts, columns.entities, columns.aliases, columns.keys
    offsets, neighbours, fold = columns.offsets, columns.neighbours, columns.fold
    index = pa.array(chunk)
    raw = texts.take(index).to_pylist()
    qids = entities.take(index).to_pylist()
    own = aliases.take(index).to_pylist()
    near: dict[int, set[int]] = {}
    for code in chunk.tolist():
        near[code] = set(neighbours[offsets[code]:offsets[code + 1]].tolist())
    others = sorted(set().union(*near.values()))
    other_keys = keys.take(pa.array(others, pa.int64())).to_pylist()
    key_of = {code: [tuple(k.split(" ")) for k in found or ()]
              for code, found in zip(others, other_keys, strict=True)}
    inputs = _Inputs(
        texts=dict(zip(chunk.tolist(), raw, strict=True)), neighbours=near, keys=key_of,
        aliases={code: found or [qid] for code, found, qid in
                 zip(chunk.tolist(), own, qids, strict=True)},
        fold=fold,
    )
    return [entity_text(code, inputs) for code in chunk.tolist()]
