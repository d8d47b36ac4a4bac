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

from array import array
from collections.abc import Sequence
from pathlib import Path

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist, find_file
from kgcert.loaders.factcodes import Codes
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.gathered import Gathered
from kgcert.loaders.tabular import read_rows
from kgcert.loaders.wikidata_common import check_settings
from kgcert.loaders.wikidatasets_columns import OTHER_LABEL, Entities, build
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData

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
        import pyarrow.compute as pc

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
        # entityID -> its position among the entities: the one lookup a row needs (an int
        # per entity); every row's values go into arrays.
        entity_code: dict[str, int] = {}
        node_of_entity, name_of_entity, every_node_id = Gathered(), Gathered(), Gathered()
        path = by_name["entities.tsv"]
        for _, row in read_rows(path, ENTITY_COLUMNS, data.problems, delimiter="\t",
                                strict=strict, rules=ENTITY_RULES):
            entity_id = row["entityID"].strip()
            node_id = row["wikidataID"].strip() or entity_id
            if not entity_id:
                self._problem(data, f"{path.name}: entity row without entityID")
                continue
            every_node_id.add({"id": node_id})
            if entity_id not in entity_code:
                entity_code[entity_id] = len(entity_code)
                node_of_entity.add({"id": node_id})
                name_of_entity.add({"name": fold(row["label"].strip()) or node_id})
        entities = Entities(node_of_entity.column("id"), name_of_entity.column("name"))
        merged = every_node_id.count - len(pc.unique(every_node_id.column("id")))
        del every_node_id
        if merged:
            data.notes.append(f"{merged} entity rows share a Wikidata id with an earlier row; "
                              "they are one node")
        relations: dict[str, tuple[str, str]] = {}  # relationID -> (Wikidata id, label)
        for _, row in read_rows(by_name["relations.tsv"], RELATION_COLUMNS, data.problems,
                                delimiter="\t", strict=strict, rules=RELATION_RULES):
            rel_id = row["wikidataID"].strip() or row["relationID"].strip()
            label = fold(row["label"].strip()) or rel_id
            relations.setdefault(row["relationID"].strip(), (rel_id, label))
        rel_codes = Codes()
        rel_code = {rel: rel_codes.of(rel_id) for rel, (rel_id, _) in relations.items()}
        fact_files = [by_name["edges.tsv"]]
        if self._include_attributes():
            if "attributes.tsv" in by_name:
                fact_files.append(by_name["attributes.tsv"])
            else:
                data.notes.append("no attributes.tsv: only the core facts of edges.tsv loaded")
        heads, rels, tails, in_edges = array("q"), array("q"), array("q"), array("b")
        for path in fact_files:
            core_tails = path.name == "edges.tsv"
            for line, row in read_rows(path, FACT_COLUMNS, data.problems, delimiter="\t",
                                       strict=strict, rules=FACT_RULES):
                head, tail, rel = (row[c].strip() for c in FACT_COLUMNS)
                absent = next((e for e in (head, tail) if e not in entity_code), None)
                if absent is not None:
                    self._problem(data, f"{path.name}:{line} (entity {absent} not in "
                                        "entities.tsv): edge endpoint absent")
                    continue
                if rel not in rel_code:
                    self._problem(data, f"{path.name}:{line} (relation {rel} not in "
                                        "relations.tsv): unknown relation")
                    continue
                heads.append(entity_code[head])
                rels.append(rel_code[rel])
                tails.append(entity_code[tail])
                in_edges.append(core_tails)
        facts = entities.facts(heads, rels, tails, in_edges)
        if facts.duplicates:
            data.notes.append(f"collapsed {facts.duplicates} exact duplicate facts")
        core = None
        if "nodes.tsv" in by_name:
            listed = array("q")
            for _, row in read_rows(by_name["nodes.tsv"], ("entityID",), data.problems,
                                    delimiter="\t", strict=strict, rules=ENTITY_RULES):
                code = entity_code.get(row["entityID"].strip())
                if code is not None:
                    listed.append(code)
            core = entities.nodes_of(listed)
        else:
            data.notes.append("no nodes.tsv: core entities are those of edges.tsv and the "
                              "heads of attributes.tsv")
        del entity_code
        build(data, entities, facts, core, core_label,
              {rel_codes.code[rel_id]: label for rel_id, label in relations.values()},
              rel_codes.names)
        return data

    def _problem(self, data: KGData, where: str) -> None:
        if self.options.strict:
            raise InputError(where)
        data.problems.add(where)
