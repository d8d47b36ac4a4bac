"""A synthetic PrimeKG-shaped graph for benchmarks: the real type and relation mix, any scale.

Counts come from the published size of PrimeKG (129,375 nodes, 8,100,498 kg.csv rows,
each undirected fact written in both directions). Endpoints are drawn with Zipf-like
weights so degrees follow a power law, as in the real graph. Names are made up.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import numpy as np

NODE_COUNTS = {
    "biological_process": 28_642, "gene/protein": 27_671, "disease": 17_080,
    "effect/phenotype": 15_311, "anatomy": 14_035, "molecular_function": 11_169,
    "drug": 7_957, "cellular_component": 4_176, "pathway": 2_516, "exposure": 818,
}
# relation: (display relation, x type, y type, kg.csv rows in both directions)
RELATIONS = {
    "anatomy_protein_present": ("expression present", "anatomy", "gene/protein", 3_036_406),
    "drug_drug": ("synergistic interaction", "drug", "drug", 2_672_628),
    "protein_protein": ("ppi", "gene/protein", "gene/protein", 642_150),
    "disease_phenotype_positive": ("phenotype present", "disease", "effect/phenotype", 300_634),
    "bioprocess_protein": ("interacts with", "biological_process", "gene/protein", 289_610),
    "cellcomp_protein": ("interacts with", "cellular_component", "gene/protein", 166_804),
    "disease_protein": ("associated with", "disease", "gene/protein", 160_822),
    "molfunc_protein": ("interacts with", "molecular_function", "gene/protein", 139_060),
    "drug_effect": ("side effect", "drug", "effect/phenotype", 129_568),
    "bioprocess_bioprocess": ("parent-child", "biological_process", "biological_process", 105_772),
    "pathway_protein": ("interacts with", "pathway", "gene/protein", 85_292),
    "disease_disease": ("parent-child", "disease", "disease", 64_388),
    "contraindication": ("contraindication", "drug", "disease", 61_350),
    "drug_protein": ("target", "drug", "gene/protein", 51_306),
    "anatomy_protein_absent": ("expression absent", "anatomy", "gene/protein", 39_774),
    "phenotype_phenotype": ("parent-child", "effect/phenotype", "effect/phenotype", 37_472),
    "anatomy_anatomy": ("parent-child", "anatomy", "anatomy", 28_064),
    "molfunc_molfunc": ("parent-child", "molecular_function", "molecular_function", 27_148),
    "indication": ("indication", "drug", "disease", 18_776),
    "cellcomp_cellcomp": ("parent-child", "cellular_component", "cellular_component", 9_690),
    "phenotype_protein": ("associated with", "effect/phenotype", "gene/protein", 6_660),
    "off-label use": ("off-label use", "drug", "disease", 5_136),
    "pathway_pathway": ("parent-child", "pathway", "pathway", 5_070),
    "exposure_disease": ("linked to", "exposure", "disease", 4_608),
    "exposure_exposure": ("parent-child", "exposure", "exposure", 4_140),
    "exposure_bioprocess": ("interacts with", "exposure", "biological_process", 3_250),
    "exposure_protein": ("interacts with", "exposure", "gene/protein", 2_424),
    "disease_phenotype_negative": ("phenotype absent", "disease", "effect/phenotype", 2_386),
    "exposure_molfunc": ("interacts with", "exposure", "molecular_function", 90),
    "exposure_cellcomp": ("interacts with", "exposure", "cellular_component", 20),
}
FULL_ROWS = sum(r[3] for r in RELATIONS.values())
KG_HEADER = ["relation", "display_relation", "x_index", "x_id", "x_type", "x_name", "x_source",
             "y_index", "y_id", "y_type", "y_name", "y_source"]
_SYLLABLES = ["ra", "zo", "mi", "te", "lu", "ka", "vo", "ne", "si", "dor", "fen", "xa", "bri",
              "qui", "lor", "tam", "pex", "ul", "cy", "mon"]


def scale_for_edges(edges: int) -> float:
    """The scale factor whose graph stores about `edges` directed edges."""
    return edges / FULL_ROWS


class SyntheticPrimeKG:
    def __init__(self, scale: float, seed: int = 0, zipf: float = 0.8) -> None:
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.scale = scale
        self.rng = np.random.default_rng(seed)
        self.zipf = zipf
        self.nodes: dict[str, np.ndarray] = {}
        start = 0
        for node_type, count in NODE_COUNTS.items():
            size = max(2, round(count * scale))
            self.nodes[node_type] = np.arange(start, start + size)
            start += size
        self.names = self._names(start)

    def _names(self, count: int) -> list[str]:
        parts = self.rng.integers(0, len(_SYLLABLES), size=(count, 3))
        seen: dict[str, int] = {}
        names = []
        for row in parts:
            name = "".join(_SYLLABLES[i] for i in row).capitalize()
            seen[name] = seen.get(name, 0) + 1
            names.append(name if seen[name] == 1 else f"{name} {seen[name]}")
        return names

    def _draw(self, ids: np.ndarray, size: int) -> np.ndarray:
        weights = 1.0 / np.arange(1, len(ids) + 1) ** self.zipf
        permuted = self.rng.permutation(ids)  # hubs land on random ids
        return permuted[self.rng.choice(len(ids), size=size, p=weights / weights.sum())]

    def facts(self) -> Iterator[tuple[str, str, str, str, np.ndarray, np.ndarray]]:
        """Per relation: (relation, display, x type, y type, x ids, y ids), one row per fact."""
        for relation, (display, x_type, y_type, rows) in RELATIONS.items():
            wanted = max(1, round(rows * self.scale / 2))
            xs, ys = self._draw(self.nodes[x_type], wanted * 2), self._draw(self.nodes[y_type],
                                                                            wanted * 2)
            keep = xs != ys
            pairs = np.unique(np.stack([xs[keep], ys[keep]], axis=1), axis=0)
            if x_type == y_type:  # one fact per unordered pair
                pairs = np.unique(np.sort(pairs, axis=1), axis=0)
            pairs = pairs[self.rng.permutation(len(pairs))[:wanted]]
            yield relation, display, x_type, y_type, pairs[:, 0], pairs[:, 1]

    def write_kg_csv(self, path: Path) -> int:
        """Write kg.csv (both directions, as the release does); returns the row count."""
        path.parent.mkdir(parents=True, exist_ok=True)
        names, rows = self.names, 0
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(KG_HEADER)
            for relation, display, x_type, y_type, xs, ys in self.facts():
                for a_ids, a_type, b_ids, b_type in ((xs, x_type, ys, y_type),
                                                     (ys, y_type, xs, x_type)):
                    writer.writerows(
                        (relation, display, a, f"S{a}", a_type, names[a], "SYNTH",
                         b, f"S{b}", b_type, names[b], "SYNTH")
                        for a, b in zip(a_ids.tolist(), b_ids.tolist(), strict=True)
                    )
                    rows += len(a_ids)
        return rows
