"""A user's own KG as a table of triples (CSV or TSV), with a column mapping.

Paths: triples files (.csv, .tsv, .txt), directories (their .csv and .tsv files), and at
most one mapping YAML (see loaders/triples_example.yaml) whose `files:` are read relative
to it. Settings (--set KEY=VALUE) override the YAML:

- head, relation, tail: column names. Default: the columns named head/relation/tail,
  subject/predicate/object or source/relation/target (any case).
- head_type, tail_type: columns holding the entity types; types become node labels
  (made safe and distinct by distinct_identifiers), untyped nodes get `default_type`
  (Thing). Columns
  named head_type/tail_type or subject_type/object_type are used without being named.
- head_name, tail_name: columns holding display names (default: the id is the name).
- sentence: a column holding the edge's own sentence, stored as the edge's `sentences`.
- delimiter: default by extension (.tsv/.tab: tab, .csv: comma, else tab when the first
  line has one); header: true (default) or false; columns: the column names of a file
  without a header (default head, relation, tail for three columns).
- relation_names: {relation: display name}; templates: {relation: "{source} ... {target}."}
  Without one, the sentence is "{source} <relation name> {target}." with the relation's
  name (underscores read as spaces): "works_at" -> "{source} works at {target}".

An entity's type is the first non-empty one seen, its name the one on the row where it first
appears (none: its id). Exact duplicate triples collapse (the first, with its sentence, is
kept); parallel edges and self-loops are kept. Files are read a block at a time into integer
codes and Arrow columns (triples_columns.py): no Python object per triple or entity.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kgcert.errors import InputError
from kgcert.loaders.base import Loader, check_paths_exist
from kgcert.loaders.columnar import (
    ColumnEdges,
    folded,
    in_first_order,
    node_tables,
)
from kgcert.loaders.fastcsv import read_blocks, row_tables
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.tabular import read_rows, require_file
from kgcert.loaders.triples_columns import Coded, TripleColumns
from kgcert.loaders.wikidata_common import check_settings
from kgcert.store.cypher import RESERVED_LABELS, distinct_identifiers
from kgcert.store.kg_data import KGData, RelationInfo

TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".txt")
YAML_SUFFIXES = (".yaml", ".yml")
ROLES = ("head", "relation", "tail")
OPTIONAL_ROLES = ("head_type", "tail_type", "head_name", "tail_name", "sentence")
DEFAULT_NAMES = {
    "head": ("head", "subject", "source"),
    "relation": ("relation", "predicate", "relationship"),
    "tail": ("tail", "object", "target"),
    "head_type": ("head_type", "subject_type", "source_type"),
    "tail_type": ("tail_type", "object_type", "target_type"),
}
SETTINGS = (*ROLES, *OPTIONAL_ROLES, "delimiter", "header", "columns", "default_type",
            "relation_names", "templates", "mapping", "files")


@dataclass
class Mapping:
    columns: dict[str, str] = field(default_factory=dict)  # role -> column name, when given
    delimiter: str | None = None
    header: bool = True
    names: list[str] = field(default_factory=list)  # columns of a headerless file
    default_type: str = "Thing"
    relation_names: dict[str, str] = field(default_factory=dict)
    templates: dict[str, str] = field(default_factory=dict)


def _as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise InputError(f"setting {name} must be true or false, got {value!r}")


def _as_dict(value: Any, name: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(f"setting {name} must be a mapping of relation to text, got {value!r}")
    return {str(k): str(v) for k, v in value.items()}


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not valid UTF-8; re-encode the file as UTF-8") from None
    except yaml.YAMLError as error:
        raise InputError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(f"{path}: a triples mapping must be a YAML mapping of settings")
    return raw


def _delimiter(path: Path, given: str | None) -> str:
    if given:
        return {"tab": "\t", "\\t": "\t", "comma": ","}.get(given, given)
    suffix = path.suffix.lower()
    if suffix in (".tsv", ".tab"):
        return "\t"
    if suffix == ".csv":
        return ","
    with path.open("rb") as handle:
        return "\t" if b"\t" in handle.readline() else ","


def _header(path: Path, delimiter: str) -> list[str]:
    with path.open("rb") as handle:
        raw = handle.readline()
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not valid UTF-8 at line 1; re-encode the file as UTF-8"
                         ) from None
    first = next(csv.reader([line], delimiter=delimiter), [])
    return [h.strip().lstrip("\ufeff") for h in first]


def _rules(roles: dict[str, str]) -> FieldRules:
    """What the mapped columns may hold (fields.py); only sentences may span lines."""
    def columns(*names: str) -> tuple[str, ...]:
        return tuple(roles[n] for n in names if n in roles)

    return FieldRules(keys=columns(*ROLES), names=columns("head_name", "tail_name"),
                      types=columns("relation", "head_type", "tail_type"),
                      multiline=columns("sentence"))


class TriplesLoader(Loader):
    format = "triples"
    summary = "Triples in CSV/TSV with a column mapping (--set head=... or a mapping YAML)"

    def source_files(self, paths: Sequence[Path]) -> list[Path]:
        check_paths_exist(paths)
        check_settings(self.options.settings, SETTINGS, self.format)
        yamls = [p for p in paths if p.is_file() and p.suffix.lower() in YAML_SUFFIXES]
        mapping_setting = self.options.settings.get("mapping")
        if mapping_setting:
            yamls.append(require_file(Path(str(mapping_setting))))
        if len(yamls) > 1:
            raise InputError(f"more than one triples mapping: {', '.join(map(str, yamls))}")
        tables: list[Path] = []
        listed = self.options.settings.get("files")
        if yamls:
            listed = listed or _read_yaml(yamls[0]).get("files")
        base = yamls[0].parent if yamls else Path(".")
        for item in ([listed] if isinstance(listed, str) else listed or []):
            path = Path(str(item))
            tables.append(require_file(path if path.is_absolute() else base / path))
        for path in paths:
            if path.is_dir():
                found = sorted(p for p in path.iterdir()
                               if p.is_file() and p.suffix.lower() in (".csv", ".tsv"))
                if not found:
                    raise InputError(f"{path}: no .csv or .tsv triples file in it")
                tables += found
            elif path.suffix.lower() not in YAML_SUFFIXES:
                tables.append(path)
        if not tables:
            raise InputError("no triples file given (a .csv/.tsv file, or `files:` in the mapping)")
        return [*tables, *yamls]

    def _mapping(self, files: Sequence[Path]) -> Mapping:
        raw: dict[str, Any] = {}
        for path in files:
            if path.suffix.lower() in YAML_SUFFIXES:
                raw = _read_yaml(path)
                check_settings(raw, SETTINGS, f"{self.format} (in {path.name})")
        raw = {**raw, **self.options.settings}
        mapping = Mapping(
            columns={role: str(raw[role]).strip() for role in (*ROLES, *OPTIONAL_ROLES)
                     if raw.get(role)},
            delimiter=str(raw["delimiter"]) if raw.get("delimiter") else None,
            header=_as_bool(raw.get("header", True), "header"),
            names=[str(c).strip() for c in raw.get("columns") or []],
            default_type=str(raw.get("default_type") or "Thing"),
            relation_names=_as_dict(raw.get("relation_names"), "relation_names"),
            templates=_as_dict(raw.get("templates"), "templates"),
        )
        for rel, template in mapping.templates.items():
            if "{source}" not in template or "{target}" not in template:
                raise InputError(f"template for {rel!r} must contain {{source}} and {{target}}: "
                                 f"{template!r}")
        return mapping

    def _columns(self, path: Path, mapping: Mapping, delimiter: str) -> tuple[list[str],
                                                                              dict[str, str]]:
        """The file's column names and the column of each role found."""
        if mapping.header:
            names = _header(path, delimiter)
            if not any(names):
                raise InputError(f"{path}: empty file, expected a header row")
        else:
            names = mapping.names
            if not names:
                width = len(_header(path, delimiter))
                if width != 3:
                    raise InputError(
                        f"{path}: {width} columns and no header; give their names with "
                        "columns=[...] (head, relation and tail among them)"
                    )
                names = list(ROLES)
        lowered = {n.lower(): n for n in names}
        roles: dict[str, str] = {}
        for role in (*ROLES, *OPTIONAL_ROLES):
            if role in mapping.columns:
                wanted = mapping.columns[role]
                if wanted not in names:
                    raise InputError(
                        f"{path}: missing column {wanted!r} (mapped to {role}); "
                        f"found {', '.join(names)}"
                    )
                roles[role] = wanted
                continue
            found = next((lowered[c] for c in DEFAULT_NAMES.get(role, ()) if c in lowered), None)
            if found is not None:
                roles[role] = found
            elif role in ROLES:
                choices = " or ".join(DEFAULT_NAMES[role])
                raise InputError(
                    f"{path}: missing {role} column (named {choices}, or map one with "
                    f"--set {role}=COLUMN); found {', '.join(names)}"
                )
        return names, roles

    def read(self, files: Sequence[Path]) -> KGData:
        mapping = self._mapping(files)
        data = KGData()
        strict = self.options.strict
        blocks = TripleColumns(self.options.fold)
        for path in files:
            if path.suffix.lower() in YAML_SUFFIXES:
                continue
            delimiter = _delimiter(require_file(path), mapping.delimiter)
            columns, roles = self._columns(path, mapping, delimiter)
            wanted = list(dict.fromkeys(roles.values()))
            # Keys are checked as they are read (fields.py): no row has an empty head,
            # relation or tail.
            if mapping.header:
                tables = read_blocks(path, wanted, data.problems, delimiter=delimiter,
                                     strict=strict, rules=_rules(roles))
            else:
                tables = row_tables(read_rows(path, wanted, data.problems, delimiter=delimiter,
                                              strict=strict, has_header=False, columns=columns,
                                              rules=_rules(roles)), wanted)
            for table in tables:
                blocks.add(table, roles)
        coded = blocks.coded()
        if coded.conflicts:
            data.notes.append(f"{coded.conflicts} rows give an entity a type other than its "
                              "first; the first type was kept")
        if coded.duplicates:
            data.notes.append(f"collapsed {coded.duplicates} exact duplicate triples")
        self._build(data, mapping, blocks, coded)
        return data

    def _build(self, data: KGData, mapping: Mapping, blocks: TripleColumns,
               coded: Coded) -> None:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        fold = self.options.fold
        # Each entity's kind: its first type, or (last) the default type.
        kinds = [*blocks.types.names, mapping.default_type]
        kind = np.where(coded.kind >= 0, coded.kind, len(kinds) - 1)
        present = sorted({kinds[k] for k in np.unique(kind).tolist()} | {mapping.default_type})
        try:
            labels = distinct_identifiers(set(present), taken=RESERVED_LABELS)
        except ValueError as error:
            raise InputError(f"default_type: {error}") from None
        label_names = sorted(set(labels.values()))
        # -1 for a type seen only after another was an entity's first: no entity has it.
        label_of_kind = np.array([label_names.index(labels[k]) if k in labels else -1
                                  for k in kinds], dtype=np.int64)
        label_code = label_of_kind[kind]
        names = folded(coded.names, fold)
        unnamed = pc.equal(names, "")
        if pc.any(unnamed).as_py():
            shown = folded(coded.ids.filter(unnamed), fold)
            names = pc.replace_with_mask(names, unnamed, shown)
        columns = {"id": coded.ids, "name": names,
                   "aliases": pa.ListArray.from_arrays(
                       pa.array(np.arange(len(names) + 1, dtype=np.int32)), names),
                   "type": pa.array(kinds, pa.string()).take(pa.array(kind))}
        data.nodes.update(node_tables(  # type: ignore[arg-type]
            ((label_names[g], members) for g, members in in_first_order(
                label_code, len(label_names))), columns))
        del columns
        relation_names = blocks.relations.names
        rel_types = distinct_identifiers(
            {relation_names[r] for r in np.unique(coded.relations).tolist()},
            taken=RESERVED_LABELS | set(labels.values()))
        properties = None
        if coded.sentences is not None and pc.any(pc.not_equal(coded.sentences, "")).as_py():
            properties = pc.if_else(pc.equal(coded.sentences, ""),
                                    pa.scalar(None, pa.string()), coded.sentences)
        for code, group in in_first_order(coded.relations, len(relation_names)):
            rel_type = rel_types[relation_names[code]]
            data.edges[rel_type] = ColumnEdges(  # type: ignore[assignment]
                rel_type, coded.heads[group], coded.tails[group], coded.ids,
                None if properties is None else {"sentences": properties.take(pa.array(group))},
                listed=("sentences",))
        # The (relation, source label, target label) of the triples, in order of first use.
        width = max(len(label_names), 1)
        keys = (coded.relations.astype(np.int64) * width + label_code[coded.heads]) * width \
            + label_code[coded.tails]
        found, first = np.unique(keys, return_index=True)
        for key in found[np.argsort(first)].tolist():
            rest, target = divmod(key, width)
            code, source = divmod(rest, width)
            rel = relation_names[code]
            name = fold(mapping.relation_names.get(rel) or " ".join(rel.replace("_", " ")
                                                                      .split()))
            template = mapping.templates.get(rel) or "{source} " + name + " {target}."
            data.relations.append(RelationInfo(
                type=rel_types[rel], source_type=label_names[source],
                target_type=label_names[target], display=name, name=name, aliases=(name,),
                template=fold(template), original=rel,
            ))
