"""A synthetic graph in the Wikidata5m release layout, for scale tests of loading and text work.

At scale 1.0: 4,594,485 entities, 822 relations, 20,614,279 distinct triples (the published
transductive size), every entity with an abstract. Triples: Zipf-weighted heads and tails
(hubs at random ids) and Zipf relation frequencies, with the paper's dropped relations (P31,
P279, P361, P2184, P2633) among the most frequent as in the real data. Entities have 1 to 4
aliases, relations 2 to 3. Abstracts open with a sentence naming the entity, then mention
some neighbours by one of their aliases (most facts get such a sentence, in the head's or the
tail's text), and carry sentences that mention nobody, so the loader's support-sentence
preprocessing finds, drops and caps real sentences. Deterministic by seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from kgcert.synth.primekg import CHUNK, SYLLABLES, syllable_names

ENTITIES = 4_594_485
RELATIONS = 822
TRIPLES = 20_614_279
DROPPED = ("P31", "P279", "P361", "P2184", "P2633")  # ranks 1, 2, 4, 8, 16 by frequency
MENTIONED = 0.85  # share of facts that get a sentence naming the other end
MAX_MENTIONS = 12  # per abstract: hubs' texts stay short, as real abstracts do
KINDS = ["place", "person", "organisation", "creative work", "species", "event"]
FILLERS = ["It was first recorded in {}.", "Its history spans {} years.",
           "Records list {} sources about it."]


@dataclass(frozen=True)
class Sizes:
    entities: int
    relations: int
    triples: int


def sizes(scale: float) -> Sizes:
    """Entities and triples scale linearly; relations with the square root (a small graph
    still uses many relations), all 822 at scale 1."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    return Sizes(max(50, round(ENTITIES * scale)),
                 min(RELATIONS, max(20, round(RELATIONS * min(scale, 1.0) ** 0.5))),
                 max(100, round(TRIPLES * scale)))


def _relation_ids(count: int) -> list[str]:
    others = (f"P{k}" for k in range(1, 10**6) if f"P{k}" not in DROPPED)
    ids = [next(others) for _ in range(count)]
    for rank, pid in zip((0, 1, 3, 7, 15), DROPPED, strict=True):
        if rank < count:
            ids[rank] = pid
    return ids


def _zipf(rng: np.random.Generator, count: int, size: int, exponent: float) -> np.ndarray:
    """Zipf-distributed ranks 0..count-1 (rank 0 the most frequent)."""
    cumulative = np.cumsum(1.0 / np.arange(1, count + 1) ** exponent)
    return np.minimum(np.searchsorted(cumulative, rng.random(size) * cumulative[-1], "right"),
                      count - 1)


