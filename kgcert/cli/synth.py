"""`kgcert synth`: write a synthetic PrimeKG- or Wikidata5m-shaped KG for benchmarks."""

from __future__ import annotations

import time
from pathlib import Path

import click

from kgcert.cli.common import console
from kgcert.errors import InputError


@click.command("synth")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Directory to write the files into.")
@click.option("--layout", type=click.Choice(["primekg", "wikidata5m"]), default="primekg",
              show_default=True, help="kg.csv of PrimeKG, or the Wikidata5m release files.")
@click.option("--scale", type=float, default=None,
              help="Fraction of the full KG's size (1.0 = full).")
@click.option("--edges", type=int, default=None,
              help="Target directed edges (sets the scale; primekg only).")
@click.option("--seed", type=int, default=0, show_default=True)
def synth_command(out: Path, layout: str, scale: float | None, edges: int | None,
                  seed: int) -> None:
    """Write a synthetic PrimeKG- or Wikidata5m-shaped KG with power-law degrees."""
    if scale is not None and scale <= 0:
        raise InputError(f"--scale must be positive, got {scale}")
    started = time.monotonic()
    if layout == "wikidata5m":
        from kgcert.synth.wikidata5m import SyntheticWikidata5m

        if edges is not None:
            raise InputError("--edges applies to --layout primekg; use --scale")
        counts = SyntheticWikidata5m(scale or 0.001, seed).write(out)
        seconds = time.monotonic() - started
        console.print(f"wrote {out}: {counts['triples']:,} triples, {counts['entities']:,} "
                      f"entities with aliases and abstracts, {counts['relations']:,} relations "
                      f"in {seconds:.1f} s ({counts['triples'] / seconds:,.0f} triples/s); "
                      f"load it with `kgcert load wikidata5m {out}`", highlight=False)
        return
    from kgcert.synth.primekg import SyntheticPrimeKG, scale_for_edges

    if scale is None:
        scale = scale_for_edges(edges) if edges else 0.01
    rows = SyntheticPrimeKG(scale, seed).write_kg_csv(out / "kg.csv")
    seconds = time.monotonic() - started
    console.print(f"wrote {out / 'kg.csv'}: {rows:,} rows (scale {scale:.4g}) in {seconds:.1f} s "
                  f"({rows / seconds:,.0f} rows/s); load it with "
                  f"`kgcert load primekg {out / 'kg.csv'}`", highlight=False)


COMMANDS = [synth_command]
