"""Random byte-level corruptions of the real extracts fed to every loader (issue 9).

Small slices of the files in ../shared/data are corrupted (truncation, NUL and other control
bytes, stray quotes, bytes that are not UTF-8, overlong fields, two fields of a line swapped,
a file's columns shuffled) with a seeded generator, and each loader's parse must either
succeed with the node and edge counts of an independent parse of the surviving rows, or stop
with kgcert's one-line InputError; any other exception fails. A KG with no entities counts
as a refusal (`kgcert load` refuses it).

The independent parse reads each physical line on its own with the csv module (or plain
splitting for the headerless Wikidata5m files) and keeps a row under the rules documented in
kgcert/loaders/fields.py: the right number of fields, ids non-empty, no control character or
line break in an id, name or type (a name may span lines only inside a quoted field, which
a line read alone cannot show), ids and names at most 4,096 bytes, types at most 100
characters. Reading lines one by one is what a loader must do after an unbalanced quote.
"""

from __future__ import annotations

import csv
import json
import random
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_process import kgcert_process
from shared_data import shared_data

from kgcert.errors import InputError
from kgcert.loaders import LoadOptions, get_loader

SLICE = 300
SEEDS = 100  # per case
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
csv.field_size_limit(64 * 2**20)  # the limit the loaders document


KG_COLUMNS = ("relation", "display_relation", "x_index", "x_id", "x_type", "x_name",
              "x_source", "y_index", "y_id", "y_type", "y_name", "y_source")


class Refused(Exception):
    """The independent parse expects the load to be refused."""


Counts = tuple[int, int]  # (nodes, edges)


def value_ok(value: str, *, required: bool = False, is_type: bool = False) -> bool:
    if required and not value.strip():
        return False
    if CONTROL.search(value) or (is_type and len(value) > 100):
        return False
    return len(value.encode("utf-8")) <= 4096


def physical_lines(text: str) -> list[str]:
    """Lines ended by LF only (str.splitlines also splits at VT, FF, U+2028, ...)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def csv_rows(path: Path, required: tuple[str, ...], delimiter: str = ","
             ) -> tuple[list[str], list[dict[str, str]]]:
    """Header and the rows of a file without multi-line fields, one physical line each."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None
    lines = physical_lines(text)
    if not lines:
        raise Refused("empty")
    header = [h.strip().lstrip("\ufeff") for h in next(csv.reader([lines[0]],
                                                                 delimiter=delimiter))]
    if lines[0].count('"') % 2 or any(c not in header for c in required):
        raise Refused("header")
    rows = []
    for line in lines[1:]:
        if not line.strip():
            continue
        fields = next(csv.reader([line], delimiter=delimiter))
        if len(fields) == len(header):
            rows.append(dict(zip(header, fields, strict=True)))
    return header, rows


def good(row: dict[str, str], keys: tuple[str, ...] = (), names: tuple[str, ...] = (),
         types: tuple[str, ...] = ()) -> bool:
    return (all(value_ok(row[c], required=True) for c in keys)
            and all(value_ok(row[c]) for c in names)
            and all(value_ok(row[c], is_type=True) for c in types))


# --- the independent parses, one per layout ------------------------------------------------

def primekg_kg_csv(files: list[Path]) -> Counts:
    (kg,) = files
    with kg.open("rb") as handle:
        split_header = handle.readline().decode("utf-8", "replace").rstrip("\r\n").split(",")
    if not {"x_index", "y_index", "x_type"} <= {h.strip().lstrip("\ufeff") for h in split_header}:
        raise Refused("not a kg.csv")
    columns = KG_COLUMNS
    _, rows = csv_rows(kg, columns)
    nodes: set[str] = set()
    facts: set[tuple[str, str, str, str]] = set()
    for row in rows:
        if good(row, keys=("x_index", "y_index", "x_type", "y_type", "relation"),
                names=columns, types=("x_type", "y_type", "relation")):
            nodes |= {row["x_index"], row["y_index"]}
            fact = (row["x_index"], row["relation"], row["display_relation"], row["y_index"])
            facts |= {fact, (fact[3], fact[1], fact[2], fact[0])}
    return len(nodes), len(facts)


