"""Parsing of the Wikidata-shaped KGs into KGData (no graph server): wikidata5m, wikidatasets.

Counts are checked against an independent pandas computation over the raw files.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from anyascii import anyascii
from shared_data import shared_data

from kgcert.errors import InputError
from kgcert.loaders import LoadOptions, get_loader
from kgcert.loaders.wikidata5m import DEFAULT_DROP, supporting_sentences
from kgcert.loaders.wikidata_common import (
    earliest_alias,
    generic_template,
    mentions,
    split_sentences,
)
from kgcert.store.kg_data import KGData


def load(fmt: str, *paths: Path, **options: Any) -> KGData:
    loader = get_loader(fmt, LoadOptions(**options))
    return loader.read(loader.source_files(list(paths)))


def edge_triples(data: KGData) -> list[tuple[str, str, str]]:
    return [(s, rel, t) for rel, table in data.edges.items()
            for s, t in zip(table.sources, table.targets, strict=True)]


def all_rows(data: KGData) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for table in data.nodes.values() for row in table.rows}


def read_tsv(path: Path, names: list[str] | None = None) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False, header=None if names
                       else "infer", names=names, quoting=3 if names else 0)


# --- wikidata5m: the countries KG in the release layout --------------------------------------

@pytest.fixture(scope="module")
def w5m_countries() -> tuple[Path, KGData]:
    folder = shared_data("wikidata5m_countries")
    return folder, load("wikidata5m", folder)


def test_wikidata5m_countries_counts_match_pandas(w5m_countries: tuple[Path, KGData]) -> None:
    folder, data = w5m_countries
    triples = read_tsv(folder / "wikidata5m_all_triplet.txt", ["h", "r", "t"])
    kept = triples[~triples.r.isin(DEFAULT_DROP)].drop_duplicates()
    assert len(kept) < len(triples)  # the filter removed something
    assert data.edge_count == len(kept)
    assert data.node_count == len(set(kept.h) | set(kept.t))
    assert data.counts()["relationship_types"] == dict(Counter(kept.r))
    assert set(data.nodes) == {"WikidataEntity"}
    assert sorted(edge_triples(data)) == sorted(kept.itertuples(index=False, name=None))
    assert not data.problems.count


def test_wikidata5m_countries_names_and_template_fallback(
    w5m_countries: tuple[Path, KGData],
) -> None:
    folder, data = w5m_countries
    labels = read_tsv(folder / "wikidata5m_alias" / "wikidata5m_entity.txt", ["id", "label"])
    label = dict(zip(labels.id, labels.label, strict=True))
    rows = all_rows(data)
    assert rows["Q31"]["name"] == "Belgium" and rows["Q31"]["aliases"] == ["Belgium"]
    folded = {qid: " ".join(anyascii(label[qid]).split()) for qid in rows}  # spaces normalised
    assert {qid: row["name"] for qid, row in rows.items()} == folded
    # No texts: every relation reads through a template, no edge carries sentences.
    assert all(r.template.count("{source}") == 1 and "{target}" in r.template
               for r in data.relations)
    assert all(table.properties is None for table in data.edges.values())
    assert any("no wikidata5m_text.txt" in note for note in data.notes)
    assert any("5,969" in note and "P31" in note for note in data.notes)
    relation = {r.type: r for r in data.relations}
    assert relation["P36"].name == "capital"
    assert relation["P36"].sentence("Belgium", "Brussels") == "Belgium has Brussels as capital."


def test_wikidata5m_drop_relations_setting() -> None:
    folder = shared_data("wikidata5m_countries")
    everything = load("wikidata5m", folder, settings={"drop_relations": []})
    assert everything.edge_count == 63_313
    only_p31 = load("wikidata5m", folder, settings={"drop_relations": "P31"})
    assert only_p31.edge_count == 63_313 - 5_969
    assert "P31" not in only_p31.edges and "P279" in only_p31.edges


# --- wikidata5m text handling on real texts ---------------------------------------------------

@pytest.fixture(scope="module")
def text_sample() -> tuple[Path, dict[str, str], dict[str, str]]:
    folder = shared_data("wikidata5m_text_sample")
    texts = read_tsv(folder / "wikidata5m_text.txt", ["id", "text"])
    labels = read_tsv(folder / "wikidata5m_entity.txt", ["id", "label"])
    return (folder, dict(zip(texts.id, texts.text, strict=True)),
            dict(zip(labels.id, labels.label, strict=True)))


def test_sentence_split_keeps_all_text(text_sample: Any) -> None:
    _, texts, _ = text_sample
    assert len(texts) == 1000
    counts = []
    for text in texts.values():
        sentences = split_sentences(text)
        assert "".join(sentences).replace(" ", "") == text.replace(" ", "")
        assert all(s == s.strip() and s for s in sentences)
        counts.append(len(sentences))
    assert sum(counts) > 2 * len(texts)  # real paragraphs are split, not kept whole
    assert split_sentences(texts["Q957142"]) == [
        "Mariana Pimentel is a municipality in the state of Rio Grande do Sul, Brazil.",
        "It is located approximately 75 km from the state's capital, Porto Alegre.",
    ]


def _regex_mentions(sentences: list[str], alias: str) -> list[int]:
    """Independent whole-word, any-case check: the alias's words with non-word gaps."""
    tokens = re.findall(r"\w+", alias)
    pattern = re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, tokens)) + r"(?!\w)",
                         re.IGNORECASE)
    return [i for i, s in enumerate(sentences) if pattern.search(s)]


