"""The memory a stored snapshot's texts take to read: UTF-8 bytes (now) against one UCS-4 string
per field (before), on synthetic Wikidata5m-like names and aliases (issue 48 item 2).

    python benchmarks/bench_snapshot_texts.py [--entities 1000000] [--rounds 3]

Writes one snapshot file of `--entities` entities (names of 8-40 characters, some non-ASCII;
0-6 aliases each) in each layout, then reads each back with `graphview.snapshot._read`,
alternating, and reports the peak of Python's traced allocations (numpy's arrays included)
and the CPU seconds of each read, best of `--rounds`. Full-size Wikidata5m has about 4.8M
entities; the figures scale with the characters stored.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from kgcert.graphview.snapshot import _indexed, _joined, _read, _write, fact_order


def synthetic(entities: int, seed: int):  # noqa: ANN201 (a GraphSnapshot)
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz     éüßō"
    ids = np.array(sorted(f"Q{i}" for i in range(entities)), dtype=str)

    def word() -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(8, 40))).strip() or "x"

    names = tuple(word() for _ in range(entities))
    aliases = tuple(tuple(word() for _ in range(rng.randint(0, 6))) for _ in range(entities))
    source = np.arange(entities, dtype=np.int32)
    target = np.roll(source, 1)
    zeros = np.zeros(entities, dtype=np.int32)
    edges, starts = fact_order(source, target, zeros, zeros - 1, ("P1",), (), entities)
    return _indexed(ids, names, aliases, (("entity",),), zeros, ("P1",), (), source, target,
                    zeros, zeros - 1, edges, starts)


def write_ucs4(path: Path, snapshot) -> None:  # noqa: ANN001
    """The layout before: each text field one numpy string (UCS-4)."""
    np.savez(path, ids=snapshot.ids, names=np.array(_joined(snapshot.names)),
             named=np.array([n is not None for n in snapshot.names], dtype=bool),
             aliases=np.array(_joined("\x01".join(a) for a in snapshot.aliases)),
             labels=np.array(_joined("\x01".join(s) for s in snapshot.labels)),
             label_set=snapshot.label_set, types=np.array(_joined(snapshot.types)),
             displays=np.array(_joined(snapshot.displays)), source=snapshot.source,
             target=snapshot.target, type=snapshot.type, display=snapshot.display,
             fact_edges=snapshot.fact_edges, fact_start=snapshot.fact_start,
             with_sentences=np.array(False))


def measure(path: Path) -> tuple[float, float]:
    """Peak traced MB and CPU seconds of reading `path`."""
    tracemalloc.start()
    cpu = time.process_time()
    snapshot = _read(path)
    cpu = time.process_time() - cpu
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    del snapshot
    return peak, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    snapshot = synthetic(args.entities, 0)
    chars = sum(len(n or "") for n in snapshot.names) + sum(
        len(a) for row in snapshot.aliases for a in row)
    with tempfile.TemporaryDirectory(prefix="kgcert-bench-texts-") as folder:
        paths = {"utf8": Path(folder) / "utf8.npz", "ucs4": Path(folder) / "ucs4.npz"}
        _write(paths["utf8"], snapshot)
        write_ucs4(paths["ucs4"], snapshot)
        del snapshot
        best: dict[str, tuple[float, float]] = {}
        for _ in range(args.rounds):
            for name, path in paths.items():
                peak, cpu = measure(path)
                was = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(was[0], peak), min(was[1], cpu))
        sizes = {name: path.stat().st_size / 2**20 for name, path in paths.items()}
    print(f"{args.entities:,} entities, {chars:,} characters of names and aliases")
    for name, (peak, cpu) in best.items():
        print(f"{name}: file {sizes[name]:,.0f} MB, read peak {peak:,.0f} MB traced, "
              f"{cpu:.2f} CPU-s")
    print(f"utf8 / ucs4: peak {best['utf8'][0] / best['ucs4'][0]:.2f}x, "
          f"CPU {best['utf8'][1] / best['ucs4'][1]:.2f}x")


if __name__ == "__main__":
    main()