def _import_rows(path: Path, roles: tuple[str, ...]) -> tuple[dict[str, str], list[dict]]:
    with path.open("rb") as handle:
        names = handle.readline().decode("utf-8", "replace").rstrip("\r\n").split(",")
    found = {}
    for name in (n.strip().lstrip("\ufeff") for n in names):
        role = name.partition(":")[2].split("(")[0].upper()
        if role in ("ID", "LABEL", "START_ID", "END_ID", "TYPE"):
            found[role] = name
    if any(r not in found for r in roles):
        raise Refused(f"no {roles} columns")
    header, rows = csv_rows(path, tuple(found[r] for r in roles))
    return found, [{**row, "_header": header} for row in rows]


def import_nodes(path: Path) -> list[str]:
    found, rows = _import_rows(path, ("ID",))
    label = (found["LABEL"],) if "LABEL" in found else ()
    ids = []
    for row in rows:
        others = tuple(c for c in row["_header"] if c not in (found["ID"], *label))
        if good(row, keys=(found["ID"],), names=others, types=label):
            ids.append(row[found["ID"]].strip())
    return ids


def import_edges(path: Path, nodes: set[str]) -> list[tuple[str, str, str, str]]:
    found, rows = _import_rows(path, ("START_ID", "END_ID", "TYPE"))
    roles = (found["START_ID"], found["END_ID"], found["TYPE"])
    edges = []
    for row in rows:
        others = tuple(c for c in row["_header"] if c not in roles)
        if good(row, keys=roles, names=others, types=(found["TYPE"],)):
            source, target, kind = (row[c].strip() for c in roles)
            if source in nodes and target in nodes:
                display = row.get("display_relation", "") or kind
                edges.append((source, kind, display, target))
    return edges


def primekg_export(files: list[Path]) -> Counts:
    nodes_file, edges_file, *features = files
    for feature in features:
        csv_header_of(feature, ("node_index",))
    nodes = set(import_nodes(nodes_file))
    facts = set(import_edges(edges_file, nodes))
    facts |= {(y, rel, display, x) for x, rel, display, y in facts}
    return len(nodes), len(facts)


def neo4j_import(files: list[Path]) -> Counts:
    nodes = set(import_nodes(files[0]))  # a repeated id is a malformed row
    return len(nodes), len(import_edges(files[1], nodes))