def test_alias_mentions_agree_with_a_regex(text_sample: Any) -> None:
    _, texts, labels = text_sample
    # Labels that occur in other entities' texts, plus a slice of all the others.
    chosen = ["Slava", "Singles", "Play", "relay", "Adventure", "2nd Infantry Division"]
    chosen += [lab for lab in sorted(labels.values())[:60] if len("".join(lab.split())) > 1]
    hits = 0
    for text in list(texts.values())[:400]:
        sentences = split_sentences(text)
        for alias in chosen:
            found = mentions(sentences, [alias])
            assert found == _regex_mentions(sentences, alias), (alias, text[:80])
            hits += bool(found)
    assert hits > 20
    # Whole words only, any case.
    assert mentions(["Playmation is a toy.", "A PLAY by Beckett."], ["play"]) == [1]
    assert mentions(["Guinea-Bissau borders Senegal."], ["Guinea"]) == [0]
    assert mentions(["Nothing here."], ["A", "x"]) == []  # one-letter aliases are not matched


def test_earliest_alias_and_ascii_folding(text_sample: Any) -> None:
    _, texts, _ = text_sample
    seals = texts["Q2557820"]
    assert earliest_alias(seals, ["Dan Seals", "Seals", "Danny Wayland Seals"]) == \
        "Danny Wayland Seals"  # earliest, and the longest of those starting there
    assert earliest_alias(seals, ["Dan Seals", "England Dan"]) == "England Dan"
    assert earliest_alias(seals, ["Nobody"]) is None
    podpulfrca = texts["Q2588704"]
    assert "Škofja Loka" in podpulfrca
    folded = anyascii(podpulfrca)
    assert folded.isascii() and "Skofja Loka" in folded
    sentences = split_sentences(folded)
    assert mentions(sentences, [anyascii("Škofja Loka")]) == [0]
    assert mentions(split_sentences(podpulfrca), ["Skofja Loka"]) == []  # unfolded: no match


def test_supporting_sentences_order_and_cap() -> None:
    support = [f"s{i}." for i in range(12)]
    assert supporting_sentences(support[:2], ["f1.", "f2."], 10) == ["s0.", "s1.", "f1.", "f2."]
    capped = supporting_sentences(support, ["f1.", "s0."], 10)
    assert capped == [*support[:9], "f1."]  # room is kept for the first sentence not present
    assert supporting_sentences(["a."], ["a.", "a."], 10) == ["a."]


@pytest.fixture()
def synthetic_w5m(tmp_path: Path, text_sample: Any) -> tuple[list[Path], dict[str, str]]:
    """A tiny Wikidata5m over real sample entities: triples and aliases here, texts real."""
    folder, texts, labels = text_sample
    triples = [
        ("Q2557820", "P264", "Q7524035"),    # Dan Seals - Singles: his text mentions singles
        ("Q2557820", "P136", "Q7524035"),    # parallel edge, same support
        ("Q2557820", "P264", "Q7524035"),    # exact duplicate
        ("Q2588704", "P131", "Q99000001"),   # Podpulfrca - Škofja Loka (no text): folded match
        ("Q957142", "P17", "Q2588704"),      # neither text mentions the other: unsupported
        ("Q957142", "P31", "Q2557820"),      # dropped relation
        ("Q957142", "P47", "Q99000002"),     # entity with no alias and no text: unsupported
    ]
    (tmp_path / "wikidata5m_all_triplet.txt").write_text(
        "".join("\t".join(t) + "\n" for t in triples), encoding="utf-8")
    aliases = {qid: [labels[qid]] for qid in ("Q2557820", "Q7524035", "Q2588704", "Q957142")}
    aliases["Q2557820"] += ["Danny Wayland Seals", "Seals"]
    aliases["Q99000001"] = ["Škofja Loka", "Skofja Loka"]
    (tmp_path / "wikidata5m_entity.txt").write_text(
        "".join("\t".join([q, *a]) + "\n" for q, a in aliases.items()), encoding="utf-8")
    relations = {"P264": "record label", "P136": "genre", "P131": "located in the "
                 "administrative territorial entity", "P17": "country", "P31": "instance of",
                 "P47": "shares border with"}
    (tmp_path / "wikidata5m_relation.txt").write_text(
        "".join(f"{p}\t{name}\n" for p, name in relations.items()), encoding="utf-8")
    return [tmp_path, folder / "wikidata5m_text.txt"], texts


