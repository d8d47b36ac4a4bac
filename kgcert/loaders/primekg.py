"""PrimeKG, preprocessed as LLMCert-C describes (Appendix D.3.1), with its defects fixed.

- Every fact is stored as two directed edges, one per direction, each with a sentence
  template that reads true in its own direction (loaders/primekg.yaml).
- Relation names state the target type: "indication (disease)" vs "indication (drug)".
- Entity aliases carry the type: "(drug) Donepezil".
- Facts are keyed by (x, relation, display, y), so two relations between one pair of
  nodes are both kept; only exact duplicates collapse.

Layouts read: kg.csv (12 columns, both directions), the release's nodes.csv + edges.csv,
and neo4j-admin exports (`effect__phenotype` is read back as `effect/phenotype`), plus
drug_features.csv / disease_features.csv as node descriptions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist
from kgcert.loaders.columnar import ColumnEdges, ColumnNodes, group_by
from kgcert.loaders.factcodes import FactCodes, NodeBook, distinct
from kgcert.loaders.fastcsv import read_blocks
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.neo4j_import import (
    is_import_edges,
    is_import_nodes,
    read_import_edges,
    read_import_nodes,
)
from kgcert.loaders.pending_edges import PendingEdges, add_pending, node_ids, pending_edges
from kgcert.loaders.tabular import read_rows
from kgcert.loaders.templates import template_book
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo

KG_COLUMNS = ("relation", "display_relation", "x_index", "x_id", "x_type", "x_name", "x_source",
              "y_index", "y_id", "y_type", "y_name", "y_source")
NODE_COLUMNS = ("node_index", "node_id", "node_type", "node_name", "node_source")
EDGE_COLUMNS = ("relation", "display_relation", "x_index", "y_index")
FEATURE_FILES = ("drug_features.csv", "disease_features.csv")
# What each column may hold (fields.py); the feature files' texts may span lines.
KG_RULES = FieldRules(keys=("x_index", "y_index", "x_type", "y_type", "relation"),
                      names=("x_id", "x_name", "x_source", "y_id", "y_name", "y_source",
                             "display_relation"),
                      types=("x_type", "y_type", "relation"))
NODE_RULES = FieldRules(keys=("node_index", "node_type"),
                        names=("node_id", "node_name", "node_source"), types=("node_type",))
EDGE_RULES = FieldRules(keys=("x_index", "y_index", "relation"), names=("display_relation",),
                        types=("relation",))
# The first non-empty of these becomes a node's description.
DESCRIPTION_COLUMNS = ("description", "mondo_definition", "umls_description",
                       "orphanet_definition", "mayo_symptoms")

def _header_list(path: Path) -> list[str]:
    # Decode leniently: the row reader reports bad bytes with their line number.
    with path.open("rb") as handle:
        first = handle.readline().decode("utf-8", errors="replace")
    return [h.strip().lstrip("\ufeff") for h in first.rstrip("\r\n").split(",")]


def _header(path: Path) -> set[str]:
    return set(_header_list(path))


def _kind(path: Path) -> str:
    header = _header(path)
    if path.name in FEATURE_FILES or ("node_index" in header and "description" in header):
        return "features"
    if {"x_index", "y_index", "x_type"} <= header:
        return "kg"
    if {"node_index", "node_type"} <= header:
        return "nodes"
    if {"x_index", "y_index", "relation"} <= header:
        return "edges"
    if is_import_nodes(path):
        return "import_nodes"
    if is_import_edges(path):
        return "import_edges"
    raise InputError(
        f"{path}: not a PrimeKG file; expected kg.csv columns ({', '.join(KG_COLUMNS)}), "
        "nodes.csv + edges.csv, a neo4j-admin export, or *_features.csv"
    )


class PrimeKGLoader(Loader):
    format = "primekg"
    summary = "PrimeKG: kg.csv, nodes.csv + edges.csv, or a neo4j-admin export (+ *_features.csv)"
    version = "2"  # 2: `display` only on edges whose type has several displays

    def source_files(self, paths: Sequence[Path]) -> list[Path]:
        check_paths_exist(paths)
        files: list[Path] = []
        for path in paths:
            if path.is_file():
                files.append(path)
                continue
            found = [path / "kg.csv"] if (path / "kg.csv").is_file() else [
                p for p in (path / "nodes.csv", path / "edges.csv") if p.is_file()
            ]
            if not found:
                raise InputError(f"{path}: no kg.csv, nor nodes.csv and edges.csv")
            files += found + [path / f for f in FEATURE_FILES if (path / f).is_file()]
        return files

    def read(self, files: Sequence[Path]) -> KGData:
        data = KGData()
        nodes = NodeBook()
        facts = FactCodes()
        rows = 0  # edge rows read, to say how many facts they held
        pending: list[PendingEdges] = []  # edges whose endpoints come from nodes.csv
        kinds = {path: _kind(path) for path in files}
        strict = self.options.strict
        for path, kind in kinds.items():
            if kind == "kg":
                for table in read_blocks(path, KG_COLUMNS, data.problems, strict=strict,
                                         rules=KG_RULES):
                    _add_kg_block(table, nodes, facts)
                    rows += table.num_rows
            elif kind == "nodes":
                for _, row in read_rows(path, NODE_COLUMNS, data.problems, strict=strict,
                                        rules=NODE_RULES):
                    nodes.add(row["node_index"], row["node_type"], row["node_name"],
                              row["node_source"], row["node_id"])
            elif kind == "edges":
                pending += pending_edges(path, (
                    (line, (row["x_index"], row["relation"], row["display_relation"],
                            row["y_index"]))
                    for line, row in read_rows(path, EDGE_COLUMNS, data.problems,
                                               strict=strict, rules=EDGE_RULES)))
            elif kind == "import_nodes":
                for node in read_import_nodes(path, data.problems, strict):
                    props = node.properties
                    node_type = (node.labels[0] if node.labels else "entity").replace("__", "/")
                    nodes.add(node.id, node_type, props.get("node_name", node.id),
                              props.get("node_source", ""), props.get("node_id", ""))
            elif kind == "import_edges":
                pending += pending_edges(path, (
                    (edge.line, (edge.source, edge.type,
                                 edge.properties.get("display_relation", edge.type),
                                 edge.target))
                    for edge in read_import_edges(path, data.problems, strict)))
        known = None
        for part in pending:
            if known is None:
                known = node_ids(nodes)
            rows += add_pending(part, known, facts, data.problems, strict)
        descriptions = self._descriptions([p for p, k in kinds.items() if k == "features"], data)
        self._build(data, nodes, facts, descriptions, rows)
        return data

    def _descriptions(self, paths: list[Path], data: KGData) -> dict[str, str]:
        found: dict[str, str] = {}
        for path in paths:
            rows = read_rows(path, ["node_index"], data.problems, strict=self.options.strict,
                             rules=FieldRules(keys=("node_index",),
                                              multiline=tuple(_header_list(path))))
            for _, row in rows:
                text = next(
                    (row[c].strip() for c in DESCRIPTION_COLUMNS if row.get(c, "").strip()), "")
                if text and row["node_index"] not in found:
                    found[row["node_index"]] = self.options.fold(text)
        return found

    def _build(self, data: KGData, nodes: NodeBook, facts: FactCodes,
               descriptions: dict[str, str], rows: int) -> None:
        import numpy as np
        import pyarrow as pa

        book = template_book("primekg")
        fold = self.options.fold
        labels = distinct_identifiers(set(nodes.types), taken=RESERVED_LABELS)
        ids = pa.array(nodes.ids, pa.string())
        type_names = sorted(set(nodes.types))
        type_code = {name: code for code, name in enumerate(type_names)}
        type_of_node = np.fromiter((type_code[t] for t in nodes.types), dtype=np.int64,
                                   count=len(nodes))
        aliases = pa.array(
            (fold(book.type_alias.format(type=t, name=n)) for t, n in zip(
                nodes.types, nodes.names, strict=True)), pa.string(), size=len(nodes))
        columns = {"id": ids, "name": pa.array(nodes.names, pa.string()),
                   "type": pa.array(nodes.types, pa.string()),
                   "source": pa.array(nodes.sources, pa.string()),
                   "source_id": pa.array(nodes.source_ids, pa.string()),
                   "aliases": pa.ListArray.from_arrays(
                       pa.array(np.arange(len(nodes) + 1, dtype=np.int32)), aliases),
                   "description": pa.array((descriptions.get(i) for i in nodes.ids),
                                           pa.string(), size=len(nodes))}
        by_type = zip(type_names, group_by(type_of_node, len(type_names)), strict=True)
        # Tables in the order their types first appear, as a row reader would make them.
        for kind, members in sorted(by_type, key=lambda found: int(found[1][0])):
            take = pa.array(members)
            data.nodes[labels[kind]] = ColumnNodes(  # type: ignore[assignment]
                labels[kind], members, {k: v.take(take) for k, v in columns.items()})
        del columns, aliases
        # PrimeKG is undirected: store each fact in both directions, once each.
        directed = facts.directed(len(nodes))
        edges = len(directed.sources)
        duplicates, added = rows - directed.facts, edges - directed.facts
        data.notes.append(
            f"{rows:,} edge rows -> {edges:,} directed edges: "
            + (f"{duplicates:,} duplicate rows collapsed; " if duplicates else "")
            + (f"{added:,} reverse edges added for facts listed one way only (PrimeKG is "
               "undirected: each fact is stored both ways)" if added else
               "every fact was listed in both directions"))
        source_type, target_type = type_of_node[directed.sources], type_of_node[directed.targets]
        # The distinct (relation, display, source type, target type) of the edges: few.
        kinds = len(type_names) or 1
        displays_count = len(facts.displays.names) or 1
        combos = distinct(((directed.relations * displays_count + directed.displays)
                           * kinds + source_type) * kinds + target_type)
        rest, target_kinds = np.divmod(combos, kinds)
        rest, source_kinds = np.divmod(rest, kinds)
        rel_codes, display_codes = np.divmod(rest, displays_count)
        keys = sorted({(facts.relations.names[r], facts.displays.names[d], type_names[sx],
                        type_names[ty]) for r, d, sx, ty in zip(
                            rel_codes.tolist(), display_codes.tolist(), source_kinds.tolist(),
                            target_kinds.tolist(), strict=True)})
        # An edge carries its display relation only where its type joins the same entity
        # types under several displays (drug_protein: target, enzyme, carrier, transporter);
        # elsewhere the one KgcertRelation of (type, source type, target type) names it, and
        # edges without properties load faster (benchmarks/bench_load.py).
        displays: dict[tuple[str, str, str], set[str]] = defaultdict(set)
        for rel, display, x_type, y_type in keys:
            displays[(rel, x_type, y_type)].add(display)
        ambiguous = {rel for (rel, _, _), shown in displays.items() if len(shown) > 1}
        rel_types = distinct_identifiers({key[0] for key in keys},
                                         taken=RESERVED_LABELS | set(labels.values()))
        relations: list[RelationInfo] = []
        for key in keys:
            rel, display = key[0], key[1]
            template = book.find(*key)
            if template is None:
                template = book.template(*key)
                data.notes.append(f"no sentence template for {key}; used the generic one")
            relations.append(RelationInfo(
                type=rel_types[rel], source_type=labels[key[2]], target_type=labels[key[3]],
                display=display, name=book.relation_name.format(display=display,
                                                                target_type=key[3]),
                template=template, original=rel,
            ))
        # Edge order does not matter to the graph (every reader sorts by ids): the edges
        # go out grouped by relation, in the order de-duplication left them.
        display_names = pa.array(facts.displays.names, pa.string())
        groups = group_by(directed.relations, len(facts.relations.names)) if edges else []
        for code, group in enumerate(groups):
            if not len(group):
                continue
            rel = facts.relations.names[code]
            properties = {"display": display_names.take(pa.array(directed.displays[group]))} \
                if rel in ambiguous else None
            data.edges[rel_types[rel]] = ColumnEdges(  # type: ignore[assignment]
                rel_types[rel], directed.sources[group], directed.targets[group], ids,
                properties=properties)
        data.relations = relations
        data.notes.sort()


def _add_kg_block(table: Any, nodes: NodeBook, facts: FactCodes) -> None:
    """Add the rows of one block of kg.csv: new nodes (x before y, row by row, as a row
    reader meets them) and the facts as codes."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    count = table.num_rows
    if not count:
        return

    def both(column: str) -> Any:  # the x column, then the y column
        return pa.chunked_array(table[f"x_{column}"].chunks + table[f"y_{column}"].chunks,
                                type=pa.string())

    # Position 2i is row i's x, 2i + 1 its y: the order a row-by-row reader sees nodes in.
    interleave = np.empty(2 * count, dtype=np.int64)
    interleave[0::2] = np.arange(count)
    interleave[1::2] = np.arange(count) + count
    ids = pc.take(both("index"), pa.array(interleave))
    seen = pc.unique(ids)
    local = pc.index_in(ids, value_set=seen).to_numpy()
    first = np.full(len(seen), len(local), dtype=np.int64)  # each id's first position
    np.minimum.at(first, local, np.arange(len(local)))
    seen_order = np.argsort(first, kind="stable")
    names = seen.to_pylist()
    new = [i for i in seen_order.tolist() if names[i] not in nodes]
    if new:
        # The attributes of new nodes where they first appear (row, side) in x-then-y order.
        where = pa.array(interleave[first[new]])
        attributes = [pc.take(both(c), where).to_pylist()
                      for c in ("type", "name", "source", "id")]
        for i, node_type, name, source, source_id in zip(new, *attributes, strict=True):
            nodes.add(names[i], node_type, name, source, source_id)
    code = np.fromiter((nodes.code[n] for n in names), dtype=np.int64, count=len(names))
    sources, targets = code[local[0::2]], code[local[1::2]]
    coded = []
    for column, codes in (("relation", facts.relations), ("display_relation", facts.displays)):
        values = table[column]
        kinds = pc.unique(values)
        coded.append(codes.of_all(kinds.to_pylist())[
            pc.index_in(values, value_set=kinds).to_numpy()])
    facts.add_block(sources, coded[0], coded[1], targets)
