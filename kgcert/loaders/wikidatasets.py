"""WikiDataSets (Boschin & Bonald 2019), e.g. the "Countries" KG that KG-LLM-Bench samples from.

Files (a directory, or the files themselves): entities.tsv (entityID, wikidataID, label),
relations.tsv (relationID, wikidataID, label), edges.tsv (headEntity, tailEntity,
relation: facts between core entities), attributes.tsv (facts from core entities to
attribute entities; read unless `include_attributes: false`), nodes.tsv (the core
entities; optional: without it, the entities of edges.tsv and the heads of
attributes.tsv are core).

- Every fact is kept: parallel edges (one pair, several relations) and self-loops too.
  Only exact duplicate (head, tail, relation) rows collapse. KG-LLM-Bench's DiGraph lost
  2,392 of the Countries KG's 63,313 facts; this loader keeps them all.
- Node id = the Wikidata QID (the entityID where a row has none); equal labels stay
  distinct entities. Core entities are labelled `core_label` (default Country, the
  dataset KG-LLM-Bench uses; set Human, Company, ... for the other WikiDataSets), the
  others WikidataEntity, as in the Wikidata5m loader.
- Nodes are the entities the loaded facts reference.
- Relationship type = the property id (P530); the relation's name is its label and its
  sentence a generic template made from the label (wikidata_common.generic_template).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist, find_file
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.tabular import read_rows
from kgcert.loaders.wikidata_common import check_settings, generic_template
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo

OTHER_LABEL = "WikidataEntity"
ENTITY_COLUMNS = ("entityID", "wikidataID", "label")
RELATION_COLUMNS = ("relationID", "wikidataID", "label")
FACT_COLUMNS = ("headEntity", "tailEntity", "relation")
ENTITY_RULES = FieldRules(keys=("entityID",), names=("wikidataID", "label"))
# A relation's Wikidata id (else its relationID) becomes a relationship type.
RELATION_RULES = FieldRules(keys=("relationID",), names=("label",),
                            types=("relationID", "wikidataID"))
FACT_RULES = FieldRules(keys=FACT_COLUMNS)
SETTINGS = ("include_attributes", "core_label")
FILES = ("entities.tsv", "relations.tsv", "edges.tsv", "attributes.tsv", "nodes.tsv")


class WikiDataSetsLoader(Loader):
    format = "wikidatasets"
    summary = ("WikiDataSets: entities.tsv, relations.tsv, edges.tsv (+ attributes.tsv, "
               "nodes.tsv)")

    def source_files(self, paths: Sequence[Path]) -> list[Path]:
        check_paths_exist(paths)
        check_settings(self.options.settings, SETTINGS, self.format)
        files: list[Path] = []
        for name in FILES:
            required = name in FILES[:3]
            found = find_file(paths, [name], required=required, what=f"{name} (WikiDataSets)")
            if found is not None:
                files.append(found)
        return files

    def _include_attributes(self) -> bool:
        value = self.options.settings.get("include_attributes", True)
        if isinstance(value, str):
            value = value.strip().lower() not in ("false", "no", "0", "off")
        return bool(value)

    def read(self, files: Sequence[Path]) -> KGData:
        check_settings(self.options.settings, SETTINGS, self.format)
        written = str(self.options.settings.get("core_label", "Country"))
        try:
            core_label = distinct_identifiers(
                [written], taken=RESERVED_LABELS | {OTHER_LABEL})[written]
        except ValueError as error:
            raise InputError(f"core_label: {error}") from None
        by_name = {f.name: f for f in files}
        data = KGData()
        strict, fold = self.options.strict, self.options.fold

        entities: dict[str, tuple[str, str]] = {}  # entityID -> (node id, label)
        node_ids: set[str] = set()
        merged = 0
        path = by_name["entities.tsv"]
        for _, row in read_rows(path, ENTITY_COLUMNS, data.problems, delimiter="\t",
                                strict=strict, rules=ENTITY_RULES):
            entity_id = row["entityID"].strip()
            node_id = row["wikidataID"].strip() or entity_id
            if not entity_id:
                self._problem(data, f"{path.name}: entity row without entityID")
                continue
            if node_id in node_ids:
                merged += 1
            node_ids.add(node_id)
            entities.setdefault(entity_id, (node_id, fold(row["label"].strip()) or node_id))
        if merged:
            data.notes.append(f"{merged} entity rows share a Wikidata id with an earlier row; "
                              "they are one node")

        relations: dict[str, tuple[str, str]] = {}  # relationID -> (Wikidata id, label)
        for _, row in read_rows(by_name["relations.tsv"], RELATION_COLUMNS, data.problems,
                                delimiter="\t", strict=strict, rules=RELATION_RULES):
            rel_id = row["wikidataID"].strip() or row["relationID"].strip()
            label = fold(row["label"].strip()) or rel_id
            relations.setdefault(row["relationID"].strip(), (rel_id, label))

        fact_files = [by_name["edges.tsv"]]
        if self._include_attributes():
            if "attributes.tsv" in by_name:
                fact_files.append(by_name["attributes.tsv"])
            else:
                data.notes.append("no attributes.tsv: only the core facts of edges.tsv loaded")

        facts: dict[tuple[str, str, str], None] = {}
        duplicates = 0
        core: set[str] = set()
        for path in fact_files:
            for line, row in read_rows(path, FACT_COLUMNS, data.problems, delimiter="\t",
                                       strict=strict, rules=FACT_RULES):
                head, tail, rel = (row[c].strip() for c in FACT_COLUMNS)
                absent = next((e for e in (head, tail) if e not in entities), None)
                if absent is not None:
                    self._problem(data, f"{path.name}:{line} (entity {absent} not in "
                                        "entities.tsv): edge endpoint absent")
                    continue
                if rel not in relations:
                    self._problem(data, f"{path.name}:{line} (relation {rel} not in "
                                        "relations.tsv): unknown relation")
                    continue
                fact = (entities[head][0], relations[rel][0], entities[tail][0])
                if fact in facts:
                    duplicates += 1
                    continue
                facts[fact] = None
                core.add(fact[0])
                if path.name == "edges.tsv":
                    core.add(fact[2])
        if duplicates:
            data.notes.append(f"collapsed {duplicates} exact duplicate facts")

        if "nodes.tsv" in by_name:
            core = set()
            for _, row in read_rows(by_name["nodes.tsv"], ("entityID",), data.problems,
                                    delimiter="\t", strict=strict, rules=ENTITY_RULES):
                entity = entities.get(row["entityID"].strip())
                if entity is not None:
                    core.add(entity[0])
        else:
            data.notes.append("no nodes.tsv: core entities are those of edges.tsv and the "
                              "heads of attributes.tsv")
        self._build(data, entities, relations, facts, core, core_label)
        return data

    def _problem(self, data: KGData, where: str) -> None:
        if self.options.strict:
            raise InputError(where)
        data.problems.add(where)

    def _build(self, data: KGData, entities: dict[str, tuple[str, str]],
               relations: dict[str, tuple[str, str]], facts: dict[tuple[str, str, str], None],
               core: set[str], core_label: str) -> None:
        names = {node_id: name for node_id, name in reversed(list(entities.values()))}
        used: dict[str, None] = {}
        for head, _, tail in facts:
            used.setdefault(head, None)
            used.setdefault(tail, None)
        label_of: dict[str, str] = {}
        for node_id in used:
            label = core_label if node_id in core else OTHER_LABEL
            label_of[node_id] = label
            row: dict[str, Any] = {"id": node_id, "name": names[node_id],
                                   "aliases": [names[node_id]], "type": label}
            data.node_table(label).rows.append(row)
        rel_label = dict(relations.values())
        rel_types = distinct_identifiers({rel for _, rel, _ in facts},
                                         taken=RESERVED_LABELS | {core_label, OTHER_LABEL})
        seen: set[tuple[str, str, str]] = set()
        for head, rel, tail in sorted(facts, key=lambda fact: fact[1]):
            table = data.edge_table(rel_types[rel])
            table.sources.append(head)
            table.targets.append(tail)
            key = (rel_types[rel], label_of[head], label_of[tail])
            if key not in seen:
                seen.add(key)
                label = rel_label[rel]
                data.relations.append(RelationInfo(
                    type=key[0], source_type=key[1], target_type=key[2], display=label,
                    name=label, aliases=(label,), template=generic_template(label),
                    original=rel,
                ))
