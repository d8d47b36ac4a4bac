"""benchmarks/certificate_equivalence.py's comparison of two run directories: a changed number
or sentence, a missing file or field is a difference; the fields it names as ignored and the
checkouts' own paths are not. (The harness itself runs kgcert on two checkouts: a benchmark,
run by hand.)"""

from __future__ import annotations

import json
from pathlib import Path

from benchmark_modules import load_benchmark

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "old_runs"


def _copy_of(case: str, into: Path, checkout: Path) -> Path:
    """The old fixed-n run's compared files, its checkout placeholder made `checkout`."""
    for path in (FIXTURES / case).rglob("*"):
        if path.is_file():
            target = into / path.relative_to(FIXTURES / case)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text().replace("<checkout>", str(checkout)))
    return into


def _edit(path: Path, **changes: object) -> None:
    body = json.loads(path.read_text())
    for dotted, value in changes.items():
        *parents, key = dotted.split("__")
        place = body
        for parent in parents:
            place = place[parent]
        place[key] = value
    path.write_text(json.dumps(body))


def test_only_what_is_not_ignored_differs(tmp_path: Path):
    harness = load_benchmark("certificate_equivalence")
    mine = _copy_of("fixed", tmp_path / "mine", tmp_path / "tree-a")
    theirs = _copy_of("fixed", tmp_path / "theirs", tmp_path / "tree-b")
    compare = lambda: harness.compare_run_dirs(mine, theirs, tmp_path / "tree-a",  # noqa: E731
                                               tmp_path / "tree-b")
    assert compare() == []  # spec_file names each side's checkout: the same
    [first, second] = sorted((mine / "certificates").glob("*.json"))
    _edit(first, created_at="2030-01-01", record_version=9, cost__wall_s=99.0,
          libraries={"python": "9"})
    assert compare() == []
    _edit(first, upper=0.5, guarantee="another sentence")
    _edit(second, outcomes__correct=0)
    (mine / "design.json").unlink()
    found = compare()
    assert any(line.startswith(f"certificates/{first.name}: upper: ") for line in found)
    assert any(line.startswith(f"certificates/{first.name}: guarantee: ") for line in found)
    assert any(line.startswith(f"certificates/{second.name}: outcomes.correct: ")
               for line in found)
    assert "design.json: only in baseline" in found
    assert len(found) == 4
