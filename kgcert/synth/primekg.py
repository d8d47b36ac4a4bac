"""A synthetic PrimeKG-shaped graph for benchmarks: the real type and relation mix, any scale.

Counts come from the published size of PrimeKG (129,375 nodes, 8,100,498 kg.csv rows,
each undirected fact written in both directions): at scale 1.0 every node type and every
relation has exactly its published count (fewer only where a tiny scale leaves fewer
possible pairs). Endpoints are drawn with Zipf weights so degrees follow a power law, with
steeper exponents for drug_drug and anatomy_protein_present, whose hubs dominate the real
graph. Names are made up. Deterministic by seed; vectorised (numpy).

`kgcert.synth.wikidata5m` writes the Wikidata5m layout the same way.
"""

from __future__ import annotations

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
# Zipf exponents: hub-dominated relations get a steeper law (the default is ZIPF).
ZIPF = 0.8
HUB_ZIPF = {"drug_drug": 1.0, "anatomy_protein_present": 1.0}
# Per node type, the relation that gives each of its nodes an edge (its largest one).
COVER = {node_type: max((r for r, v in RELATIONS.items() if node_type in v[1:3]),
                        key=lambda r: RELATIONS[r][3]) for node_type in NODE_COUNTS}
KG_HEADER = ["relation", "display_relation", "x_index", "x_id", "x_type", "x_name", "x_source",
             "y_index", "y_id", "y_type", "y_name", "y_source"]
SYLLABLES = ["ra", "zo", "mi", "te", "lu", "ka", "vo", "ne", "si", "dor", "fen", "xa", "bri",
             "qui", "lor", "tam", "pex", "ul", "cy", "mon"]
CHUNK = 200_000  # rows formatted per write


def scale_for_edges(edges: int) -> float:
    """The scale factor whose graph stores about `edges` directed edges."""
    return edges / FULL_ROWS


