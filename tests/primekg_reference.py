"""The PrimeKG loader's parse as it was before the block reader (kgcert 1cc1750): one dict per
row from read_rows, facts as a set of Python tuples. Kept as the reference that
tests/loaders/test_primekg_fast_parse.py compares the fast parse with."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from kgcert.errors import InputError
from kgcert.loaders.neo4j_import import read_import_edges, read_import_nodes
from kgcert.loaders.pending_edges import Fact
from kgcert.loaders.primekg import (
    EDGE_COLUMNS,
    EDGE_RULES,
    KG_COLUMNS,
    KG_RULES,
    NODE_COLUMNS,
    NODE_RULES,
    PrimeKGLoader,
    _kind,
)
from kgcert.loaders.tabular import read_rows
from kgcert.loaders.templates import template_book
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo


class RowByRowPrimeKG(PrimeKGLoader):
    """PrimeKGLoader with the old row-by-row read and build."""

    def read(self, files: Sequence[Path]) -> KGData:
        data = KGData()
        nodes: dict[str, dict[str, str]] = {}
        facts: set[Fact] = set()
        rows = 0  # edge rows read, to say how many facts they held
        pending: list[tuple[Path, int, Fact]] = []  # edges whose endpoints come from nodes.csv
        kinds = {path: _kind(path) for path in files}
        strict = self.options.strict
        for path, kind in kinds.items():
            if kind == "kg":
                for _, row in read_rows(path, KG_COLUMNS, data.problems, strict=strict,
                                        rules=KG_RULES):
                    for side in ("x", "y"):
                        if row[f"{side}_index"] not in nodes:
                            nodes[row[f"{side}_index"]] = {
                                "type": row[f"{side}_type"], "name": row[f"{side}_name"],
                                "source": row[f"{side}_source"], "source_id": row[f"{side}_id"],
                            }
                    facts.add((row["x_index"], row["relation"], row["display_relation"],
                               row["y_index"]))
                    rows += 1
            elif kind == "nodes":
                for _, row in read_rows(path, NODE_COLUMNS, data.problems, strict=strict,
                                        rules=NODE_RULES):
                    nodes.setdefault(row["node_index"], {
                        "type": row["node_type"], "name": row["node_name"],
                        "source": row["node_source"], "source_id": row["node_id"],
                    })
            elif kind == "edges":
                for line, row in read_rows(path, EDGE_COLUMNS, data.problems, strict=strict,
                                              rules=EDGE_RULES):
                    pending.append((path, line, (row["x_index"], row["relation"],
                                                 row["display_relation"], row["y_index"])))
            elif kind == "import_nodes":
                for node in read_import_nodes(path, data.problems, strict):
                    props = node.properties
                    node_type = (node.labels[0] if node.labels else "entity").replace("__", "/")
                    nodes.setdefault(node.id, {
                        "type": node_type, "name": props.get("node_name", node.id),
                        "source": props.get("node_source", ""),
                        "source_id": props.get("node_id", ""),
                    })
            elif kind == "import_edges":
                for edge in read_import_edges(path, data.problems, strict):
                    display = edge.properties.get("display_relation", edge.type)
                    pending.append((path, edge.line, (edge.source, edge.type, display,
                                                      edge.target)))
        for path, line, fact in pending:
            missing = [n for n in (fact[0], fact[3]) if n not in nodes]
            if missing:
                where = f"{path.name}:{line} (endpoint {missing[0]} not in the node file)"
                if strict:
                    raise InputError(f"{where}: edge endpoint absent from the node file")
                data.problems.add(where)
                continue
            facts.add(fact)
            rows += 1
        descriptions = self._descriptions([p for p, k in kinds.items() if k == "features"], data)
        self._build(data, nodes, facts, descriptions, rows)
        return data

    def _build(self, data: KGData, nodes: dict[str, dict[str, str]], facts: set[Fact],
               descriptions: dict[str, str], rows: int) -> None:
        book = template_book("primekg")
        fold = self.options.fold
        labels = distinct_identifiers({node["type"] for node in nodes.values()},
                                      taken=RESERVED_LABELS)
        for node_id, node in nodes.items():
            label = labels[node["type"]]
            row: dict[str, object] = {
                "id": node_id, "name": node["name"], "type": node["type"],
                "source": node["source"], "source_id": node["source_id"],
                "aliases": [fold(book.type_alias.format(type=node["type"], name=node["name"]))],
            }
            if node_id in descriptions:
                row["description"] = descriptions[node_id]
            data.node_table(label).rows.append(row)
        # PrimeKG is undirected: store each fact in both directions, once each.
        directed = facts | {(y, rel, display, x) for x, rel, display, y in facts}
        duplicates, added = rows - len(facts), len(directed) - len(facts)
        data.notes.append(
            f"{rows:,} edge rows -> {len(directed):,} directed edges: "
            + (f"{duplicates:,} duplicate rows collapsed; " if duplicates else "")
            + (f"{added:,} reverse edges added for facts listed one way only (PrimeKG is "
               "undirected: each fact is stored both ways)" if added else
               "every fact was listed in both directions"))
        # An edge carries its display relation only where its type joins the same entity
        # types under several displays (drug_protein: target, enzyme, carrier, transporter);
        # elsewhere the one KgcertRelation of (type, source type, target type) names it, and
        # edges without properties load about a third faster.
        displays: dict[tuple[str, str, str], set[str]] = defaultdict(set)
        for x, rel, display, y in directed:
            displays[(rel, nodes[x]["type"], nodes[y]["type"])].add(display)
        ambiguous = {rel for (rel, _, _), shown in displays.items() if len(shown) > 1}
        relations: dict[tuple[str, str, str, str], RelationInfo] = {}
        rel_types = distinct_identifiers({fact[1] for fact in directed},
                                         taken=RESERVED_LABELS | set(labels.values()))
        # Edge order does not matter to the graph (every reader sorts by ids), so the facts
        # are not sorted here: sorting a million tuples cost a quarter of the parse.
        for x, rel, display, y in directed:
            table = data.edge_table(rel_types[rel], with_properties=rel in ambiguous)
            table.sources.append(x)
            table.targets.append(y)
            if table.properties is not None:
                table.properties.append({"display": display})
            key = (rel, display, nodes[x]["type"], nodes[y]["type"])
            if key not in relations:
                template = book.find(*key)
                if template is None:
                    template = book.template(*key)
                    data.notes.append(f"no sentence template for {key}; used the generic one")
                relations[key] = RelationInfo(
                    type=rel_types[rel], source_type=labels[key[2]],
                    target_type=labels[key[3]], display=display,
                    name=book.relation_name.format(display=display, target_type=key[3]),
                    template=template, original=rel,
                )
        data.relations = [relations[key] for key in sorted(relations)]
        data.notes.sort()
