"""The Wikidata5m loader's reading as it was before its text preprocessing went parallel
(kgcert 2026-11, commit 0108862), kept verbatim as the oracle of the differential tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcert.loaders.wikidata5m import (
    ENTITY_FILE,
    LABEL,
    RELATION_FILE,
    TEXT_FILE,
    TRIPLE_COLUMNS,
    TRIPLE_KINDS,
    Triple,
    Wikidata5mLoader,
    supporting_sentences,
)
from kgcert.loaders.wikidata_common import (
    AliasMatcher,
    earliest_alias,
    generic_template,
    read_tab_lines,
    split_sentences,
    word_key,
    words,
)
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo


class Wikidata5mBefore(Wikidata5mLoader):
    """Reads as the loader did; `source_files` and the settings are today's."""

    # --- reading -------------------------------------------------------------------------

    def read(self, files: Sequence[Path]) -> KGData:
        drop, unsupported, cap = self._settings()
        by_name = {f.name: f for f in files}
        text_file = by_name.get(TEXT_FILE)
        if RELATION_FILE not in by_name and text_file is not None:
            return self._entities_only(by_name.get(ENTITY_FILE), text_file)
        entity_file, relation_file = by_name[ENTITY_FILE], by_name[RELATION_FILE]
        triple_files = [f for f in files if f not in (entity_file, relation_file, text_file)]
        data = KGData()
        strict = self.options.strict

        facts: dict[Triple, None] = {}
        dropped: Counter[str] = Counter()
        duplicates = 0
        for path in triple_files:
            for _, (head, rel, tail) in read_tab_lines(path, TRIPLE_COLUMNS, data.problems,
                                                       strict=strict, kinds=TRIPLE_KINDS):
                if rel in drop:
                    dropped[rel] += 1
                elif (head, rel, tail) in facts:
                    duplicates += 1
                else:
                    facts[(head, rel, tail)] = None
        if dropped:
            shown = ", ".join(f"{rel} {n:,}" for rel, n in sorted(dropped.items()))
            data.notes.append(f"left out {sum(dropped.values()):,} triples of the relations in "
                              f"drop_relations ({shown})")
        if duplicates:
            data.notes.append(f"collapsed {duplicates} exact duplicate triples")

        entities = {e for head, _, tail in facts for e in (head, tail)}
        relations = {rel for _, rel, _ in facts}
        entity_aliases = self._aliases(entity_file, entities, ("entity", "alias"), data)
        relation_aliases = self._aliases(relation_file, relations, ("relation", "alias"), data)
        texts = self._texts(text_file, entities, data) if text_file else None

        if texts is None:
            kept: dict[Triple, list[str] | None] = dict.fromkeys(facts)
            data.notes.append(
                "no wikidata5m_text.txt: all edges kept and read through their relation's "
                "template sentence"
            )
        else:
            kept = self._supported(facts, texts, entity_aliases, unsupported, cap, data)

        self._build(data, kept, entity_aliases, relation_aliases, texts,
                    templates=texts is None or unsupported == "template")
        missing = len(entities - entity_aliases.keys())
        if missing:
            data.notes.append(f"{missing} entities have no alias; named by their QID")
        return data

    def _entities_only(self, entity_file: Path | None, text_file: Path) -> KGData:
        """Entities with their texts and no edges: for text-only extracts."""
        data = KGData()
        texts = self._texts(text_file, None, data)
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
        found: dict[str, str] = {}
        for _, (qid, text) in read_tab_lines(path, ("entity", "text"), data.problems,
                                             strict=self.options.strict,
                                             kinds=("key", "text")):
            if (wanted is None or qid in wanted) and qid not in found:
                found[qid] = self.options.fold(text)
        return found

    def _supported(self, facts: dict[Triple, None], texts: dict[str, str],
                   aliases: dict[str, list[str]], unsupported: str, cap: int,
                   data: KGData) -> dict[Triple, list[str] | None]:
        neighbours: dict[str, set[str]] = {}
        for head, _, tail in facts:
            neighbours.setdefault(head, set()).add(tail)
            neighbours.setdefault(tail, set()).add(head)
        keys = {e: [k for k in (word_key(a) for a in aliases.get(e, [])) if k]
                for e in neighbours}
        sentences: dict[str, list[str]] = {}
        # mentioned[(u, v)]: indexes of u's sentences that mention an alias of v.
        mentioned: dict[tuple[str, str], list[int]] = {}
        for entity, text in texts.items():
            split = split_sentences(text)
            sentences[entity] = split
            matcher = AliasMatcher()
            for other in neighbours.get(entity, ()):
                for key in keys[other]:
                    matcher.add(key, other)
            if not matcher:
                continue
            for index, sentence in enumerate(split):
                for owner in matcher.owners_in(words(sentence)):
                    mentioned.setdefault((entity, str(owner)), []).append(index)

        def first(entity: str) -> str:
            split = sentences.get(entity)
            return split[0] if split else ""

        pair_sentences: dict[tuple[str, str], list[str] | None] = {}
        kept: dict[Triple, list[str] | None] = {}
        unsupported_count = 0
        for fact in facts:
            head, _, tail = fact
            pair = (head, tail) if head <= tail else (tail, head)
            if pair not in pair_sentences:
                support: list[str] = []
                for u, v in ((head, tail), (tail, head)):
                    for index in mentioned.get((u, v), ()):
                        sentence = sentences[u][index]
                        if sentence not in support:
                            support.append(sentence)
                pair_sentences[pair] = (
                    supporting_sentences(support, [first(head), first(tail)], cap)
                    if support else None
                )
            found = pair_sentences[pair]
            if found is None:
                unsupported_count += 1
                if unsupported == "drop":
                    continue
            kept[fact] = found
        if unsupported_count:
            of = f"{unsupported_count:,} of {len(facts):,} edges with no supporting sentence"
            data.notes.append(
                f"dropped {of} in either entity's text (unsupported_edges=drop; =template "
                "keeps them)" if unsupported == "drop" else
                f"kept {of} in either entity's text, read through their relation's template "
                "sentence (unsupported_edges=template; =drop drops them)"
            )
        return kept

    def _build(self, data: KGData, kept: dict[Triple, list[str] | None],
               entity_aliases: dict[str, list[str]], relation_aliases: dict[str, list[str]],
               texts: dict[str, str] | None, *, templates: bool) -> None:
        used: dict[str, None] = {}
        for head, _, tail in kept:
            used.setdefault(head, None)
            used.setdefault(tail, None)
        table = data.node_table(LABEL)
        for qid in used:
            aliases = entity_aliases.get(qid) or [qid]
            text = texts.get(qid, "") if texts else ""
            name = (earliest_alias(text, aliases) if text else None) or aliases[0]
            row: dict[str, Any] = {"id": qid, "name": name, "aliases": aliases, "type": LABEL}
            if text:
                row["description"] = text
            table.rows.append(row)

        with_sentences = texts is not None
        rel_types = distinct_identifiers({rel for _, rel, _ in kept},
                                         taken=RESERVED_LABELS | {LABEL})
        for (head, rel, tail), found in sorted(kept.items(), key=lambda item: item[0][1]):
            edges = data.edge_table(rel_types[rel], with_properties=with_sentences)
            edges.sources.append(head)
            edges.targets.append(tail)
            if edges.properties is not None:
                edges.properties.append({"sentences": found} if found else {})

        unnamed: list[str] = []
        for rel in sorted({rel for _, rel, _ in kept}):
            aliases = relation_aliases.get(rel) or [rel]
            if rel not in relation_aliases:
                unnamed.append(rel)
            data.relations.append(RelationInfo(
                type=rel_types[rel], source_type=LABEL, target_type=LABEL, original=rel,
                display=aliases[0], name=aliases[0], aliases=tuple(aliases),
                template=generic_template(aliases[0]) if templates else "",
            ))
        if unnamed:
            data.notes.append(f"relations without alias, named by their id: "
                              f"{', '.join(map(str, unnamed))}")
