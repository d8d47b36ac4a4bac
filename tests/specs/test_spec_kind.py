"""The spec-kind contract (kgcert/specs/kind.py): every shipped spec classified as the kind its
file states, and no module outside the contract deciding a spec's kind itself (no isinstance
against the spec classes, no comparison of a kind with a kind name), read from the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kgcert.specs import load_spec_file
from kgcert.specs.folders import is_suite_file
from kgcert.specs.kind import (
    ENTITY,
    KINDS,
    RELATION,
    TASK,
    composed_spec,
    entity_spec,
    kind_named,
    recorded_kind,
    relation_spec,
    spec_kind,
    task_spec,
)
from kgcert.util.yamlfile import read_yaml

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "kgcert"
CONTRACT = PACKAGE / "specs" / "kind.py"
# The spec file parser: a file's `kind` key picks the parsed class there (refused in one line
# when it names no kind); the contract reads the kind from that class.
PARSER = PACKAGE / "specs" / "model.py"
SPEC_CLASSES = {"RelationSpec", "EntitySpec", "TaskSpec", "AnySpec"}
KIND_NAMES = set(KINDS)


def _shipped() -> list[Path]:
    return sorted(path for path in (REPO / "specs").rglob("*.yaml") if not is_suite_file(path))


@pytest.mark.parametrize("path", _shipped(), ids=lambda p: str(p.relative_to(REPO / "specs")))
def test_every_shipped_spec_is_classified_as_the_kind_its_file_states(path):
    stated = read_yaml(path, "spec file")["kind"]
    spec = load_spec_file(path)
    kind = spec_kind(spec)
    assert kind is kind_named(stated)
    # The narrowing helpers agree with the kind, each giving the spec back or None.
    assert (relation_spec(spec) is spec) == (kind is RELATION) == kind.dag
    assert (entity_spec(spec) is spec) == (kind is ENTITY) == kind.path
    assert (task_spec(spec) is spec) == (kind is TASK) == kind.task
    assert (composed_spec(spec) is spec) == kind.composed == (kind is not TASK)


def test_the_shipped_specs_hold_every_kind():
    kinds = {spec_kind(load_spec_file(path)) for path in _shipped()}
    assert kinds == {RELATION, ENTITY, TASK}


def test_a_recorded_kind_is_read_back_and_anything_else_is_none():
    assert recorded_kind("relation") is RELATION and recorded_kind("entity") is ENTITY
    assert recorded_kind("task") is TASK
    for other in ("suite", None, float("nan"), 3, "Relation"):
        assert recorded_kind(other) is None
    with pytest.raises(ValueError, match="relation, entity or task"):
        kind_named("suite")
    with pytest.raises(TypeError):
        spec_kind("relation")  # type: ignore[arg-type]


def test_each_kind_means_one_thing():
    assert [k.name for k in (RELATION, ENTITY, TASK)] == ["relation", "entity", "task"]
    assert RELATION.composed and RELATION.dag and not RELATION.path and not RELATION.task
    assert ENTITY.composed and ENTITY.path and not ENTITY.dag and not ENTITY.task
    assert TASK.task and not (TASK.composed or TASK.dag or TASK.path)


# -- no kind decided outside the contract ------------------------------------------------------

def _spec_class_names(tree: ast.AST) -> set[str]:
    """Local names bound to the spec classes of kgcert.specs (not kgcert.tasks' TaskSpec, the
    task generator's own data, which is not a spec kind)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kgcert.specs"):
            found |= {alias.asname or alias.name for alias in node.names
                      if alias.name in SPEC_CLASSES}
    return found


def _named(node: ast.expr) -> set[str]:
    """Every name in an isinstance target: a name, a tuple, a union `A | B`, `specs.A`."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Tuple):
        return set().union(*(_named(e) for e in node.elts))
    if isinstance(node, ast.BinOp):
        return _named(node.left) | _named(node.right)
    return set()


def _kind_literals(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in KIND_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_kind_literals(e) for e in node.elts)
    return False


def kind_decisions(source: str) -> list[str]:
    """Where `source` decides a spec's kind itself: isinstance against a spec class, or a
    kind (an expression that names `kind`) compared with a kind name."""
    tree = ast.parse(source)
    classes = _spec_class_names(tree) | {"RelationSpec", "EntitySpec"}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2
                and _named(node.args[1]) & classes):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_kind_literals(side) for side in sides) and any(
                    "kind" in ast.unparse(side) for side in sides):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_outside_the_contract_decides_a_spec_kind():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (CONTRACT, PARSER):
            continue
        decisions = kind_decisions(path.read_text(encoding="utf-8"))
        if decisions:
            found[str(path.relative_to(REPO))] = decisions
    assert found == {}


@pytest.mark.parametrize("source", [
    "from kgcert.specs import TaskSpec\nif isinstance(spec, TaskSpec): pass",
    "from kgcert.specs.model import RelationSpec as R\nok = isinstance(s, (int, R))",
    "ok = isinstance(spec, RelationSpec | EntitySpec)",
    "ok = spec.kind == 'relation'",
    "ok = provenance.get('kind') != 'entity'",
    "ok = result.kind not in ('relation', 'entity')",
    "ok = (group['spec_kind'] == 'task').any()",
])
def test_the_checker_finds_a_kind_decided_in_place(source):
    assert kind_decisions(source)


@pytest.mark.parametrize("source", [
    "from kgcert.tasks.spec import TaskSpec\nok = isinstance(spec, TaskSpec)",  # not a spec kind
    "ok = part == 'relation'",  # a triple's part, not a kind
    "ok = certificate['spec_kind'] == 'suite'",  # a suite is no spec kind
])
def test_the_checker_leaves_other_comparisons_alone(source):
    assert not kind_decisions(source)
