"""kgcert's import graph, read from the source: the prompt house has no import circle.

Every `import` counts, at module level or inside a function (a circle held apart by a local
import is still a circle), except those under `if TYPE_CHECKING:`, which never run. An import
of `a.b` is an edge to module `a.b` (a package's `__init__`); `from a import b` is an edge to
`a.b` when that is a module, else to `a`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "kgcert"
# The modules of the renovated prompt house (issue 29, items 1 and 2).
CHECKED = ("kgcert.graphview", "kgcert.prompts", "kgcert.tasks.prompt",
           "kgcert.tasks.pseudonym", "kgcert.cli.prompts")


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, modules: dict[str, Path], package: str) -> set[str]:
    found: set[str] = set()
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            pending.extend(node.orelse)
            continue
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


def _checked(name: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in CHECKED)


def test_the_prompt_house_has_no_import_circle():
    found = [c for c in circles(import_graph()) if any(_checked(m) for m in c)]
    assert found == []


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]


def test_the_read_model_does_not_import_the_composer():
    graph = import_graph()
    upward = {(name, target) for name, targets in graph.items()
              if name.startswith("kgcert.graphview") for target in targets
              if target.startswith(("kgcert.prompts", "kgcert.tasks", "kgcert.run"))}
    assert upward == set()
