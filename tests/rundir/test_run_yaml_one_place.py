"""run.yaml and design.json are read and written by `RunDir` alone: no other module of the
package asks `RunLayout` for their paths (the live report only stats run.yaml to notice a
change and to find run folders, and never reads it)."""

from __future__ import annotations

import ast
from pathlib import Path

import kgcert

PACKAGE = Path(kgcert.__file__).resolve().parent
OWNERS = {"rundir/layout.py", "rundir/run_dir.py"}
STATS_ONLY = {"report/live.py": "run_file"}


def _uses(attribute: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        count = sum(isinstance(node, ast.Attribute) and node.attr == attribute
                    for node in ast.walk(tree))
        if count:
            found[name] = count
    return found


def test_only_run_dir_touches_run_yaml_and_design_json() -> None:
    for attribute in ("run_file", "design_file"):
        outside = {name for name in _uses(attribute) if name not in OWNERS
                   and STATS_ONLY.get(name) != attribute}
        assert outside == set(), f"{attribute} used outside RunDir: {sorted(outside)}"


def test_run_dir_does_use_them() -> None:
    """The scan sees what it looks for (else the check above could not fail)."""
    assert _uses("run_file").get("rundir/run_dir.py", 0) >= 1
    assert _uses("design_file").get("rundir/run_dir.py", 0) >= 1
    assert "run.yaml" in (PACKAGE / "rundir" / "layout.py").read_text(encoding="utf-8")