def csv_header_of(path: Path, required: tuple[str, ...]) -> None:
    """A file whose rows do not count (texts) but whose header or encoding can refuse."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None
    first = next(csv.reader(physical_lines(text)[:1]), [])
    if any(c not in [h.strip().lstrip("\ufeff") for h in first] for c in required):
        raise Refused("header")


def wikidatasets(files: list[Path]) -> Counts:
    by_name = {f.name: f for f in files}
    _, rows = csv_rows(by_name["entities.tsv"], ("entityID", "wikidataID", "label"), "\t")
    entities: dict[str, str] = {}
    for row in rows:
        if good(row, keys=("entityID",), names=("wikidataID", "label")):
            entities.setdefault(row["entityID"].strip(),
                                row["wikidataID"].strip() or row["entityID"].strip())
    _, rows = csv_rows(by_name["relations.tsv"], ("relationID", "wikidataID", "label"), "\t")
    relations: dict[str, str] = {}
    for row in rows:
        if good(row, keys=("relationID",), names=("label",), types=("relationID", "wikidataID")):
            relations.setdefault(row["relationID"].strip(),
                                 row["wikidataID"].strip() or row["relationID"].strip())
    facts: set[tuple[str, str, str]] = set()
    columns = ("headEntity", "tailEntity", "relation")
    for name in ("edges.tsv", "attributes.tsv"):
        _, rows = csv_rows(by_name[name], columns, "\t")
        for row in rows:
            head, tail, rel = (row[c].strip() for c in columns)
            if good(row, keys=columns) and {head, tail} <= entities.keys() and rel in relations:
                facts.add((entities[head], relations[rel], entities[tail]))
    csv_rows(by_name["nodes.tsv"], ("entityID",), "\t")
    return len({e for h, _, t in facts for e in (h, t)}), len(facts)


def triples_tsv(files: list[Path]) -> Counts:
    _, rows = csv_rows(files[0], ("headEntity", "tailEntity", "relation"), "\t")
    facts = set()
    for row in rows:
        value = {c: row[c].strip() for c in ("headEntity", "tailEntity", "relation")}
        if good(row, keys=tuple(value), types=("relation",)) and all(value.values()):
            facts.add((value["headEntity"], value["relation"], value["tailEntity"]))
    return len({e for h, _, t in facts for e in (h, t)}), len(facts)


def tab_lines(path: Path, kinds: tuple[str, ...], open_ended: bool = False
              ) -> list[list[str]]:
    """wikidata_common.read_tab_lines as the docs state it, line by line."""
    try:
        lines = [line.rstrip("\r\n") for line in physical_lines(path.read_bytes().decode())]
    except UnicodeDecodeError:
        raise Refused("not UTF-8") from None
    kept, first = [], True
    for line in lines:
        if first:
            line = line.lstrip("\ufeff")
        if not line.strip():
            continue
        width = len(kinds)
        fields = [f.strip() for f in (line.split("\t") if open_ended
                                      else line.split("\t", width - 1))]
        shaped = len(fields) >= width if open_ended else len(fields) == width
        if not (shaped and all(fields[:width])):
            if first:
                raise Refused(f"{path.name}: first line")
            continue
        kind_of = [*kinds, *["name"] * (len(fields) - width)]
        if all(kind == "text" or value_ok(value, required=kind != "name", is_type=kind == "type")
               for kind, value in zip(kind_of, fields, strict=True)):
            first = False
            kept.append(fields)
    return kept


def wikidata5m(files: list[Path]) -> Counts:
    triples, entity_file, relation_file = files
    facts = {tuple(f) for f in tab_lines(triples, ("key", "type", "key"))
             if f[1] not in ("P31", "P279", "P361", "P2184", "P2633")}
    tab_lines(entity_file, ("key", "name"), open_ended=True)
    tab_lines(relation_file, ("key", "name"), open_ended=True)
    return len({e for h, _, t in facts for e in (h, t)}), len(facts)


def wikidata5m_texts(files: list[Path]) -> Counts:
    entity_file, text_file = files
    qids = {f[0] for f in tab_lines(text_file, ("key", "text"))}
    tab_lines(entity_file, ("key", "name"), open_ended=True)
    return len(qids), 0


# --- the slices ------------------------------------------------------------------------------

def head_lines(source: Path, target: Path, count: int = SLICE) -> Path:
    with source.open("rb") as handle:
        target.write_bytes(b"".join(line for _, line in zip(range(count), handle, strict=False)))
    return target


def filtered(source: Path, target: Path, keep: Callable[[list[bytes]], bool],
             delimiter: bytes, header: bool = True) -> Path:
    lines = source.read_bytes().splitlines(keepends=True)
    chosen = lines[:1] if header else []
    chosen += [line for line in lines[int(header):]
               if keep(line.rstrip(b"\r\n").split(delimiter))][:SLICE]
    target.write_bytes(b"".join(chosen))
    return target


@dataclass
class Case:
    name: str
    fmt: str
    files: list[Path]
    expected: Callable[[list[Path]], Counts]
    settings: dict[str, str] | None = None


def make_cases(root: Path, out: Path) -> list[Case]:
    out.mkdir(exist_ok=True)
    cases = []

    primekg = root / "primekg"
    folder = out / "kg"
    folder.mkdir()
    cases.append(Case("primekg kg.csv", "primekg",
                      [head_lines(primekg / "kg_alzheimer_neighbourhood.csv", folder / "kg.csv")],
                      primekg_kg_csv))

    export = primekg / "diabetes_export"
    folder = out / "export"
    folder.mkdir()
    nodes = head_lines(export / "nodes.csv", folder / "nodes.csv")
    ids = {line.split(b",")[0] for line in nodes.read_bytes().splitlines()[1:]}
    edges = filtered(export / "edges.csv", folder / "edges.csv",
                     lambda f: f[0] in ids and f[1] in ids, b",")
    features = head_lines(export / "drug_features.csv", folder / "drug_features.csv", 40)
    cases.append(Case("primekg export", "primekg", [nodes, edges, features], primekg_export))
    folder = out / "import"
    folder.mkdir()
    cases.append(Case("neo4j-import", "neo4j-import",
                      [head_lines(nodes, folder / "nodes.csv"),
                       head_lines(edges, folder / "edges.csv")], neo4j_import))

    countries = root / "countries"
    folder = out / "wds"
    folder.mkdir()
    edges = head_lines(countries / "edges.tsv", folder / "edges.tsv", SLICE // 2)
    attributes = head_lines(countries / "attributes.tsv", folder / "attributes.tsv", SLICE // 2)
    used = {field for path in (edges, attributes)
            for line in path.read_bytes().splitlines()[1:] for field in line.split(b"\t")[:2]}
    entities = filtered(countries / "entities.tsv", folder / "entities.tsv",
                        lambda f: f[0] in used, b"\t")
    wds_files = [entities, head_lines(countries / "relations.tsv", folder / "relations.tsv"),
                 edges, attributes,
                 filtered(countries / "nodes.tsv", folder / "nodes.tsv",
                          lambda f: f[0] in used, b"\t")]
    cases.append(Case("wikidatasets", "wikidatasets", wds_files, wikidatasets))
    folder = out / "triples"
    folder.mkdir()
    cases.append(Case("triples", "triples", [head_lines(countries / "edges.tsv",
                                                        folder / "edges.tsv")], triples_tsv,
                      {"head": "headEntity", "tail": "tailEntity", "relation": "relation"}))

    wd5m = root / "wikidata5m_countries"
    folder = out / "wd5m"
    folder.mkdir()
    triples = head_lines(wd5m / "wikidata5m_all_triplet.txt", folder / "wikidata5m_all_triplet.txt")
    used = {f for line in triples.read_bytes().splitlines() for f in line.split(b"\t")}
    aliases = wd5m / "wikidata5m_alias"
    cases.append(Case("wikidata5m", "wikidata5m", [
        triples,
        filtered(aliases / "wikidata5m_entity.txt", folder / "wikidata5m_entity.txt",
                 lambda f: f[0] in used, b"\t", header=False),
        filtered(aliases / "wikidata5m_relation.txt", folder / "wikidata5m_relation.txt",
                 lambda f: f[0] in used, b"\t", header=False)], wikidata5m))
    sample = root / "wikidata5m_text_sample"
    folder = out / "wd5m_text"
    folder.mkdir()
    cases.append(Case("wikidata5m texts", "wikidata5m", [
        head_lines(sample / "wikidata5m_entity.txt", folder / "wikidata5m_entity.txt", 60),
        head_lines(sample / "wikidata5m_text.txt", folder / "wikidata5m_text.txt", 60)],
        wikidata5m_texts))
    return cases


# --- corruptions ----------------------------------------------------------------------------

def corrupt(data: bytes, rng: random.Random) -> bytes:
    """One random byte-level fault."""
    lines = data.splitlines(keepends=True) or [b""]
    index = rng.randrange(len(lines))
    line = lines[index]
    delimiter = b"\t" if b"\t" in line else b","
    kind = rng.choice(["truncate", "nul", "control", "quote", "utf8", "overlong", "swap",
                       "blank", "delimiter", "shuffle"])
    if kind == "shuffle":
        return shuffled_columns(lines, delimiter, rng)
    if kind == "truncate":
        return data[:rng.randrange(len(data) + 1)]
    if kind in ("nul", "control", "utf8", "delimiter"):
        byte = {"nul": b"\x00", "control": bytes([rng.choice([1, 7, 8, 11, 27, 31, 127])]),
                "utf8": rng.choice([b"\xff", b"\xc3", b"\x80"]), "delimiter": delimiter}[kind]
        at = rng.randrange(len(data) + 1)
        return data[:at] + byte + data[at:]
    fields = line.rstrip(b"\r\n").split(delimiter)
    ending = line[len(line.rstrip(b"\r\n")):]
    spot = rng.randrange(len(fields))
    if kind == "quote":
        fields[spot] = b'"' + fields[spot] if rng.random() < 0.8 else fields[spot] + b'"'
    elif kind == "overlong":
        fields[spot] = rng.choice([b"y" * 101, b"x" * 5000, "\u00e9".encode() * 2100])
    elif kind == "swap" and len(fields) > 1:
        other = rng.randrange(len(fields))
        fields[spot], fields[other] = fields[other], fields[spot]
    elif kind == "blank":
        fields = [b""] * len(fields)
    lines[index] = delimiter.join(fields) + ending
    return b"".join(lines)


def shuffled_columns(lines: list[bytes], delimiter: bytes, rng: random.Random) -> bytes:
    """The file's columns in another order, header included (lines with another field
    count than the first, such as one with a quoted delimiter, stay as they are)."""
    width = len(lines[0].rstrip(b"\r\n").split(delimiter))
    order = list(range(width))
    rng.shuffle(order)
    out = []
    for line in lines:
        body = line.rstrip(b"\r\n")
        fields = body.split(delimiter)
        if len(fields) == width:
            line = delimiter.join(fields[i] for i in order) + line[len(body):]
        out.append(line)
    return b"".join(out)


def corrupt_case(case: Case, rng: random.Random) -> None:
    for _ in range(rng.choice([1, 1, 2, 3])):
        path = rng.choice(case.files)
        path.write_bytes(corrupt(path.read_bytes(), rng))


def outcome(case: Case) -> Counts | str:
    """The loader's counts, or 'refused' for an InputError (or a KG with no entities)."""
    loader = get_loader(case.fmt, LoadOptions(settings=dict(case.settings or {})))
    try:
        data = loader.read(loader.source_files(case.files))
    except InputError as error:
        message = str(error)
        assert message and "\n" not in message.strip(), f"not one line: {message!r}"
        return "refused"
    return "refused" if data.node_count == 0 else (data.node_count, data.edge_count)


