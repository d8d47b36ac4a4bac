"""Differential: the PrimeKG block parse (pyarrow for clean blocks, the careful row reader for
the rest, facts as integer codes) gives the KGData of the old row-by-row parse
(tests/primekg_reference.py): the same nodes with their properties in the same order, the
same edges per relationship type (as multisets: edge order is free), relations, notes and
problem reports, and with --strict the same error. Small blocks put block ends inside
damaged stretches, so the fall-back and its reading past a block's end are exercised."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from primekg_reference import RowByRowPrimeKG

from kgcert.errors import InputError
from kgcert.loaders import LoadOptions, fastcsv, get_loader
from kgcert.store.kg_data import KGData
from kgcert.synth.primekg import SyntheticPrimeKG


def canonical(data: KGData) -> dict[str, Any]:
    edges = {}
    for rel_type, table in data.edges.items():
        shown = table.properties or [None] * len(table)
        edges[rel_type] = sorted(zip(table.sources, table.targets, map(repr, shown),
                                     strict=True))
    return {
        "nodes": [(label, table.rows) for label, table in data.nodes.items()],
        "edges": edges,
        "relations": data.relations,
        "problems": (data.problems.count, data.problems.examples),
        "notes": data.notes,
    }


def both_parses(paths: list[Path], strict: bool = False) -> tuple[Any, Any]:
    """(fast, row by row): each a canonical KGData or the InputError's message."""
    results = []
    for loader in (get_loader("primekg", LoadOptions(strict=strict)),
                   RowByRowPrimeKG(LoadOptions(strict=strict))):
        try:
            results.append(canonical(loader.read(loader.source_files(paths))))
        except InputError as error:
            results.append(f"InputError: {error}")
    return results[0], results[1]


@pytest.fixture(params=[4096, None], ids=["4k-blocks", "default-blocks"])
def block_bytes(request, monkeypatch) -> int | None:
    if request.param:
        monkeypatch.setattr(fastcsv, "BLOCK_BYTES", request.param)
    return request.param


@pytest.mark.parametrize("names", [["kg_alzheimer_neighbourhood.csv"],
                                   ["kg_drug_protein_a.csv", "kg_drug_protein_b.csv"],
                                   ["diabetes_export"]])
def test_real_extracts(shared_data, block_bytes, names):
    fast, reference = both_parses([shared_data / "primekg" / name for name in names])
    assert isinstance(fast, dict) and fast["edges"]
    assert fast == reference


def test_synthetic_graph(tmp_path, monkeypatch):
    monkeypatch.setattr(fastcsv, "BLOCK_BYTES", 2**16)
    path = tmp_path / "kg.csv"
    SyntheticPrimeKG(0.01, seed=3).write_kg_csv(path)
    fast, reference = both_parses([path])
    assert isinstance(fast, dict) and len(fast["edges"]) > 10
    assert fast == reference


KINDS = 12


def _damage(line: str, kind: int, rng: random.Random) -> str:
    """Damage of one kind to a kg.csv line (it ends with "\\n")."""
    fields = line.rstrip("\n").split(",")
    column = rng.randrange(len(fields))
    if kind == 0:  # an unbalanced quote: swallows lines up to the next quote
        fields[column] = '"' + fields[column]
    elif kind == 1:  # a well-quoted name that holds a comma and a line break
        fields[5] = f'"{fields[5]},\nsecond line"'
    elif kind == 2:
        fields[column] += rng.choice(["\x00", "\t", "\x1b", "\x7f", "\x85", "\u00a0"])
    elif kind == 3:
        return line.rstrip("\n") + "\r\n"
    elif kind == 4:
        return rng.choice(["\n", "   \n", "\r\n", ",,,\n"]) + line
    elif kind == 5:
        fields.append("extra")
    elif kind == 6:
        fields[rng.choice([0, 2, 4, 7, 9])] = rng.choice(["", "  "])
    elif kind == 7:
        fields[column] += "\r" + fields[column]  # a lone CR ends a line too
    elif kind == 8:
        fields[5] = "n" * rng.choice([1100, 4097, 5000])
    elif kind == 9:
        fields[4] = "t" * rng.choice([100, 101, 101])
    elif kind == 10:
        return line[: rng.randrange(len(line))]  # torn: joins the next line
    else:
        fields[column] = f'"{fields[column]}"'  # harmless quoting
    return ",".join(fields) + "\n"


@pytest.mark.parametrize("seed", range(3 * KINDS))
def test_damaged_extract(shared_data, tmp_path, monkeypatch, seed):
    monkeypatch.setattr(fastcsv, "BLOCK_BYTES", 4096)
    rng = random.Random(seed)
    text = (shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv").read_text("utf-8")
    lines = text.splitlines(keepends=True)
    # Each kind of damage in three seeds, with up to five others beside it.
    for kind in [seed % KINDS] + [rng.randrange(KINDS) for _ in range(rng.randrange(6))]:
        at = rng.randrange(1, len(lines))
        lines[at] = _damage(lines[at], kind, rng)
    if seed % 4 == 0:
        lines[0] = "\ufeff" + lines[0]
    path = tmp_path / "kg.csv"
    path.write_text("".join(lines), encoding="utf-8")
    for strict in (False, True):
        fast, reference = both_parses([path], strict=strict)
        assert fast == reference


def test_bytes_that_are_not_utf8_are_named_alike(shared_data, tmp_path):
    raw = (shared_data / "primekg" / "kg_alzheimer_neighbourhood.csv").read_bytes()
    path = tmp_path / "kg.csv"
    path.write_bytes(raw[:5000] + b"\xff" + raw[5000:])
    fast, reference = both_parses([path])
    assert isinstance(fast, str) and "not valid UTF-8" in fast
    assert fast == reference