def test_supporting_sentences_end_to_end(synthetic_w5m: Any) -> None:
    paths, texts = synthetic_w5m
    data = load("wikidata5m", *paths)
    triples = sorted(edge_triples(data))
    assert triples == [("Q2557820", "P136", "Q7524035"), ("Q2557820", "P264", "Q7524035"),
                       ("Q2588704", "P131", "Q99000001")]
    seals = split_sentences(anyascii(texts["Q2557820"]))
    singles = split_sentences(anyascii(texts["Q7524035"]))
    expected_support = [s for s in seals if re.search(r"\bsingles?\b", s, re.I)
                        and re.search(r"\bsingles\b", s, re.I)]
    expected_support += [s for s in singles if re.search(r"\bseals\b", s, re.I)]
    assert len(expected_support) >= 4
    table = data.edges["P264"]
    assert table.properties is not None
    sentences = table.properties[0]["sentences"]
    firsts = [seals[0], singles[0]]
    assert sentences == supporting_sentences(expected_support, firsts, 10)
    assert sentences[-2:] == firsts and len(sentences) <= 10
    assert data.edges["P136"].properties == table.properties  # the parallel edge too
    rows = all_rows(data)
    assert rows["Q2557820"]["name"] == "Danny Wayland Seals"
    assert rows["Q2557820"]["aliases"] == ["Dan Seals", "Danny Wayland Seals", "Seals"]
    assert rows["Q99000001"] == {"id": "Q99000001", "name": "Skofja Loka",
                                 "aliases": ["Skofja Loka"], "type": "WikidataEntity"}
    assert rows["Q2588704"]["description"].isascii()
    podpulfrca = data.edges["P131"].properties
    assert podpulfrca is not None and "Skofja Loka" in podpulfrca[0]["sentences"][0]
    assert "Q957142" not in rows  # its edges were unsupported or filtered
    assert all(r.template == "" for r in data.relations)
    assert any(n.startswith("dropped 2 of 5 edges with no supporting sentence") and
               n.endswith("(unsupported_edges=drop; =template keeps them)") for n in data.notes)
    assert any("collapsed 1 exact duplicate" in n for n in data.notes)


def test_unsupported_edges_template_and_no_folding(synthetic_w5m: Any) -> None:
    paths, _ = synthetic_w5m
    data = load("wikidata5m", *paths, ascii_fold=False,
                settings={"unsupported_edges": "template", "max_sentences": 3})
    assert data.edge_count == 5
    rows = all_rows(data)
    assert rows["Q99000002"]["name"] == "Q99000002"  # no alias: named by its QID
    assert "Škofja" in rows["Q2588704"]["description"]
    p17 = data.edges["P17"].properties
    assert p17 == [{}]  # kept, no sentences: read through the template
    relation = {r.type: r for r in data.relations}
    assert relation["P17"].sentence("A", "B") == "A has B as country."
    p264 = data.edges["P264"].properties
    assert p264 is not None and len(p264[0]["sentences"]) == 3
    assert any(n.startswith("kept 2 of 5 edges with no supporting sentence") and
               "read through their relation's template sentence" in n for n in data.notes)


# --- wikidata5m bad input ---------------------------------------------------------------------

def _w5m_dir(tmp_path: Path, triples: bytes) -> Path:
    (tmp_path / "wikidata5m_all_triplet.txt").write_bytes(triples)
    (tmp_path / "wikidata5m_entity.txt").write_text("Q1\tOne\nQ2\tTwo\n", encoding="utf-8")
    (tmp_path / "wikidata5m_relation.txt").write_text("P9\tnine\n", encoding="utf-8")
    return tmp_path