def independent(case: Case) -> Counts | str:
    try:
        counts = case.expected(case.files)
    except Refused:
        return "refused"
    return "refused" if counts[0] == 0 else counts


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    root = shared_data("primekg").parent
    for name in ("countries", "wikidata5m_countries", "wikidata5m_text_sample"):
        shared_data(name)
    return make_cases(root, tmp_path_factory.mktemp("slices"))


def test_the_independent_parse_agrees_on_the_clean_slices(cases: list[Case]) -> None:
    for case in cases:
        counts = outcome(case)
        assert counts == independent(case) != "refused", case.name


@pytest.mark.parametrize("index", range(7))
def test_random_corruptions(cases: list[Case], index: int, tmp_path: Path) -> None:
    case = cases[index]
    originals = {path: path.read_bytes() for path in case.files}
    outcomes: dict[str, int] = {}
    try:
        for seed in range(SEEDS):
            rng = random.Random(f"{case.name}:{seed}")
            for path, data in originals.items():
                path.write_bytes(data)
            corrupt_case(case, rng)
            got, expected = outcome(case), independent(case)
            if got != expected:
                kept = tmp_path / f"seed{seed}"
                kept.mkdir()
                for path in case.files:
                    (kept / path.name).write_bytes(path.read_bytes())
                pytest.fail(f"{case.name}, seed {seed}: loader {got}, independent parse "
                            f"{expected}; files in {kept}")
            outcomes["refused" if got == "refused" else "loaded"] = (
                outcomes.get("refused" if got == "refused" else "loaded", 0) + 1)
    finally:
        for path, data in originals.items():
            path.write_bytes(data)
    assert outcomes.get("loaded", 0) >= SEEDS // 4, outcomes  # most faults leave rows to load


