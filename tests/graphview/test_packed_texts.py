"""A stored snapshot's names and aliases read as packed UTF-8 (graphview/packed_texts.py): the
same items as the tuples they replace, in a fraction of the memory."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from kgcert.graphview.packed_texts import PackedAliases, PackedNames, aliases_of, names_of
from kgcert.graphview.snapshot import _joined, _read, _utf8, _write

NAMES = ("Zürich", None, "", "東京 \ud800", "a\x01b", "𝔘 plane 1")
ALIASES = (("Zuerich", "ZH"), (), ("Tōkyō",), (), ("x",), ("𝔘", "u"))


def _packed() -> tuple[PackedNames, PackedAliases]:
    named = np.array([n is not None for n in NAMES], dtype=bool)
    names = PackedNames(_utf8(_joined(NAMES)), named)
    aliases = PackedAliases(_utf8(_joined("\x01".join(a) for a in ALIASES)), len(ALIASES))
    return names, aliases


def test_every_item_reads_as_the_tuple_it_replaces() -> None:
    names, aliases = _packed()
    assert len(names) == len(NAMES) and list(names) == list(NAMES)
    assert [names[i] for i in range(len(NAMES))] == list(NAMES)
    assert names[-1] == NAMES[-1] and names[1:3] == NAMES[1:3]
    assert names == NAMES and aliases == ALIASES and names != NAMES[:-1]
    assert aliases[1] == () and not aliases[3]  # falsy where there are none, as before
    with pytest.raises(IndexError):
        names[len(NAMES)]


def test_a_count_that_disagrees_with_the_buffer_is_refused() -> None:
    # a damaged file is read again from the server: `_read`'s caller catches ValueError
    with pytest.raises(ValueError, match="2 packed texts where 3"):
        PackedAliases(_utf8("a\x00b"), 3)


def test_none_and_no_entity_read_as_empty() -> None:
    assert names_of(np.zeros(0, np.uint8), np.zeros(0, bool)) == ()
    assert aliases_of(np.zeros(0, np.uint8), 0) == ()
    assert PackedNames(np.zeros(0, np.uint8), np.array([True])) == ("",)


def test_a_stored_snapshot_reads_its_texts_packed_and_the_same(tmp_path) -> None:
    from kgcert.graphview.snapshot import _indexed, fact_order

    ids = np.array([f"Q{i}" for i in range(len(NAMES))], dtype=str)
    source = np.arange(len(ids), dtype=np.int32)
    target = np.roll(source, 1)
    type_ = np.zeros(len(ids), np.int32)
    display = np.full(len(ids), -1, np.int32)
    edges, starts = fact_order(source, target, type_, display, ("P1",), (), len(ids))
    snapshot = _indexed(ids, NAMES, ALIASES, (("x",),), np.zeros(len(ids), np.int32), ("P1",),
                        (), source, target, type_, display, edges, starts)
    path = tmp_path / "snapshot.npz"
    _write(path, snapshot)
    back = _read(path)
    assert isinstance(back.names, PackedNames) and isinstance(back.aliases, PackedAliases)
    assert back.names == NAMES and back.aliases == ALIASES
    again = tmp_path / "again.npz"  # written again from the packed texts: the same bytes
    _write(again, back)
    with np.load(path) as first, np.load(again) as second:
        for key in first.files:
            assert np.array_equal(first[key], second[key]), key


def test_packed_texts_take_less_memory_than_tuples_of_strings() -> None:
    """Why they exist: per entity a name and two aliases, as a Wikidata5m entity has."""
    count = 20_000
    names = tuple(f"entity number {i}" for i in range(count))
    aliases = tuple((f"alias {i}", f"other {i}") for i in range(count))
    as_tuples = (sys.getsizeof(names) + sum(map(sys.getsizeof, names))
                 + sys.getsizeof(aliases) + sum(sys.getsizeof(a) + sum(map(sys.getsizeof, a))
                                                for a in aliases))
    packed_names = PackedNames(_utf8(_joined(names)), np.ones(count, bool))
    packed_aliases = PackedAliases(_utf8(_joined("\x01".join(a) for a in aliases)), count)
    packed = sum(part._data.nbytes + part._starts.nbytes + part._ends.nbytes
                 for part in (packed_names, packed_aliases)) + packed_names._named.nbytes
    assert packed_names == names and packed_aliases == aliases
    assert packed * 2 < as_tuples