def test_wikidata5m_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load("wikidata5m", tmp_path / "nope")
    with pytest.raises(InputError, match="wikidata5m_all_triplet.txt"):
        load("wikidata5m", tmp_path)
    folder = _w5m_dir(tmp_path, b"Q1\tP9\tQ2\nQ2\tP9\nQ2\tP9\tQ1\n\nQ1\t\tQ2\n")
    data = load("wikidata5m", folder)
    assert data.edge_count == 2
    assert data.problems.count == 2
    assert data.problems.examples == ["wikidata5m_all_triplet.txt:2",
                                      "wikidata5m_all_triplet.txt:5"]
    with pytest.raises(InputError, match=r"wikidata5m_all_triplet.txt:2: malformed"):
        load("wikidata5m", folder, strict=True)
    (folder / "wikidata5m_all_triplet.txt").write_bytes(b"Q1,P9,Q2\n")
    with pytest.raises(InputError, match=r"head entity, relation, tail entity.*line 1"):
        load("wikidata5m", folder)
    (folder / "wikidata5m_all_triplet.txt").write_bytes(b"Q1\tP9\tQ2\nQ2\tP9\tQ\xff1\n")
    with pytest.raises(InputError, match="not valid UTF-8 at line 2"):
        load("wikidata5m", folder)
    (folder / "wikidata5m_relation.txt").unlink()
    with pytest.raises(InputError, match="no wikidata5m_relation.txt"):
        load("wikidata5m", folder)


def test_wikidata5m_bad_settings(tmp_path: Path) -> None:
    folder = _w5m_dir(tmp_path, b"Q1\tP9\tQ2\n")
    with pytest.raises(InputError, match="unknown setting.*drop_relation"):
        load("wikidata5m", folder, settings={"drop_relation": "P31"})
    with pytest.raises(InputError, match="unsupported_edges must be"):
        load("wikidata5m", folder, settings={"unsupported_edges": "keep"})


def test_wikidata5m_transductive_splits(tmp_path: Path) -> None:
    folder = _w5m_dir(tmp_path, b"")
    (folder / "wikidata5m_all_triplet.txt").unlink()
    alias = folder / "wikidata5m_alias"
    alias.mkdir()
    for name in ("wikidata5m_entity.txt", "wikidata5m_relation.txt"):
        (folder / name).rename(alias / name)
    for split, line in (("train", "Q1\tP9\tQ2\n"), ("valid", "Q2\tP9\tQ1\n"),
                        ("test", "Q1\tP9\tQ2\n")):
        (folder / f"wikidata5m_transductive_{split}.txt").write_text(line, encoding="utf-8")
    data = load("wikidata5m", folder)
    assert sorted(edge_triples(data)) == [("Q1", "P9", "Q2"), ("Q2", "P9", "Q1")]
    assert {r["name"] for r in all_rows(data).values()} == {"One", "Two"}


# --- wikidatasets: the KG-LLM-Bench countries KG ---------------------------------------------

@pytest.fixture(scope="module")
def countries() -> tuple[Path, KGData]:
    folder = shared_data("countries")
    return folder, load("wikidatasets", folder)


def test_countries_keeps_every_fact(countries: tuple[Path, KGData]) -> None:
    folder, data = countries
    entities = read_tsv(folder / "entities.tsv")
    relations = read_tsv(folder / "relations.tsv")
    facts = pd.concat([read_tsv(folder / "edges.tsv"), read_tsv(folder / "attributes.tsv")])
    qid = dict(zip(entities.entityID, entities.wikidataID, strict=True))
    pid = dict(zip(relations.relationID, relations.wikidataID, strict=True))
    expected = sorted(zip(facts.headEntity.map(qid), facts.relation.map(pid),
                          facts.tailEntity.map(qid), strict=True))
    assert len(expected) == 63_313
    got = sorted(edge_triples(data))
    assert got == expected
    assert sum(s == t for s, _, t in got) == (facts.headEntity == facts.tailEntity).sum() > 0
    pairs = Counter((s, t) for s, _, t in got)
    parallel = sum(n - 1 for n in pairs.values())
    assert parallel == facts.duplicated(["headEntity", "tailEntity"]).sum() == 2_392
    referenced = set(facts.headEntity) | set(facts.tailEntity)
    assert data.node_count == len(referenced)
    core = set(read_tsv(folder / "nodes.tsv").entityID) & referenced
    assert len(data.nodes["Country"].rows) == len(core)
    assert len(data.nodes["WikidataEntity"].rows) == len(referenced - core)
    assert not data.problems.count


