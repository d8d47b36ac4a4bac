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

An entity's type and name are the first non-empty ones seen. Exact duplicate triples
collapse; parallel edges and self-loops are kept.
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
from kgcert.loaders.fields import FieldRules
from kgcert.loaders.tabular import read_rows, require_file
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
        strict, fold = self.options.strict, self.options.fold
        types: dict[str, str] = {}
        names: dict[str, str] = {}
        conflicts = 0
        facts: dict[tuple[str, str, str], str] = {}  # (head, relation, tail) -> sentence
        duplicates = 0
        for path in files:
            if path.suffix.lower() in YAML_SUFFIXES:
                continue
            delimiter = _delimiter(require_file(path), mapping.delimiter)
            columns, roles = self._columns(path, mapping, delimiter)
            rows = read_rows(path, list(roles.values()), data.problems, delimiter=delimiter,
                             strict=strict, has_header=mapping.header, columns=columns,
                             rules=_rules(roles))
            for line, row in rows:
                value = {role: row[column].strip() for role, column in roles.items()}
                empty = [role for role in ROLES if not value[role]]
                if empty:
                    where = f"{path.name}:{line} (empty {empty[0]})"
                    if strict:
                        raise InputError(f"{where}: malformed row")
                    data.problems.add(where)
                    continue
                for side in ("head", "tail"):
                    node = value[side]
                    kind = value.get(f"{side}_type", "")
                    if kind:
                        previous = types.setdefault(node, kind)
                        conflicts += previous != kind
                    name = value.get(f"{side}_name", "")
                    if name:
                        names.setdefault(node, fold(name))
                    else:
                        names.setdefault(node, "")
                fact = (value["head"], value["relation"], value["tail"])
                if fact in facts:
                    duplicates += 1
                    continue
                facts[fact] = fold(value.get("sentence", ""))
        if conflicts:
            data.notes.append(f"{conflicts} rows give an entity a type other than its first; "
                              "the first type was kept")
        if duplicates:
            data.notes.append(f"collapsed {duplicates} exact duplicate triples")
        self._build(data, mapping, types, names, facts)
        return data

    def _build(self, data: KGData, mapping: Mapping, types: dict[str, str],
               names: dict[str, str], facts: dict[tuple[str, str, str], str]) -> None:
        try:
            labels = distinct_identifiers({*types.values(), mapping.default_type},
                                          taken=RESERVED_LABELS)
        except ValueError as error:
            raise InputError(f"default_type: {error}") from None
        rel_types = distinct_identifiers({rel for _, rel, _ in facts},
                                         taken=RESERVED_LABELS | set(labels.values()))
        label_of: dict[str, str] = {}
        fold = self.options.fold
        for node, name in names.items():
            kind = types.get(node, "")
            label = labels[kind or mapping.default_type]
            label_of[node] = label
            shown = name or fold(node)
            data.node_table(label).rows.append({
                "id": node, "name": shown, "aliases": [shown], "type": kind or mapping.default_type,
            })
        with_sentences = any(facts.values())
        seen: set[tuple[str, str, str]] = set()
        for (head, rel, tail), sentence in facts.items():
            rel_type = rel_types[rel]
            table = data.edge_table(rel_type, with_properties=with_sentences)
            table.sources.append(head)
            table.targets.append(tail)
            if table.properties is not None:
                table.properties.append({"sentences": [sentence]} if sentence else {})
            key = (rel_type, label_of[head], label_of[tail])
            if key not in seen:
                seen.add(key)
                name = fold(mapping.relation_names.get(rel) or " ".join(rel.replace("_", " ")
                                                                          .split()))
                template = mapping.templates.get(rel) or "{source} " + name + " {target}."
                data.relations.append(RelationInfo(
                    type=rel_type, source_type=key[1], target_type=key[2], display=name,
                    name=name, aliases=(name,), template=fold(template), original=rel,
                ))
