"""The edges' own sentences (Wikidata5m with texts) beside a KG snapshot, kept on disk.

A snapshot keeps a KG's structure in integer arrays; edges that carry their own sentences
need those too, or every prompt reads its entities' edges over Bolt again. The sentences are
text, several per edge, and at full Wikidata5m size more bytes than the structure: so they
live apart from it, as one pool of UTF-8 bytes with an offset per distinct sentence, and a
run of sentence numbers per edge. The pool is written to a file while the edges are read and
mapped into memory from it (the pages a run touches are the page cache's, given back under
pressure), so the process holds the per-edge and per-sentence integers, never the text.

A sentence is stored once per page of edges read (`SentenceWriter`): an entity's first
sentence supports each of its edges, which are read in the same page, so most repeats cost
a number rather than their text, with a dictionary no larger than one page's sentences.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

POOL = "pool.bin"
ARRAYS = ("ref_start", "ref_count", "refs", "offsets")


@dataclass(frozen=True)
class EdgeSentences:
    """Edge e's sentences are the pool's texts numbered `refs[ref_start[e]:ref_start[e] +
    ref_count[e]]`, in stored order; text k is `pool[offsets[k]:offsets[k + 1]]`."""

    ref_start: np.ndarray  # int64 per edge
    ref_count: np.ndarray  # int32 per edge
    refs: np.ndarray  # int64 sentence numbers
    offsets: np.ndarray  # int64, one more than the sentences
    pool: bytes | mmap.mmap  # slicing either gives bytes

    def of_edges(self, edges: np.ndarray) -> list[tuple[str, ...]]:
        """Each edge's sentences, in the order of `edges` (one gather for them all)."""
        counts = self.ref_count[edges].astype(np.int64)
        total = int(counts.sum())
        if not total:
            return [()] * len(edges)
        ends = np.cumsum(counts)
        # The refs positions of every wanted sentence: each edge's start, counted on.
        within = np.arange(total, dtype=np.int64) - np.repeat(ends - counts, counts)
        numbers = self.refs[np.repeat(self.ref_start[edges], counts) + within]
        starts = self.offsets[numbers].tolist()
        stops = self.offsets[numbers + 1].tolist()
        pool = self.pool
        texts = [pool[a:b].decode("utf-8", "surrogatepass")
                 for a, b in zip(starts, stops, strict=True)]
        found: list[tuple[str, ...]] = []
        at = 0
        for count in counts.tolist():
            found.append(tuple(texts[at:at + count]) if count else ())
            at += count
        return found

    def reordered(self, order: np.ndarray) -> EdgeSentences:
        """The same sentences for edges put in `order` (the pool and numbers unchanged)."""
        return EdgeSentences(self.ref_start[order], self.ref_count[order], self.refs,
                             self.offsets, self.pool)

    def save(self, folder: Path) -> None:
        """The arrays into `folder`, where `SentenceWriter` left the pool."""
        for name in ARRAYS:
            np.save(folder / f"{name}.npy", getattr(self, name))


def load(folder: Path) -> EdgeSentences:
    """The sentences `save` wrote, the pool and numbers mapped from their files."""
    # Plain arrays over the mapped files: indexing a np.memmap goes through Python.
    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r").view(np.ndarray)
              for name in ARRAYS}
    return EdgeSentences(arrays["ref_start"], arrays["ref_count"], arrays["refs"],
                         arrays["offsets"], _mapped(folder / POOL))


def _mapped(path: Path) -> bytes | mmap.mmap:
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""  # an empty file cannot be mapped
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


class SentenceWriter:
    """Collects edges' sentences page by page into a pool file (`folder`'s, else a temporary
    one) and numbers them; `finish` gives the EdgeSentences of the edges in the order added."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        # Open until `finish`: written page by page, then mapped.
        self._file: IO[bytes] = (open(folder / POOL, "wb")  # noqa: SIM115
                                 if folder is not None
                                 else tempfile.TemporaryFile())  # noqa: SIM115
        self._offsets: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
        self._size = 0
        self._count = 0
        self._page: dict[str, int] = {}
        self._page_offsets: list[int] = []
        self._refs: list[np.ndarray] = []
        self._page_refs: list[int] = []
        self._counts: list[np.ndarray] = []
        self._page_counts: list[int] = []

    def add(self, sentences: Sequence[object] | None) -> None:
        """One edge's sentences (None: none), in stored order."""
        if not sentences:
            self._page_counts.append(0)
            return
        page, refs = self._page, self._page_refs
        for sentence in sentences:
            text = str(sentence)
            number = page.get(text)
            if number is None:
                data = text.encode("utf-8", "surrogatepass")
                self._file.write(data)
                self._size += len(data)
                self._page_offsets.append(self._size)
                number = page[text] = self._count + len(page)
            refs.append(number)
        self._page_counts.append(len(sentences))

    def end_page(self) -> None:
        """Forgets the page's texts: a later page writes a repeat again (bounded memory)."""
        self._offsets.append(np.array(self._page_offsets, dtype=np.int64))
        self._refs.append(np.array(self._page_refs, dtype=np.int64))
        self._counts.append(np.array(self._page_counts, dtype=np.int32))
        self._count += len(self._page)
        self._page, self._page_offsets, self._page_refs, self._page_counts = {}, [], [], []

    def finish(self) -> EdgeSentences:
        self.end_page()
        self._file.flush()
        counts = np.concatenate(self._counts)
        ref_start = np.zeros(len(counts), dtype=np.int64)
        if len(counts):
            np.cumsum(counts[:-1], out=ref_start[1:])
        refs = np.concatenate(self._refs)
        offsets = np.concatenate(self._offsets)
        self._counts, self._refs, self._offsets = [], [], []
        if self.folder is not None:
            self._file.close()
            pool = _mapped(self.folder / POOL)
        else:  # a temporary file: mapped while open, gone with the mapping
            pool = (mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
                    if self._size else b"")
            self._file.close()
        return EdgeSentences(ref_start, counts, refs, offsets, pool)

    def abandon(self) -> None:
        self._file.close()
