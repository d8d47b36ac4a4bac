"""neo4j-admin import layout: nodes.csv with :ID/:LABEL, edges.csv with :START_ID/:END_ID/:TYPE.

Loaded as it stands: one label per node (plus Entity), relationships as written.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist, find_file
from kgcert.loaders.columnar import (
    ColumnEdges,
    folded,
    in_first_order,
    node_tables,
)
from kgcert.loaders.factcodes import Codes
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.gathered import Gathered
from kgcert.loaders.tabular import read_rows
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, Problems, RelationInfo

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

NODE_FILES = ("nodes.csv",)
# Where a gathered edge row keeps its endpoints and type: names no header column can have.
SOURCE, TARGET, TYPE = "\x00source", "\x00target", "\x00type"
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
        import numpy as np
        import pyarrow as pa

        nodes_file, edges_file = files
        data = KGData()
        strict, fold = self.options.strict, self.options.fold
        # The ids met so far: a duplicate is a problem at its own line, among the others.
        seen: set[str] = set()
        kinds = Codes()  # each node's first label as written
        nodes, kind_of = Gathered(), array("q")
        for node in read_import_nodes(nodes_file, data.problems, strict):
            if node.id in seen:  # neo4j-admin refuses these too: one id, one node
                where, reason = f"{nodes_file.name}:{node.line}", f"node id {node.id!r} again"
                if strict:
                    raise InputError(f"{where}: malformed row ({reason})")
                data.problems.add(f"{where} ({reason})")
                continue
            seen.add(node.id)
            kind_of.append(kinds.of(node.labels[0] if node.labels else "Thing"))
            name = node.properties.get("name") or next(
                (v for k, v in node.properties.items() if k.endswith("name")), node.id
            )
            nodes.add({**node.properties, "id": node.id, "name": name})
        del seen
        labels = distinct_identifiers(set(kinds.names), taken=RESERVED_LABELS)
        edges, lines = Gathered(), array("q")
        for edge in read_import_edges(edges_file, data.problems, strict):
            lines.append(edge.line)
            edges.add({**edge.properties, SOURCE: edge.source, TARGET: edge.target,
                       TYPE: edge.type})
        columns = nodes.columns()
        label_names = sorted(set(labels.values()))
        label_code = np.array([label_names.index(labels[k]) for k in kinds.names],
                              dtype=np.int64)[np.frombuffer(kind_of, dtype=np.int64)]
        columns.update(aliases=pa.ListArray.from_arrays(
            pa.array(np.arange(len(label_code) + 1, dtype=np.int32)),
            folded(columns["name"], fold)),
            type=pa.array(label_names, pa.string()).take(pa.array(label_code)))
        data.nodes.update(node_tables(  # type: ignore[arg-type]
            ((label_names[g], members) for g, members in in_first_order(
                label_code, len(label_names))), columns))
        ids = columns["id"]
        del columns
        found = edges.columns()
        _add_edges(data, found, np.frombuffer(lines, dtype=np.int64), ids,
                   label_code, label_names, (nodes_file.name, edges_file.name), strict)
        return data


def _add_edges(data: KGData, found: dict[str, pa.Array], lines: np.ndarray, ids: pa.Array,
               label_code: np.ndarray, label_names: list[str],
               names: tuple[str, str], strict: bool) -> None:
    """The edges whose endpoints are nodes, in tables by type; the others are problems."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(lines):
        return
    raw_sources, raw_targets = found.pop(SOURCE), found.pop(TARGET)
    sources = pc.index_in(raw_sources, value_set=ids)
    targets = pc.index_in(raw_targets, value_set=ids)
    types = found.pop(TYPE)
    rel_types = distinct_identifiers(set(pc.unique(types).to_pylist()),
                                     taken=RESERVED_LABELS | set(label_names))
    absent = pc.or_(sources.is_null(), targets.is_null()).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(absent)
    problems = data.problems
    shown = min(len(bad), 1 if strict else max(0, 5 - len(problems.examples)))
    for at in bad[:shown].tolist():  # the rest are only counted
        missing = raw_sources[at] if not sources[at].is_valid else raw_targets[at]
        where = f"{names[1]}:{int(lines[at])} (endpoint {missing.as_py()} not in {names[0]})"
        if strict:
            raise InputError(f"{where}: edge endpoint absent from the node file")
        problems.add(where)
    problems.count += len(bad) - shown
    keep = pa.array(np.flatnonzero(~absent))
    heads = sources.take(keep).to_numpy().astype(np.int64)
    tails = targets.take(keep).to_numpy().astype(np.int64)
    kept_types = types.take(keep)
    distinct = pc.unique(kept_types)
    type_code = pc.index_in(kept_types, value_set=distinct).to_numpy()
    type_names = distinct.to_pylist()
    properties = {name: column.take(keep) for name, column in found.items()}
    for code, group in in_first_order(type_code, len(type_names)):
        rel_type = rel_types[type_names[code]]
        take = pa.array(group)
        data.edges[rel_type] = ColumnEdges(  # type: ignore[assignment]
            rel_type, heads[group], tails[group], ids,
            {name: column.take(take) for name, column in properties.items()})
    # The (type, source label, target label) of the edges, in order of first use.
    width = max(len(label_names), 1)
    keys = (type_code.astype(np.int64) * width + label_code[heads]) * width + label_code[tails]
    found_keys, first = np.unique(keys, return_index=True)
    displays = properties.get("display_relation")
    for key, at in sorted(zip(found_keys.tolist(), first.tolist(), strict=True),
                          key=lambda item: item[1]):
        rest, target = divmod(key, width)
        code, source = divmod(rest, width)
        original = type_names[code]
        shown_as = displays[at].as_py() if displays is not None else None
        display = original if shown_as is None else shown_as
        data.relations.append(RelationInfo(
            type=rel_types[original], source_type=label_names[source],
            target_type=label_names[target], display=display, name=display,
            template="{source} " + display + " {target}.", original=original,
        ))
