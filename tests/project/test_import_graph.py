"""kgcert's import graph, read from the source: no import circle anywhere in kgcert/, and no
import from a lower layer to a higher one.

Every `import` counts: at module level, inside a function (a circle held apart by a local
import is still a circle) and under `if TYPE_CHECKING:` (a circle of type-only imports is still
two modules that each need the other to be read; types both sides name go to a module both
import). An import
of `a.b` is an edge to module `a.b` (a package's `__init__`); `from a import b` is an edge to
`a.b` when that is a module, else to `a`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "kgcert"

# Lowest first. A module may import its own layer's modules (without a circle) and lower
# layers', never a higher layer's. An entry names a package (and everything under it) or a
# module; "kgcert" is the package's own __init__ only.
LAYERS: tuple[tuple[str, ...], ...] = (
    # plumbing: the version, the one-line errors, files, paths, seeds, defaults, and the one
    # registry (its targets are "module:attr" strings, imported on first use)
    ("kgcert", "kgcert.errors", "kgcert.util", "kgcert.plugins"),
    # statistics and the graph servers
    ("kgcert.stats", "kgcert.store"),
    # the KG read in (loaders, loading) and read out (specs, the read model, prompts, tasks,
    # textualizations), and the models asked; graphview sits here because it reads compiled
    # relation specs
    ("kgcert.loaders", "kgcert.loading", "kgcert.specs", "kgcert.graphview", "kgcert.prompts",
     "kgcert.tasks", "kgcert.textualize", "kgcert.models", "kgcert.answer_format"),
    # a run: prompts asked of models, certificates written
    ("kgcert.run", "kgcert.rundir", "kgcert.certify"),
    # what is made of runs and KGs: reports, write-back, exports, synthetic KGs, and the
    # simulations of whole runs (they drive the runner, for tests and benchmarks)
    ("kgcert.report", "kgcert.writeback", "kgcert.export", "kgcert.synth", "kgcert.simulate"),
    # the command line
    ("kgcert.cli", "kgcert.__main__"),
)

# Run orchestration: asking models, planning looks, resuming. What is made of runs reads them
# through kgcert.rundir and kgcert.certify, never through these.
ORCHESTRATION = ("kgcert.run",)
MADE_OF_RUNS = ("kgcert.report", "kgcert.writeback", "kgcert.export")
# Imports of orchestration still allowed (none: write-back reads a run's RunSpec from rundir/).
PENDING: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(tree: ast.AST, modules: dict[str, Path], package: str) -> set[str]:
    found: set[str] = set()
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            for alias in node.names:
                name = f"{base}.{alias.name}"
                if name in modules:
                    found.add(name)
                elif base in modules:
                    found.add(base)
        pending.extend(ast.iter_child_nodes(node))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = _imports(ast.parse(path.read_text(encoding="utf-8")), modules,
                               package) - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def layer_of(name: str) -> int:
    """The layer of module `name`: its longest matching entry in LAYERS."""
    best: tuple[int, int] | None = None
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            covers = name == entry or (entry != "kgcert" and name.startswith(entry + "."))
            if covers and (best is None or len(entry) > best[1]):
                best = (index, len(entry))
    if best is None:
        raise AssertionError(f"{name} is in no layer: add it to LAYERS")
    return best[0]


def test_kgcert_has_no_import_circle():
    assert circles(import_graph()) == []


def test_no_module_imports_a_higher_layer():
    graph = import_graph()
    upward = sorted((name, target) for name, targets in graph.items() for target in targets
                    if layer_of(target) > layer_of(name))
    assert upward == []


def test_every_module_has_a_layer():
    for name in import_graph():
        layer_of(name)


def test_the_layer_rule_catches_an_upward_import():
    assert layer_of("kgcert.util.rng") < layer_of("kgcert.run.runner")
    assert layer_of("kgcert.cli.run") == len(LAYERS) - 1
    assert layer_of("kgcert") == 0 and layer_of("kgcert.specs.listing") == 2


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def orchestration_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module, orchestration module it imports) for every report, write-back or export
    module."""
    return {(name, target) for name, targets in graph.items() if _within(name, MADE_OF_RUNS)
            for target in targets if _within(target, ORCHESTRATION)}


def test_reports_write_back_and_exports_import_no_run_orchestration():
    assert orchestration_imports(import_graph()) <= PENDING


def test_the_run_directory_imports_no_run_orchestration():
    """rundir holds the run's record (RunSpec, the run-file keys, the suite record) that
    orchestration, reports and write-back read: it imports none of kgcert.run, lazily or
    for types either."""
    graph = import_graph()
    assert {(name, target) for name, targets in graph.items() if _within(name, ("kgcert.rundir",))
            for target in targets if _within(target, ORCHESTRATION)} == set()


def test_the_orchestration_rule_catches_an_import():
    graph = {"kgcert.report.html": {"kgcert.run.runner", "kgcert.rundir.run_dir"},
             "kgcert.export.rdf": {"kgcert.certify.comparison"},
             "kgcert.cli.run": {"kgcert.run.runner"}}
    assert orchestration_imports(graph) == {("kgcert.report.html", "kgcert.run.runner")}


def test_the_read_model_does_not_import_the_composer():
    graph = import_graph()
    upward = {(name, target) for name, targets in graph.items()
              if name.startswith("kgcert.graphview") for target in targets
              if target.startswith(("kgcert.prompts", "kgcert.tasks", "kgcert.run"))}
    assert upward == set()