@pytest.mark.parametrize("index", range(7))
def test_shuffled_columns(cases: list[Case], index: int) -> None:
    """Every file of the case with its columns in another order at once (the random faults
    shuffle one file): loaders reading by header name load the same rows."""
    case = cases[index]
    originals = {path: path.read_bytes() for path in case.files}
    try:
        for seed in range(8):
            rng = random.Random(f"shuffle:{case.name}:{seed}")
            for path, data in originals.items():
                lines = data.splitlines(keepends=True)
                path.write_bytes(shuffled_columns(lines, b"\t" if b"\t" in lines[0] else b",",
                                                  rng))
            assert outcome(case) == independent(case), f"{case.name}, seed {seed}"
    finally:
        for path, data in originals.items():
            path.write_bytes(data)


# --- the real `kgcert load` on the embedded server -------------------------------------------

def cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return kgcert_process(*args, data_dir=data_dir, timeout=400)


def copied(case: Case, folder: Path) -> Case:
    folder.mkdir()
    files = [folder / path.name for path in case.files]
    for source, target in zip(case.files, files, strict=True):
        target.write_bytes(source.read_bytes())
    return Case(case.name, case.fmt, files, case.expected, case.settings)


def first_seed(case: Case, refused: bool) -> None:
    """Corrupt the case's files with the first seed whose fault is refused (or loads)."""
    originals = {path: path.read_bytes() for path in case.files}
    for seed in range(SEEDS):
        for path, data in originals.items():
            path.write_bytes(data)
        corrupt_case(case, random.Random(f"{case.name}:{seed}"))
        if (independent(case) == "refused") == refused:
            return
    raise AssertionError(f"no seed of {case.name} is {'refused' if refused else 'loaded'}")


