"""Issue 44's before/after table, read from the source of a checkout (nothing is run):

    python benchmarks/run_record_metrics.py [--tree PATH]      # one column (default: this tree)
    python benchmarks/run_record_metrics.py --compare A B      # two checkouts side by side
    python benchmarks/run_record_metrics.py --tree PATH --sites  # and where each count comes from

Rows: modules and lines of kgcert/; import circles counting type-only imports (those under
`if TYPE_CHECKING:` too; the circle search is tests/project/test_import_graph.py's); string-key
reads of certificate fields and raw JSON reads of certificates (the rule below); the largest
function; kgcert/run/'s size; run.yaml write sites.

String-key read: in a module of kgcert/ outside kgcert/certify/, an `x["name"]` subscript
(read, not written) or `x.get("name", ...)` call whose `name` is in CERTIFICATE_FIELDS.
Raw JSON read of a certificate: a json.load/json.loads call outside kgcert/rundir/run_dir.py
and kgcert/certify/, in a function (or module body) that names certificates (its name, an
identifier, attribute or argument holding "cert", kgcert and certificate_history aside, a
string starting "certificates/", or the Runner, whose run() returns certificate files), or
whose loaded value the function reads by a top-level certificate field: the source cannot say
where a path points, so the `--sites` list is there to check the count by eye. run.yaml write
site: a call whose callee's name holds write, dump or replac, given (or called on) the run
file (`.run_file`, RUN_FILE, "run.yaml", or a name the same function bound to one of those).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parents[1]

# Every key that certificates written by main 5e25278 hold at the top level, or one level down
# (in a dict at the top level, or in the dicts of a list there), collected from a fixed-n run,
# a suite run and an `--until ranked` race (benchmarks/run_record_cases.py), less the generic
# names that also key sample records, run files and CSV rows (GENERIC).
GENERIC = frozenset({"spec", "setting", "model", "k", "n", "confidence", "seed", "kg", "index",
                     "outcome", "prompt"})
TOP_LEVEL_FIELDS = frozenset({
    "budget", "chance", "comparisons", "conditioning", "cost", "created_at", "design",
    "distractors_required", "estimate", "few_shot", "flags", "generation", "guarantee",
    "kg_fingerprint", "libraries", "looks", "lower", "method", "model_identity", "multiplicity",
    "options", "outcomes", "population", "positions", "sample_file", "samples_recorded",
    "samples_requested", "seed_source", "sequential", "simultaneous", "spec_file", "spec_hash",
    "spec_kind", "suite", "suite_counts", "unconditional", "unparseable_excluded", "upper",
    "validity", "warnings", "written_at_n",
}) - GENERIC
CERTIFICATE_FIELDS = frozenset({
    "answered", "anthropic", "arcadedb-embedded", "bounds", "budget", "cache_hits", "calls",
    "calls_saved", "calls_without_token_counts", "certified", "chance", "choice_prefix", "chosen",
    "comparisons", "completion_tokens", "components", "conditioning", "correct", "cost",
    "created_at", "design", "distractors_in_context", "distractors_required", "draw", "drawn",
    "each_at", "earlier", "error", "errors_excluded", "estimate", "failed_calls", "few_shot",
    "fixed_n_calls", "flags", "generation", "google-genai", "gpu_s", "guarantee", "half_width",
    "httpx", "joint_confidence", "jointly_at_least", "kg_fingerprint", "kgcert", "level",
    "libraries", "looks", "lower", "margin", "max_new_tokens", "method", "mode", "model_identity",
    "money_usd", "multiplicity", "name", "neo4j", "numpy", "options", "outcomes", "p", "parsed",
    "per_spec", "population", "positions", "price_per_million_tokens", "prompt_tokens",
    "provider", "python", "reading", "refused", "refused_counted_wrong", "sample_file",
    "samples_recorded", "samples_requested", "scipy", "seed_source", "sequential", "sided",
    "simultaneous", "skip_causes", "skip_reasons", "skipped", "spec_file", "spec_hash",
    "spec_kind", "stop_at_answer", "stopped_at_index", "suite", "suite_counts", "suite_redraws",
    "temperature", "test", "this_look_confidence", "threshold", "top_p", "torch", "transformers",
    "unconditional", "unparseable", "unparseable_counted_wrong", "unparseable_excluded",
    "unparseable_rate", "until", "upper", "validity", "wall_s", "warnings", "weighting",
    "written_at_n", "wrong",
}) - GENERIC


def _modules_of(sites: list[str]) -> int:
    return len({site.partition(":")[0] for site in sites})


@dataclass
class Column:
    modules: int = 0
    lines: int = 0
    circles: list[list[str]] = field(default_factory=list)
    key_reads: list[str] = field(default_factory=list)  # "module:line name"
    json_reads: list[str] = field(default_factory=list)
    largest: tuple[str, int] = ("", 0)
    run_modules: int = 0
    run_lines: int = 0
    run_yaml_writes: list[str] = field(default_factory=list)

    def top_level_reads(self) -> int:
        return sum(1 for site in self.key_reads if site.rpartition(" ")[2] in TOP_LEVEL_FIELDS)

    def rows(self) -> list[tuple[str, str]]:
        return [("modules (kgcert/)", f"{self.modules}"), ("lines (kgcert/)", f"{self.lines:,}"),
                ("import circles (type-only included)", f"{len(self.circles)}"),
                # the broad rule: `x["name"]` on any object; the precise one, reads of a
                # certificate's own fields by key, is tests/project/test_certificate_access.py's
                ("string-key reads of certificate field names, any object",
                 f"{len(self.key_reads)} in {_modules_of(self.key_reads)} modules"),
                ("  of which top-level fields", f"{self.top_level_reads()}"),
                ("raw JSON reads of certificates",
                 f"{len(self.json_reads)} in {_modules_of(self.json_reads)} modules"),
                ("largest function", f"{self.largest[0]} ({self.largest[1]} lines)"),
                ("run/ size", f"{self.run_modules} modules, {self.run_lines:,} lines"),
                ("run.yaml write sites", f"{len(self.run_yaml_writes)}")]


def _import_graph_test(tree: Path) -> ModuleType:
    """tests/project/test_import_graph.py of this checkout, for its circle search."""
    path = HERE / "tests" / "project" / "test_import_graph.py"
    spec = importlib.util.spec_from_file_location("import_graph_of_tests", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file of every module under `root` (a checkout's kgcert/)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_with_type_only(tree: ast.AST, modules: dict[str, Path], package: str) -> set[str]:
    """The modules one module imports: every import, those under TYPE_CHECKING included (the
    edge rule of test_import_graph.py otherwise)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(kept + ([base] if base else []))
            for alias in node.names:
                name = f"{base}.{alias.name}"
                if name in modules:
                    found.add(name)
                elif base in modules:
                    found.add(base)
    return found


