"""Wikidata5m (Wang et al. 2021), preprocessed as LLMCert-C describes (Appendix D.2.1, D.6.1).

Files of the release (a directory is searched, with its subfolders, or the files are given):
- triples: wikidata5m_all_triplet.txt, else the transductive split files
  (wikidata5m_transductive_train/valid/test.txt), else the inductive ones; `QID<TAB>PID<TAB>QID`.
  A file given by path under another name is read as triples.
- wikidata5m_entity.txt and wikidata5m_relation.txt (`ID<TAB>alias<TAB>alias...`), required.
- wikidata5m_text.txt (`QID<TAB>text`), optional.

Preprocessing:
- Relations in the `drop_relations` setting are left out (default P31 instance of, P279
  subclass of, P361 part of, P2184, P2633). Exact duplicate triples collapse; parallel
  edges (one pair, several relations) and self-loops are kept.
- Nodes are the entities of the kept edges, labelled WikidataEntity. `name` is the alias
  that occurs earliest in the entity's text (else its first alias; else its QID),
  `aliases` all its aliases, `description` its text.
- Relationship type = property id; the relation's name is its first alias.
- With texts: each edge (u, v) carries `sentences`: the sentences of u's text that mention
  an alias of v and of v's text that mention an alias of u (whole words, any case), then
  the first sentence of each text, at most `max_sentences` (default 10) in all; the first
  sentences are kept within the cap. An edge with no mentioning sentence is dropped
  (`unsupported_edges: drop`, as the paper does) or kept with only the relation's template
  sentence (`unsupported_edges: template`).
- Without a text file, every edge is kept and read through its relation's template.
- Display text is ASCII-folded unless --no-ascii (aliases are matched after folding).
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist
from kgcert.loaders.wikidata_common import (
    check_settings,
    earliest_alias,
    generic_template,
    read_tab_lines,
    setting_list,
    split_sentences,
)
from kgcert.loading import progress as loadprogress
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo

if TYPE_CHECKING:  # numpy and Arrow load with a Wikidata5m read, not with `kgcert formats`
    import numpy as np

    from kgcert.loaders import wikidata5m_columns as columns
    from kgcert.loaders import wikidata5m_tables as tables

LABEL = "WikidataEntity"
PAIRING = "pairing sentences"  # a load phase (kgcert/loading/progress.py), after the matching
BUILDING = "building edges"
ALL_TRIPLES = "wikidata5m_all_triplet.txt"
SPLITS = {
    "transductive": tuple(f"wikidata5m_transductive_{s}.txt" for s in ("train", "valid", "test")),
    "inductive": tuple(f"wikidata5m_inductive_{s}.txt" for s in ("train", "valid", "test")),
}
ENTITY_FILE = "wikidata5m_entity.txt"
RELATION_FILE = "wikidata5m_relation.txt"
TEXT_FILE = "wikidata5m_text.txt"
DEFAULT_DROP = ("P31", "P279", "P361", "P2184", "P2633")
SETTINGS = ("drop_relations", "unsupported_edges", "max_sentences")
TRIPLE_COLUMNS = ("head entity", "relation", "tail entity")
TRIPLE_KINDS = ("key", "type", "key")

Triple = tuple[str, str, str]


def _search(paths: Sequence[Path], name: str) -> Path | None:
    """`name` among the given files, or in a given directory or its subfolders (2 levels)."""
    for path in paths:
        if path.is_file() and path.name == name:
            return path
    for path in paths:
        if path.is_dir():
            for pattern in (name, f"*/{name}", f"*/*/{name}"):
                found = sorted(p for p in path.glob(pattern) if p.is_file())
                if found:
                    return found[0]
    return None


def supporting_sentences(
    support: Sequence[str], firsts: Sequence[str], cap: int
) -> list[str]:
    """Supporting sentences, then the first sentences not among them; at most `cap`,
    keeping room for the first sentences."""
    extra: list[str] = []
    for sentence in firsts:
        if sentence and sentence not in support and sentence not in extra:
            extra.append(sentence)
    kept = list(support[: max(0, cap - len(extra))])
    return (kept + extra)[:cap]


class Wikidata5mLoader(Loader):
    format = "wikidata5m"
    summary = ("Wikidata5m release: triples + wikidata5m_entity/relation.txt aliases "
               "(+ wikidata5m_text.txt)")

    # --- files ---------------------------------------------------------------------------

    def source_files(self, paths: Sequence[Path]) -> list[Path]:
        check_paths_exist(paths)
        named = {ENTITY_FILE, RELATION_FILE, TEXT_FILE}
        triples = [p for p in paths if p.is_file() and p.name not in named]
        if not triples:
            found = _search(paths, ALL_TRIPLES)
            if found:
                triples = [found]
            else:
                for names in SPLITS.values():
                    triples = [f for f in (_search(paths, n) for n in names) if f]
                    if triples:
                        break
        shown = ", ".join(str(p) for p in paths)
        text = _search(paths, TEXT_FILE)
        if not triples and text is not None:
            # Texts without triples: load the entities alone, with their sentences split.
            entities = _search(paths, ENTITY_FILE)
            return [f for f in (entities, text) if f is not None]
        if not triples:
            raise InputError(
                f"no triples file ({ALL_TRIPLES} or wikidata5m_transductive_*.txt) in {shown}"
            )
        files = list(triples)
        for name in (ENTITY_FILE, RELATION_FILE):
            found = _search(paths, name)
            if found is None:
                raise InputError(f"no {name} (aliases, in wikidata5m_alias/) found in {shown}")
            files.append(found)
        if text is not None:
            files.append(text)
        return files

    # --- settings ------------------------------------------------------------------------

    def _settings(self) -> tuple[set[str], str, int]:
        settings = self.options.settings
        check_settings(settings, SETTINGS, self.format)
        drop = set(setting_list(settings.get("drop_relations", list(DEFAULT_DROP)),
                                "drop_relations"))
        unsupported = str(settings.get("unsupported_edges", "drop"))
        if unsupported not in ("drop", "template"):
            raise InputError(f"unsupported_edges must be drop or template, got {unsupported!r}")
        try:
            cap = int(settings.get("max_sentences", 10))
        except (TypeError, ValueError):
            cap = 0
        if cap < 1:
            raise InputError(
                f"max_sentences must be a positive integer, got {settings.get('max_sentences')!r}"
            )
        return drop, unsupported, cap

    # --- reading -------------------------------------------------------------------------

    def read(self, files: Sequence[Path]) -> KGData:
        # The reading makes millions of short-lived lists and no cycles: the collector's
        # passes over them cost about a quarter of the time.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._read(files)
        finally:
            if enabled:
                gc.enable()

    def _read(self, files: Sequence[Path]) -> KGData:
        import numpy as np

        from kgcert.loaders import wikidata5m_columns as columns
        from kgcert.loaders import wikidata5m_tables as tables

        drop, unsupported, cap = self._settings()
        by_name = {f.name: f for f in files}
        text_file = by_name.get(TEXT_FILE)
        if RELATION_FILE not in by_name and text_file is not None:
            return self._entities_only(by_name.get(ENTITY_FILE), text_file)
        entity_file, relation_file = by_name[ENTITY_FILE], by_name[RELATION_FILE]
        triple_files = [f for f in files if f not in (entity_file, relation_file, text_file)]
        data = KGData()
        strict = self.options.strict

        # Columns, not Python objects per triple or entity (wikidata5m_columns.py).
        triples = columns.read_triples(triple_files, drop, data.problems, strict)
        if triples.dropped:
            shown = ", ".join(f"{rel} {n:,}" for rel, n in sorted(triples.dropped.items()))
            data.notes.append(f"left out {sum(triples.dropped.values()):,} triples of the "
                              f"relations in drop_relations ({shown})")
        if triples.duplicates:
            data.notes.append(f"collapsed {triples.duplicates} exact duplicate triples")
        entities = triples.entities
        aliases, has_aliases = columns.read_aliases(entity_file, entities, self.options.fold,
                                                    data.problems, strict)
        relation_aliases = self._aliases(relation_file, set(triples.relations.to_pylist()),
                                         ("relation", "alias"), data)
        keep = np.ones(len(triples.heads), dtype=bool)
        texts = matched = pairs = None
        if text_file is None:
            data.notes.append(
                "no wikidata5m_text.txt: all edges kept and read through their relation's "
                "template sentence"
            )
        else:
            texts = columns.read_texts_column(text_file, entities, data.problems, strict)
            offsets, neighbours = columns.neighbour_lists(triples.heads, triples.tails,
                                                          len(entities))
            matched = columns.match_texts(texts, entities, aliases, offsets, neighbours,
                                          self.options.fold)
            del offsets, neighbours
            pairs = tables.pair_sentences(triples.heads, triples.tails, len(entities), matched,
                                          cap, PAIRING)
            tables.keep_paired_sentences(matched, pairs)
            supported = pairs.supported[pairs.pair_of_fact]
            self._note_unsupported(int((~supported).sum()), len(supported), unsupported, data)
            if unsupported == "drop":
                keep = supported
        self._build(data, triples, keep, aliases, relation_aliases, texts, matched, pairs,
                    templates=text_file is None or unsupported == "template")
        missing = int((~has_aliases).sum())
        if missing:
            data.notes.append(f"{missing} entities have no alias; named by their QID")
        return data

    @staticmethod
    def _note_unsupported(count: int, facts: int, unsupported: str, data: KGData) -> None:
        if not count:
            return
        of = f"{count:,} of {facts:,} edges with no supporting sentence"
        data.notes.append(
            f"dropped {of} in either entity's text (unsupported_edges=drop; =template "
            "keeps them)" if unsupported == "drop" else
            f"kept {of} in either entity's text, read through their relation's template "
            "sentence (unsupported_edges=template; =drop drops them)"
        )

    def _build(self, data: KGData, triples: columns.Triples, keep: np.ndarray,
               aliases: Any, relation_aliases: dict[str, list[str]], texts: Any,
               matched: columns.Matched | None, pairs: tables.PairSentences | None, *,
               templates: bool) -> None:
        """Node and edge tables over the kept facts: nodes in the order the kept facts
        first name them, edges by relation in the order of their facts."""
        import numpy as np

        from kgcert.loaders import wikidata5m_tables as tables

        kept = np.flatnonzero(keep)
        heads, rels, tails = triples.heads[kept], triples.rels[kept], triples.tails[kept]
        both = np.stack([heads, tails], axis=1).ravel()
        _, first = np.unique(both, return_index=True)
        node_codes = both[np.sort(first)]
        position = np.full(len(triples.entities), -1, dtype=np.int64)
        position[node_codes] = np.arange(len(node_codes))
        table = tables.Columns(
            entities=triples.entities, aliases=aliases, label=LABEL, texts=texts,
            matched=matched, heads=heads, tails=tails, node_codes=node_codes,
            node_position=position, pairs=pairs, fact_of_kept=kept)
        data.nodes[LABEL] = tables.ColumnNodes(table)  # type: ignore[assignment]
        names = triples.relations.to_pylist()
        used = sorted({names[code] for code in np.unique(rels).tolist()})
        rel_types = distinct_identifiers(set(used), taken=RESERVED_LABELS | {LABEL})
        code_of = {name: code for code, name in enumerate(names)}
        loadprogress.tick(BUILDING, 0, len(kept), "edges")
        order = np.argsort(rels, kind="stable")
        bounds = np.searchsorted(rels[order], np.arange(len(names) + 1))
        built = 0
        for rel in used:
            code = code_of[rel]
            data.edges[rel_types[rel]] = tables.ColumnEdges(  # type: ignore[assignment]
                rel_types[rel], order[bounds[code]:bounds[code + 1]], table)
            built += int(bounds[code + 1] - bounds[code])
            loadprogress.tick(BUILDING, built, len(kept), "edges")

        unnamed: list[str] = []
        for rel in used:
            found = relation_aliases.get(rel) or [rel]
            if rel not in relation_aliases:
                unnamed.append(rel)
            data.relations.append(RelationInfo(
                type=rel_types[rel], source_type=LABEL, target_type=LABEL, original=rel,
                display=found[0], name=found[0], aliases=tuple(found),
                template=generic_template(found[0]) if templates else "",
            ))
        if unnamed:
            data.notes.append(f"relations without alias, named by their id: "
                              f"{', '.join(map(str, unnamed))}")

    def _entities_only(self, entity_file: Path | None, text_file: Path) -> KGData:
        """Entities with their texts and no edges: for text-only extracts."""
        data = KGData()
        fold = self.options.fold
        texts = {qid: fold(text) for qid, text in self._texts(text_file, None, data).items()}
        aliases = (self._aliases(entity_file, set(texts), ("entity", "alias"), data)
                   if entity_file else {})
        table = data.node_table(LABEL)
        for qid, text in texts.items():
            names = aliases.get(qid) or [qid]
            table.rows.append({
                "id": qid, "name": earliest_alias(text, names) or names[0], "aliases": names,
                "type": LABEL, "description": text, "sentences": split_sentences(text),
            })
        data.notes.append("no triples file: loaded entities and their texts only")
        return data

    def _aliases(self, path: Path, wanted: set[str], columns: tuple[str, str],
                 data: KGData) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        fold = self.options.fold
        for _, fields in read_tab_lines(path, columns, data.problems,
                                        strict=self.options.strict, open_ended=True,
                                        kinds=("key", "name")):
            if fields[0] not in wanted:
                continue
            aliases = found.setdefault(fields[0], [])
            for alias in fields[1:]:
                alias = " ".join(fold(alias).split())
                if alias and alias not in aliases:
                    aliases.append(alias)
        return found

    def _texts(self, path: Path, wanted: set[str] | None, data: KGData) -> dict[str, str]:
        """The first text of each wanted entity, not yet folded."""
        found: dict[str, str] = {}
        for _, (qid, text) in read_tab_lines(path, ("entity", "text"), data.problems,
                                             strict=self.options.strict,
                                             kinds=("key", "text")):
            if (wanted is None or qid in wanted) and qid not in found:
                found[qid] = text
        return found
