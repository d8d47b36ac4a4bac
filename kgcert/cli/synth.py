"""`kgcert synth`: write a synthetic PrimeKG-shaped kg.csv for benchmarks."""

from __future__ import annotations

from pathlib import Path

import click

from kgcert.cli.common import console


@click.command("synth")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Directory to write kg.csv into.")
@click.option("--scale", type=float, default=None, help="Fraction of PrimeKG's size (1.0 = full).")
@click.option("--edges", type=int, default=None, help="Target directed edges (sets the scale).")
@click.option("--seed", type=int, default=0, show_default=True)
def synth_command(out: Path, scale: float | None, edges: int | None, seed: int) -> None:
    """Write a PrimeKG-shaped kg.csv with fake names and power-law degrees."""
    from kgcert.synth import SyntheticPrimeKG, scale_for_edges

    if scale is None:
        scale = scale_for_edges(edges) if edges else 0.01
    rows = SyntheticPrimeKG(scale, seed).write_kg_csv(out / "kg.csv")
    console.print(f"wrote {out / 'kg.csv'}: {rows:,} rows (scale {scale:.4g}); load it with "
                  f"`kgcert load primekg {out / 'kg.csv'}`", highlight=False)


COMMANDS = [synth_command]