def _string(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def certificate_key_reads(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            name = _string(node.slice)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "get" and node.args):
            name = _string(node.args[0])
        else:
            continue
        if name in CERTIFICATE_FIELDS:
            yield node.lineno, name


def _scopes(tree: ast.Module) -> Iterator[ast.AST]:
    """Each function, and the module body less its functions."""
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    yield from functions
    yield ast.Module(body=[n for n in tree.body if not isinstance(
        n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)], type_ignores=[])


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a scope, nested functions left to their own scope."""
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        yield node
        pending.extend(ast.iter_child_nodes(node))


CERT_WORD = re.compile(r"(?<!kg)cert", re.IGNORECASE)  # kgcert itself aside
CERT_FOLDER = re.compile(r"^certificates?(/|$)")


def _words(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, ast.arg):
        yield node.arg
    elif CERT_FOLDER.match(_string(node) or ""):  # a path, not a sentence about certificates
        yield str(_string(node))


def _json_load(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("load", "loads") and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "json")


def _reads_certificate_fields(nodes: list[ast.AST]) -> set[str]:
    """Names of this scope read by string key with a top-level certificate field."""
    found = set()
    for node in nodes:
        target: ast.AST | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            target, key = node.value, _string(node.slice)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "get" and node.args):
            target, key = node.func.value, _string(node.args[0])
        if isinstance(target, ast.Name) and key in TOP_LEVEL_FIELDS:
            found.add(target.id)
    return found


def certificate_json_reads(tree: ast.Module) -> Iterator[int]:
    """json.load(s) calls in a scope that names certificates (or the Runner, whose run()
    returns certificate files), or whose loaded value is read by a certificate field."""
    for scope in _scopes(tree):
        nodes = list(_own_nodes(scope))
        words = [w for node in nodes for w in _words(node)]
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            words.append(scope.name)
        names_certificates = any(CERT_WORD.search(word) and "history" not in word.lower()
                                 for word in words) or "Runner" in words
        field_readers = _reads_certificate_fields(nodes)
        for node in nodes:
            if isinstance(node, ast.Assign) and any(_json_load(n) for n in ast.walk(node.value)):
                loaded_into = {t.id for t in node.targets if isinstance(t, ast.Name)}
                if names_certificates or loaded_into & field_readers:
                    yield from (n.lineno for n in ast.walk(node.value) if _json_load(n))
            elif names_certificates and _json_load(node) and not any(
                    node in list(ast.walk(a.value)) for a in nodes if isinstance(a, ast.Assign)):
                yield node.lineno


def _names_run_file(node: ast.AST, bound: set[str]) -> bool:
    return any((isinstance(n, ast.Attribute) and n.attr == "run_file")
               or (isinstance(n, ast.Name) and (n.id == "RUN_FILE" or n.id in bound))
               or _string(n) == "run.yaml" for n in ast.walk(node))


def run_yaml_writes(tree: ast.Module) -> Iterator[int]:
    for scope in _scopes(tree):
        nodes = list(_own_nodes(scope))
        bound: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.Assign) and _names_run_file(node.value, set()):
                bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else "")
            given = [*node.args, *([node.func.value] if isinstance(node.func, ast.Attribute)
                                   else [])]  # write_text(path, ...) or path.write_text(...)
            if re.search(r"write|dump|replac", callee) and any(
                    _names_run_file(a, bound) for a in given):
                yield node.lineno


def measure(tree: Path) -> Column:
    root = tree / "kgcert"
    if not root.is_dir():
        raise SystemExit(f"no kgcert/ in {tree}")
    modules = module_names(root)
    column = Column(modules=len(modules))
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(tree).as_posix()
        parsed = ast.parse(text)
        count = len(text.splitlines())
        column.lines += count
        if where.startswith("kgcert/run/"):
            column.run_modules += 1
            column.run_lines += count
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = imports_with_type_only(parsed, modules, package) - {name}
        if not where.startswith("kgcert/certify/"):
            column.key_reads += [f"{where}:{line} {key}"
                                 for line, key in certificate_key_reads(parsed)]
            if where != "kgcert/rundir/run_dir.py":
                column.json_reads += [f"{where}:{line}" for line in certificate_json_reads(parsed)]
        column.run_yaml_writes += [f"{where}:{line}" for line in run_yaml_writes(parsed)]
        for node in ast.walk(parsed):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > column.largest[1]:
                    column.largest = (f"{name}.{node.name}", size)
    column.circles = _import_graph_test(tree).circles(graph)
    return column


def table(columns: dict[str, Column]) -> str:
    heads = list(columns)
    rows = [[label, *(dict(c.rows())[label] for c in columns.values())]
            for label, _ in next(iter(columns.values())).rows()]
    widths = [max(len(r[i]) for r in [["", *heads], *rows]) for i in range(len(heads) + 1)]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |"
             for row in [["", *heads], *rows]]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _site_order(site: str) -> tuple[str, int]:
    where, _, line = site.split(" ")[0].rpartition(":")
    return where, int(line)


def sites(name: str, column: Column) -> str:
    parts = [f"{name}:", "  circles: " + "; ".join(" - ".join(c) for c in column.circles)]
    for label, found in (("string-key reads", column.key_reads),
                         ("raw JSON reads", column.json_reads),
                         ("run.yaml writes", column.run_yaml_writes)):
        parts.append(f"  {label}:")
        parts += [f"    {site}" for site in sorted(found, key=_site_order)]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=HERE, help="A checkout (default: this one).")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"), default=None,
                        help="Two checkouts, one column each.")
    parser.add_argument("--sites", action="store_true", help="Also list where each count is.")
    args = parser.parse_args(argv)
    trees = list(args.compare) if args.compare else [args.tree]
    heads = [str(tree) for tree in trees]
    if len(set(heads)) < len(heads):  # the same checkout twice
        heads = [f"{'AB'[i]}: {head}" for i, head in enumerate(heads)]
    columns = {head: measure(tree) for head, tree in zip(heads, trees, strict=True)}
    print(table(columns))
    if args.sites:
        for name, column in columns.items():
            print(sites(name, column))


if __name__ == "__main__":
    main()
