"""Named Cypher statements kept in cypher/*.cypher, and safe identifiers for them.

A .cypher file holds statements, each introduced by a `// name: <statement name>` line.
Values always travel as parameters. Labels and relationship types cannot be parameters
(the embedded server has no dynamic types), so a statement names them as `{{label}}`
placeholders, filled only with escaped identifiers by :func:`render`.

Several KGs can share one database (a Neo4j Community server has one user database), so every
node pattern of kgcert's own queries carries the marker :data:`KG_SCOPE` after its labels. The
store that runs the query replaces it by the KG's own label (``:`KgcertKG_<name>` ``) where
KGs share a database, and by nothing where each KG has its own. An unreplaced marker is a
syntax error, never a query that silently matches another KG.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import cache

from kgcert.util.resources import data_folder

_NAME_LINE = re.compile(r"^//\s*name:\s*(\S+)\s*$")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_SAFE_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# kgcert's own labels: a KG type of one of these names gets a hashed identifier.
RESERVED_LABELS = frozenset({"Entity", "KgcertRelation", "KgcertManifest", "KgcertRun",
                             "KgcertSample", "KgcertCertificate"})

KG_SCOPE = "{{:kg}}"
KG_LABEL_PREFIX = "KgcertKG_"


def kg_label(kg: str) -> str:
    """The label every node of KG `kg` carries in a database shared by several KGs."""
    return KG_LABEL_PREFIX + kg


def kg_index_name(kg: str) -> str:
    """The id index of KG `kg` in a shared database."""
    return f"kgcert_kg_{kg}_id"


def is_kgcert_label(label: str) -> bool:
    """kgcert's own labels (scope, manifest, relations, write-back), never a KG entity type."""
    return label.startswith("Kgcert")


def escape_identifier(name: str) -> str:
    """Backtick-quote a label or relationship type so no text can break out of it."""
    if not name or "\x00" in name:
        raise ValueError(f"invalid Cypher identifier {name!r}")
    return "`" + name.replace("`", "``") + "`"


def sanitize_identifier(raw: str) -> str:
    """Map a KG's type or relation name to a label both servers accept (letters, digits, _).

    `/` becomes `__` as in PrimeKG's own neo4j-admin exports (gene/protein -> gene__protein).
    Several names can map to one identifier (`likes-x`, `likes x`): a KG's names go through
    :func:`distinct_identifiers`, which keeps them apart. Control characters are refused:
    they mean a corrupt file, not a name.
    """
    if _CONTROL.search(raw):
        raise ValueError(f"control character in identifier {raw!r}")
    text = raw.strip().replace("/", "__")
    text = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not text:
        raise ValueError(f"cannot make an identifier from {raw!r}")
    if text[0].isdigit():
        text = "_" + text
    return text


def hashed_identifier(raw: str, digits: int = 6) -> str:
    """The sanitized name with a short stable hash of the original: `likes_x_1654ae`."""
    return f"{sanitize_identifier(raw)}_{hashlib.sha256(raw.encode()).hexdigest()[:digits]}"


def distinct_identifiers(names: Iterable[str], taken: Iterable[str] = ()) -> dict[str, str]:
    """One identifier per name, no two alike and none in `taken` (kgcert's own labels, the
    KG's labels when naming its relationship types: the embedded server keeps both in one
    namespace).

    A name keeps its plain sanitized form unless that collides: with another name of the
    set (`likes-x`, `likes x`) or with `taken`. Then each colliding name whose form changed
    gets the hash suffix of :func:`hashed_identifier`, so the mapping depends only on the set
    of names, not on their order.
    """
    taken = set(taken)
    groups: dict[str, list[str]] = defaultdict(list)
    for name in set(names):
        groups[sanitize_identifier(name)].append(name)
    for digits in (6, 16):
        found: dict[str, str] = {}
        for base, members in groups.items():
            clash = len(members) > 1 or base in taken
            for name in members:
                keep = not clash or (name == base and base not in taken)
                found[name] = base if keep else hashed_identifier(name, digits)
        values = list(found.values())
        if len(set(values)) == len(values) and not taken & set(values):
            return found
    raise ValueError(f"cannot give distinct identifiers to {sorted(set(names))!r}")


def is_safe_identifier(name: str) -> bool:
    return bool(_SAFE_IDENTIFIER.match(name))


@cache
def _statements(file_stem: str) -> dict[str, str]:
    path = data_folder("cypher") / f"{file_stem}.cypher"
    statements: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _NAME_LINE.match(line)
        if match:
            current = statements.setdefault(match.group(1), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip().rstrip(";") for name, lines in statements.items()}


def statement(file_stem: str, name: str) -> str:
    try:
        return _statements(file_stem)[name]
    except KeyError:
        raise KeyError(f"no statement {name!r} in cypher/{file_stem}.cypher") from None


def render(text: str, **identifiers: str) -> str:
    """Fill `{{name}}` placeholders with escaped identifiers."""

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in identifiers:
            raise KeyError(f"no identifier given for placeholder {{{{{key}}}}}")
        return escape_identifier(identifiers[key])

    return _PLACEHOLDER.sub(fill, text)


def named(file_stem: str, name: str, **identifiers: str) -> str:
    return render(statement(file_stem, name), **identifiers)
