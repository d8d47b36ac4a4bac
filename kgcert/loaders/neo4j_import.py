"""neo4j-admin import layout: nodes.csv with :ID/:LABEL, edges.csv with :START_ID/:END_ID/:TYPE.

Loaded as it stands: one label per node (plus Entity), relationships as written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist, find_file
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.tabular import read_rows
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, Problems, RelationInfo

NODE_FILES = ("nodes.csv",)
EDGE_FILES = ("edges.csv", "relationships.csv")


@dataclass(frozen=True)
class ImportNode:
    line: int
    id: str
    labels: tuple[str, ...]
    properties: dict[str, str]


@dataclass(frozen=True)
class ImportEdge:
    line: int
    source: str
    target: str
    type: str
    properties: dict[str, str]


def _field(header_name: str) -> tuple[str, str]:
    """Split `name:TYPE` into (name, role); role is ID, LABEL, START_ID, END_ID, TYPE or ''."""
    name, _, role = header_name.partition(":")
    role = role.split("(")[0].upper()
    return name, role if role in {"ID", "LABEL", "START_ID", "END_ID", "TYPE"} else ""


def _header(path: Path) -> list[str]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return [h.strip().lstrip("\ufeff") for h in handle.readline().rstrip("\r\n").split(",")]


def _role_columns(path: Path, roles: Sequence[str]) -> dict[str, str]:
    found = {role: col for col in _header(path) for _, role in [_field(col)] if role}
    missing = [r for r in roles if r not in found]
    if missing:
        raise InputError(f"{path}: missing column(s) " + ", ".join(f":{r}" for r in missing))
    return found


def read_import_nodes(path: Path, problems: Problems, strict: bool) -> Iterator[ImportNode]:
    roles = _role_columns(path, ["ID"])
    id_column, label_column = roles["ID"], roles.get("LABEL")
    others = tuple(c for c in _header(path) if c not in (id_column, label_column))
    rules = FieldRules(keys=(id_column,), names=others,
                       types=(label_column,) if label_column else ())
    for line, row in read_rows(path, [id_column], problems, strict=strict, rules=rules):
        labels = tuple(x for x in row.pop(label_column, "").split(";") if x) if label_column else ()
        node_id = row.pop(id_column).strip()
        props = {_field(k)[0] or k: v for k, v in row.items() if v != ""}
        id_name = _field(id_column)[0]
        if id_name:
            props[id_name] = node_id
        yield ImportNode(line, node_id, labels, props)


def read_import_edges(path: Path, problems: Problems, strict: bool) -> Iterator[ImportEdge]:
    roles = _role_columns(path, ["START_ID", "END_ID", "TYPE"])
    start, end, kind = roles["START_ID"], roles["END_ID"], roles["TYPE"]
    others = tuple(c for c in _header(path) if c not in (start, end, kind))
    rules = FieldRules(keys=(start, end, kind), names=others, types=(kind,))
    for line, row in read_rows(path, [start, end, kind], problems, strict=strict, rules=rules):
        source, target, rel = row.pop(start).strip(), row.pop(end).strip(), row.pop(kind).strip()
        props = {_field(k)[0] or k: v for k, v in row.items() if v != ""}
        yield ImportEdge(line, source, target, rel, props)


def is_import_nodes(path: Path) -> bool:
    return any(_field(c)[1] == "ID" for c in _header(path))


def is_import_edges(path: Path) -> bool:
    return any(_field(c)[1] == "START_ID" for c in _header(path))


class Neo4jImportLoader(Loader):
    format = "neo4j-import"
    summary = ("neo4j-admin import CSVs (nodes.csv with :ID/:LABEL, "
               "edges.csv with :START_ID/:END_ID/:TYPE)")

    def source_files(self, paths: Sequence[Path]) -> list[Path]:
        check_paths_exist(paths)
        nodes = find_file(paths, NODE_FILES, what="nodes file (nodes.csv)")
        edges = find_file(paths, EDGE_FILES, what="edges file (edges.csv)")
        assert nodes is not None and edges is not None
        return [nodes, edges]

    def read(self, files: Sequence[Path]) -> KGData:
        nodes_file, edges_file = files
        data = KGData()
        strict = self.options.strict
        kinds: dict[str, str] = {}  # node id -> its first label as written
        rows: list[tuple[str, dict[str, object]]] = []
        for node in read_import_nodes(nodes_file, data.problems, strict):
            if node.id in kinds:  # neo4j-admin refuses these too: one id, one node
                where, reason = f"{nodes_file.name}:{node.line}", f"node id {node.id!r} again"
                if strict:
                    raise InputError(f"{where}: malformed row ({reason})")
                data.problems.add(f"{where} ({reason})")
                continue
            kind = node.labels[0] if node.labels else "Thing"
            kinds[node.id] = kind
            name = node.properties.get("name") or next(
                (v for k, v in node.properties.items() if k.endswith("name")), node.id
            )
            rows.append((kind, {**node.properties, "id": node.id, "name": name,
                                "aliases": [self.options.fold(name)]}))
        labels = distinct_identifiers(set(kinds.values()), taken=RESERVED_LABELS)
        label_of = {node_id: labels[kind] for node_id, kind in kinds.items()}
        for kind, row in rows:
            row["type"] = labels[kind]
            data.node_table(labels[kind]).rows.append(row)
        edges = list(read_import_edges(edges_file, data.problems, strict))
        rel_types = distinct_identifiers({edge.type for edge in edges},
                                         taken=RESERVED_LABELS | set(labels.values()))
        seen: set[tuple[str, str, str]] = set()
        for edge in edges:
            if edge.source not in label_of or edge.target not in label_of:
                missing = edge.source if edge.source not in label_of else edge.target
                where = (f"{edges_file.name}:{edge.line} "
                         f"(endpoint {missing} not in {nodes_file.name})")
                if strict:
                    raise InputError(f"{where}: edge endpoint absent from the node file")
                data.problems.add(where)
                continue
            rel_type = rel_types[edge.type]
            table = data.edge_table(rel_type, with_properties=True)
            table.sources.append(edge.source)
            table.targets.append(edge.target)
            assert table.properties is not None
            table.properties.append(edge.properties)
            key = (rel_type, label_of[edge.source], label_of[edge.target])
            if key not in seen:
                seen.add(key)
                display = edge.properties.get("display_relation", edge.type)
                data.relations.append(RelationInfo(
                    type=rel_type, source_type=key[1], target_type=key[2], display=display,
                    name=display, template="{source} " + display + " {target}.",
                    original=edge.type,
                ))
        return data