class SyntheticWikidata5m:
    def __init__(self, scale: float, seed: int = 0) -> None:
        self.scale = scale
        self.seed = seed
        self.sizes = sizes(scale)
        self.relation_ids = _relation_ids(self.sizes.relations)

    def triples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct (head, relation, tail) positions, no self-loops, sorted."""
        rng = np.random.default_rng([self.seed, 0])
        n_e, n_r, wanted = self.sizes.entities, self.sizes.relations, self.sizes.triples
        hub_heads, hub_tails = rng.permutation(n_e), rng.permutation(n_e)  # hubs anywhere
        keys = np.empty(0, dtype=np.int64)
        while len(keys) < wanted:
            size = int((wanted - len(keys)) * 1.1) + 16
            heads = hub_heads[_zipf(rng, n_e, size, 0.9)]
            tails = hub_tails[_zipf(rng, n_e, size, 1.0)]
            rels = _zipf(rng, n_r, size, 1.1)  # relation position = frequency rank
            keep = heads != tails
            fresh = (heads[keep].astype(np.int64) * n_r + rels[keep]) * n_e + tails[keep]
            fresh = np.setdiff1d(np.unique(fresh), keys, assume_unique=True)
            keys = np.union1d(keys, rng.permutation(fresh)[:wanted - len(keys)])
        heads, rest = np.divmod(keys, n_r * n_e)
        rels, tails = np.divmod(rest, n_e)
        return heads, rels, tails

    def entity_aliases(self) -> list[list[str]]:
        rng = np.random.default_rng([self.seed, 1])
        n_e = self.sizes.entities
        codes = rng.choice(len(SYLLABLES) ** 6, size=n_e, replace=False)
        first = syllable_names(codes % len(SYLLABLES) ** 3, 3).tolist()
        second = syllable_names(codes // len(SYLLABLES) ** 3, 3).tolist()
        counts = (1 + rng.binomial(3, 0.5, size=n_e)).tolist()
        prefixes = ["Saint", "Mount", "Lake", "House of"]
        prefix = rng.integers(0, len(prefixes), size=n_e).tolist()
        return [[f"{a} {b}", f"{b} {a}", f"{prefixes[p]} {a} {b}", f"{a}-{b}"][:k]
                for a, b, k, p in zip(first, second, counts, prefix, strict=True)]

    def relation_aliases(self) -> list[list[str]]:
        rng = np.random.default_rng([self.seed, 2])
        n_r = self.sizes.relations
        stems = syllable_names(rng.choice(len(SYLLABLES) ** 3, size=n_r, replace=False),
                               3).tolist()
        counts = (2 + rng.integers(0, 2, size=n_r)).tolist()
        return [[f"{s.lower()} of", f"has {s.lower()}", f"{s.lower()}ed by"][:k]
                for s, k in zip(stems, counts, strict=True)]

    def abstracts(self, heads: np.ndarray, rels: np.ndarray, tails: np.ndarray,
                  entity_aliases: list[list[str]],
                  relation_aliases: list[list[str]]) -> list[str]:
        """One abstract per entity: its opening sentence, then up to MAX_MENTIONS sentences
        naming a neighbour by one of its aliases, then a sentence naming nobody."""
        rng = np.random.default_rng([self.seed, 3])
        n_e = self.sizes.entities
        mentioned = np.flatnonzero(rng.random(len(heads)) < MENTIONED)
        in_head = rng.random(len(mentioned)) < 0.7  # written in the head's text, else the tail's
        owner = np.where(in_head, heads[mentioned], tails[mentioned])
        other = np.where(in_head, tails[mentioned], heads[mentioned])
        order = np.lexsort((rng.random(len(owner)), owner))  # random order within each owner
        owner, other, fact = owner[order], other[order], mentioned[order]
        starts = np.searchsorted(owner, np.arange(n_e + 1))
        rank = np.arange(len(owner)) - starts[owner]
        keep = rank < MAX_MENTIONS
        owner, other, fact = owner[keep], other[keep], fact[keep]
        alias_pick = rng.random(len(other))
        sentences = [
            f"It is {relation_aliases[r][0]} {entity_aliases[o][int(u * len(entity_aliases[o]))]}."
            for r, o, u in zip(rels[fact].tolist(), other.tolist(), alias_pick.tolist(),
                               strict=True)]
        bounds = np.searchsorted(owner, np.arange(n_e + 1)).tolist()
        kinds = rng.integers(0, len(KINDS), size=n_e).tolist()
        fillers = rng.integers(0, len(FILLERS), size=n_e).tolist()
        numbers = rng.integers(2, 1999, size=n_e).tolist()
        return [" ".join([f"{entity_aliases[e][0]} is a {KINDS[kinds[e]]}.",
                          *sentences[bounds[e]:bounds[e + 1]],
                          FILLERS[fillers[e]].format(numbers[e])])
                for e in range(n_e)]

    def write(self, folder: Path) -> dict[str, int]:
        """The release layout under `folder`; returns counts of what was written."""
        alias_folder = folder / "wikidata5m_alias"
        alias_folder.mkdir(parents=True, exist_ok=True)
        heads, rels, tails = self.triples()
        qids = [f"Q{i + 1}" for i in range(self.sizes.entities)]
        pids = self.relation_ids
        _write_lines(folder / "wikidata5m_all_triplet.txt", (
            f"{qids[h]}\t{pids[r]}\t{qids[t]}\n"
            for h, r, t in zip(heads.tolist(), rels.tolist(), tails.tolist(), strict=True)))
        entity_aliases, relation_aliases = self.entity_aliases(), self.relation_aliases()
        _write_lines(alias_folder / "wikidata5m_entity.txt",
                     ("\t".join([qid, *aliases]) + "\n"
                      for qid, aliases in zip(qids, entity_aliases, strict=True)))
        _write_lines(alias_folder / "wikidata5m_relation.txt",
                     ("\t".join([pid, *aliases]) + "\n"
                      for pid, aliases in zip(pids, relation_aliases, strict=True)))
        texts = self.abstracts(heads, rels, tails, entity_aliases, relation_aliases)
        _write_lines(folder / "wikidata5m_text.txt",
                     (f"{qid}\t{text}\n" for qid, text in zip(qids, texts, strict=True)))
        return {"entities": len(qids), "relations": len(pids), "triples": len(heads),
                "texts": len(texts)}


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    iterator = iter(lines)
    with path.open("w", encoding="utf-8", newline="") as handle:
        while chunk := list(islice(iterator, CHUNK)):
            handle.write("".join(chunk))