def syllable_names(codes: np.ndarray, syllables: int) -> np.ndarray:
    """One made-up word per code, unique for codes below len(SYLLABLES) ** syllables: the
    code's base-20 digits spelled as syllables, capitalised."""
    base = len(SYLLABLES)
    table = np.array(SYLLABLES)
    word = table[codes % base]
    for position in range(1, syllables):
        word = np.char.add(word, table[(codes // base ** position) % base])
    return np.char.capitalize(word)


DENSE_PAIRS = 2_000_000  # up to this many possible pairs, sample among them all


def zipf_weights(count: int, exponent: float, wanted: int, partners: int) -> np.ndarray:
    """Zipf weights by rank (rank 1 first), capped so that no node's expected degree over
    `wanted` draws exceeds half its `partners`: past that a hub only repeats pairs."""
    weights = 1.0 / np.arange(1, count + 1) ** exponent
    for _ in range(8):
        cap = 0.5 * partners * weights.sum() / max(wanted, 1)
        if weights[0] <= cap:
            break
        weights = np.minimum(weights, cap)
    return weights


def distinct_pairs(rng: np.random.Generator, n_x: int, n_y: int, wanted: int, exponent: float,
                   symmetric: bool, cover: tuple[bool, bool] = (False, False),
                   ) -> tuple[np.ndarray, np.ndarray]:
    """`wanted` distinct (x, y) position pairs (x != y when `symmetric`, one per unordered
    pair), endpoints Zipf-weighted with hubs at random positions; the count is exact unless
    fewer pairs exist. `cover`: every x (every y) gets at least one pair, as every PrimeKG
    node has an edge."""
    possible = n_x * (n_x - 1) // 2 if symmetric else n_x * n_y
    wanted = min(wanted, possible)
    partners = n_x - 1 if symmetric else n_y
    weight_x = zipf_weights(n_x, exponent, wanted, partners)[rng.permutation(n_x)]
    weight_y = weight_x if symmetric else zipf_weights(n_y, exponent, wanted, n_x)[
        rng.permutation(n_y)]
    covered = _covering(rng, n_x, n_y, weight_x, weight_y, symmetric, cover)[:wanted]
    if possible <= DENSE_PAIRS or wanted * 3 >= possible:
        keys = _weighted_among_all(rng, n_x, n_y, weight_x, weight_y, wanted, symmetric, covered)
    else:
        keys = _weighted_by_rounds(rng, n_x, n_y, weight_x, weight_y, wanted, symmetric, covered)
    keys = np.sort(keys)
    xs, ys = keys // n_y, keys % n_y
    if symmetric:  # either orientation is the fact's x side
        flip = rng.random(len(xs)) < 0.5
        xs, ys = np.where(flip, ys, xs), np.where(flip, xs, ys)
    return xs, ys


def _covering(rng: np.random.Generator, n_x: int, n_y: int, weight_x: np.ndarray,
              weight_y: np.ndarray, symmetric: bool, cover: tuple[bool, bool]) -> np.ndarray:
    """Pair keys giving each x (and/or y) one Zipf-drawn partner."""
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    if cover[0]:
        parts.append((np.arange(n_x), _draw(rng, weight_y, n_x)))
    if cover[1]:
        parts.append((_draw(rng, weight_x, n_y), np.arange(n_y)))
    keys = [np.empty(0, dtype=np.int64)]
    for xs, ys in parts:
        if symmetric:
            ys = np.where(ys == xs, (ys + 1) % n_y, ys)
            xs, ys = np.minimum(xs, ys), np.maximum(xs, ys)
        keys.append(xs.astype(np.int64) * n_y + ys)
    return rng.permutation(np.unique(np.concatenate(keys)))


def _draw(rng: np.random.Generator, weights: np.ndarray, size: int) -> np.ndarray:
    cumulative = np.cumsum(weights)
    return np.minimum(np.searchsorted(cumulative, rng.random(size) * cumulative[-1], "right"),
                      len(weights) - 1)


def _weighted_among_all(rng: np.random.Generator, n_x: int, n_y: int, weight_x: np.ndarray,
                        weight_y: np.ndarray, wanted: int, symmetric: bool,
                        covered: np.ndarray) -> np.ndarray:
    """Weighted sampling without replacement among every pair (Efraimidis-Spirakis: the
    `wanted` largest log(u) / weight), the covering pairs first."""
    xs, ys = np.divmod(np.arange(n_x * n_y, dtype=np.int64), n_y)
    if symmetric:
        upper = xs < ys
        xs, ys = xs[upper], ys[upper]
    score = np.log(rng.random(len(xs))) / (weight_x[xs] * weight_y[ys])
    score[np.isin(xs * n_y + ys, covered)] = np.inf
    chosen = np.argpartition(-score, wanted - 1)[:wanted] if wanted < len(xs) else \
        np.arange(len(xs))
    return xs[chosen] * n_y + ys[chosen]


def _weighted_by_rounds(rng: np.random.Generator, n_x: int, n_y: int, weight_x: np.ndarray,
                        weight_y: np.ndarray, wanted: int, symmetric: bool,
                        covered: np.ndarray) -> np.ndarray:
    """Sparse case: draw endpoint pairs independently, keep the new distinct ones, repeat
    for what duplicates took away (capped weights keep that short)."""
    cumulative_x, cumulative_y = np.cumsum(weight_x), np.cumsum(weight_y)
    keys = np.sort(covered)
    while len(keys) < wanted:
        size = int((wanted - len(keys)) * 1.2) + 16
        xs = np.searchsorted(cumulative_x, rng.random(size) * cumulative_x[-1], "right")
        ys = np.searchsorted(cumulative_y, rng.random(size) * cumulative_y[-1], "right")
        xs, ys = np.minimum(xs, n_x - 1), np.minimum(ys, n_y - 1)
        if symmetric:
            xs, ys = np.minimum(xs, ys), np.maximum(xs, ys)
            keep = xs != ys
            xs, ys = xs[keep], ys[keep]
        fresh = np.setdiff1d(np.unique(xs.astype(np.int64) * n_y + ys), keys,
                             assume_unique=True)
        keys = np.union1d(keys, rng.permutation(fresh)[:wanted - len(keys)])
    return keys


class SyntheticPrimeKG:
    def __init__(self, scale: float, seed: int = 0, zipf: float = ZIPF) -> None:
        if scale <= 0:
            raise ValueError("scale must be positive")
        self.scale = scale
        self.seed = seed
        self.zipf = zipf
        self.nodes: dict[str, np.ndarray] = {}
        start = 0
        for node_type, count in NODE_COUNTS.items():
            size = max(2, round(count * scale))
            self.nodes[node_type] = np.arange(start, start + size)
            start += size
        rng = np.random.default_rng([seed, 0])
        # Distinct names: a distinct code per node, spelled in syllables.
        codes = rng.choice(len(SYLLABLES) ** 5, size=start, replace=False)
        self.names = syllable_names(codes, 5).tolist()

    def facts(self) -> Iterator[tuple[str, str, str, str, np.ndarray, np.ndarray]]:
        """Per relation: (relation, display, x type, y type, x ids, y ids), one row per fact."""
        for number, (relation, (display, x_type, y_type, rows)) in enumerate(RELATIONS.items()):
            rng = np.random.default_rng([self.seed, 1, number])  # each relation on its own
            x_nodes, y_nodes = self.nodes[x_type], self.nodes[y_type]
            wanted = max(1, round(rows * self.scale / 2))
            exponent = HUB_ZIPF.get(relation, self.zipf)
            xs, ys = distinct_pairs(rng, len(x_nodes), len(y_nodes), wanted, exponent,
                                    symmetric=x_type == y_type,
                                    cover=(COVER.get(x_type) == relation,
                                           COVER.get(y_type) == relation))
            yield relation, display, x_type, y_type, x_nodes[xs], y_nodes[ys]

    def write_kg_csv(self, path: Path) -> int:
        """Write kg.csv (both directions, as the release does); returns the row count."""
        path.parent.mkdir(parents=True, exist_ok=True)
        type_of = np.empty(sum(len(v) for v in self.nodes.values()), dtype=object)
        for node_type, ids in self.nodes.items():
            type_of[ids] = node_type
        # Each node's four columns once; a row is then two lookups and a join. No field holds a
        # comma, quote or newline, so no quoting is needed.
        side = [f"{i},S{i},{type_of[i]},{name},SYNTH" for i, name in enumerate(self.names)]
        rows = 0
        with path.open("w", encoding="utf-8", newline="") as handle:
            handle.write(",".join(KG_HEADER) + "\n")
            for relation, display, _, _, xs, ys in self.facts():
                prefix = f"{relation},{display},"
                for a_ids, b_ids in ((xs, ys), (ys, xs)):
                    a_list, b_list = a_ids.tolist(), b_ids.tolist()
                    for start in range(0, len(a_list), CHUNK):
                        handle.write("".join([
                            f"{prefix}{side[a]},{side[b]}\n"
                            for a, b in zip(a_list[start:start + CHUNK],
                                            b_list[start:start + CHUNK], strict=True)]))
                    rows += len(a_list)
        return rows