def test_kgcert_load_on_corrupt_files(cases: list[Case], tmp_path: Path) -> None:
    rows = cases[0].files[0].read_text(encoding="utf-8").splitlines(keepends=True)
    plain = [i for i, row in enumerate(rows) if i and '"' not in row]
    faults = {  # column -> a bad value, each in its own row
        "x_source": '"DrugBank',  # a quote that never closes
        "x_type": "dr\x00ug", "x_name": "n" * 10_000_000, "y_type": "d" * 100}
    for index, (column, value) in zip(plain[10::10], faults.items(), strict=False):
        fields = rows[index].rstrip("\n").split(",")
        fields[KG_COLUMNS.index(column)] = value
        rows[index] = ",".join(fields) + "\n"
    crafted = Case("crafted", "primekg", [tmp_path / "kg.csv"], primekg_kg_csv)
    crafted.files[0].write_text("".join(rows), encoding="utf-8")
    refused, loaded = (copied(case, tmp_path / name)
                       for case, name in ((cases[3], "refused"), (cases[4], "loaded")))
    first_seed(refused, refused=True)
    first_seed(loaded, refused=False)
    data_dir = tmp_path / "data"
    outcomes: dict[str, Counts | str] = {}
    for name, case in (("crafted", crafted), ("refused", refused), ("loaded", loaded)):
        settings = [f"--set={k}={v}" for k, v in (case.settings or {}).items()]
        done = cli("load", case.fmt, *map(str, case.files), "--kg", name, *settings,
                   data_dir=data_dir)
        outcomes[name] = independent(case)
        if outcomes[name] == "refused":
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            assert done.returncode != 0 and len(lines) == 1, done.stderr
            assert lines[0].startswith("error: ") and "Traceback" not in done.stderr
        else:
            assert done.returncode == 0, done.stderr
    assert outcomes["crafted"] != "refused" and outcomes["refused"] == "refused"
    done = cli("info", "--json", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    found = {report["kg"]: (report["nodes"], report["relationships"])
             for report in map(json.loads, done.stdout.splitlines())}
    assert found == {name: counts for name, counts in outcomes.items() if counts != "refused"}