def test_countries_names_labels_relations(countries: tuple[Path, KGData]) -> None:
    folder, data = countries
    rows = all_rows(data)
    entities = read_tsv(folder / "entities.tsv")
    assert len(rows) == data.node_count  # ids are unique ...
    names = Counter(row["name"] for row in rows.values())
    folded = entities.label.map(anyascii)
    assert sum(n - 1 for n in names.values()) == folded.duplicated().sum() > 2000
    assert rows["Q31"] == {"id": "Q31", "name": "Belgium", "aliases": ["Belgium"],
                           "type": "Country"}
    assert rows["Q127958"]["name"] == 'Thessaloniki Airport "Makedonia"'  # CSV quoting read
    kinds = {(r.type, r.source_type, r.target_type) for r in data.relations}
    assert len(kinds) == len(data.relations)
    assert len({r.type for r in data.relations}) == 166
    assert ("P530", "Country", "Country") in kinds
    shares = next(r for r in data.relations if r.type == "P47")
    assert shares.sentence("Belgium", "France") == "Belgium shares border with France."


def test_countries_core_only_and_core_label() -> None:
    folder = shared_data("countries")
    data = load("wikidatasets", folder,
                settings={"include_attributes": False, "core_label": "Nation"})
    assert data.edge_count == 11_361
    assert set(data.nodes) <= {"Nation", "WikidataEntity"}
    assert "Nation" in data.nodes


def test_generic_template_reads_as_a_sentence() -> None:
    assert generic_template("capital of") == "{source} is capital of {target}."
    assert generic_template("located in time zone") == "{source} is located in time zone {target}."
    assert generic_template("currency") == "{source} has {target} as currency."
    assert generic_template("contains settlement") == "{source} contains settlement {target}."
    assert generic_template("  ") == "{source} is related to {target}."


# --- wikidatasets bad input -------------------------------------------------------------------

def _wds_dir(tmp_path: Path, edges: str) -> Path:
    (tmp_path / "entities.tsv").write_text(
        "entityID\twikidataID\tlabel\n0\tQ1\tOne\n1\tQ2\tTwo\n2\tQ3\tOne\n", encoding="utf-8")
    (tmp_path / "relations.tsv").write_text(
        "relationID\twikidataID\tlabel\n0\tP9\tnine\n", encoding="utf-8")
    (tmp_path / "edges.tsv").write_text(edges, encoding="utf-8")
    return tmp_path


def test_wikidatasets_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load("wikidatasets", tmp_path / "missing")
    with pytest.raises(InputError, match="no entities.tsv"):
        load("wikidatasets", tmp_path)
    header = "headEntity\ttailEntity\trelation\n"
    folder = _wds_dir(tmp_path, header + "0\t1\t0\n0\t1\n2\t2\t0\n0\t7\t0\n1\t0\t5\n")
    data = load("wikidatasets", folder)
    assert sorted(edge_triples(data)) == [("Q1", "P9", "Q2"), ("Q3", "P9", "Q3")]
    assert data.problems.count == 3
    assert data.problems.examples[0] == "edges.tsv:3 (2 fields, expected 3)"
    assert "edges.tsv:5 (entity 7 not in entities.tsv)" in data.problems.examples[1]
    assert "relation 5 not in relations.tsv" in data.problems.examples[2]
    assert {r["name"] for r in all_rows(data).values()} == {"One", "Two"}
    assert data.node_count == 3  # two entities named One stay two
    assert any("no attributes.tsv" in n for n in data.notes)
    with pytest.raises(InputError, match="edges.tsv:3: malformed row"):
        load("wikidatasets", folder, strict=True)
    _wds_dir(tmp_path, header + "0\t7\t0\n")
    with pytest.raises(InputError, match="entity 7 not in entities.tsv.*endpoint absent"):
        load("wikidatasets", folder, strict=True)
    _wds_dir(tmp_path, "headEntity\ttail\trelation\n0\t1\t0\n")
    with pytest.raises(InputError, match="missing column.*tailEntity"):
        load("wikidatasets", folder)
    (folder / "edges.tsv").write_bytes(header.encode() + b"0\t1\t0\n1\t\xe9\t0\n")
    with pytest.raises(InputError, match="not valid UTF-8 (near|at) line 3"):
        load("wikidatasets", folder)
