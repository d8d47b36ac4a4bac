"""Start-up of graph commands: what a warm command still has to import.

A command served by the warm server spends most of its time importing; these structural checks
keep the two big avoidable imports out: pandas (pulled in by the neo4j driver's optional
DataFrame support) and ANTLR's Cypher parser (needed only for a pattern not parsed before).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgcert.errors import InputError
from kgcert.specs.pattern import PatternEdge, parse_pattern

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_python(code: str, tmp_path: Path) -> dict[str, object]:
    """Runs `code` in a fresh interpreter (kgcert's cache in tmp_path); it prints one JSON line."""
    env = os.environ | {"KGCERT_CACHE_DIR": str(tmp_path / "cache"),
                        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT),
                                                       os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_graph_driver_loads_without_pandas(tmp_path: Path) -> None:
    result = run_python("import json, sys\n"
                        "import kgcert.store.graph\n"
                        "print(json.dumps({'pandas': 'pandas' in sys.modules}))", tmp_path)
    assert result == {"pandas": False}


def test_the_driver_never_has_pandas_support_whatever_came_first(tmp_path: Path) -> None:
    """pandas imported before the driver: the driver still goes without it, so kgcert behaves
    the same whichever command imported what first."""
    result = run_python("import json, sys, pandas\n"
                        "from kgcert.store.driver import neo4j\n"
                        "from neo4j import _optional_deps\n"
                        "print(json.dumps({'driver_pd': _optional_deps.pd is None,\n"
                        "                  'pandas_kept': sys.modules['pandas'] is pandas}))",
                        tmp_path)
    assert result == {"driver_pd": True, "pandas_kept": True}


PATTERN = "(d:drug)-[:indication]->(x:disease), (d)-[:contraindication]->(y:disease)"
PARSE_AND_REPORT = f"""
import json, sys
from kgcert.specs.pattern import parse_pattern
graph = parse_pattern({PATTERN!r})
print(json.dumps({{"antlr": "antlr4" in sys.modules, "labels": graph.labels,
                  "edges": [[e.source, e.rel_type, e.target] for e in graph.edges]}}))
"""


def test_a_pattern_parsed_before_is_read_from_the_cache(tmp_path: Path) -> None:
    first = run_python(PARSE_AND_REPORT, tmp_path)
    second = run_python(PARSE_AND_REPORT, tmp_path)
    assert first["antlr"] is True and second["antlr"] is False
    assert first["labels"] == second["labels"] == {"d": "drug", "x": "disease", "y": "disease"}
    assert first["edges"] == second["edges"] == [["d", "indication", "x"],
                                                 ["d", "contraindication", "y"]]


def test_a_damaged_cache_entry_is_parsed_again(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGCERT_CACHE_DIR", str(tmp_path))
    parsed = parse_pattern(PATTERN)
    (entry,) = (tmp_path / "patterns").iterdir()
    assert entry.stat().st_mode & 0o077 == 0
    for damage in ("", "{not json", '{"labels": [["d"]], "edges": []}'):
        entry.write_text(damage)
        assert parse_pattern(PATTERN) == parsed
    assert parse_pattern(PATTERN).edges[0] == PatternEdge("d", "indication", "x")


def test_a_bad_pattern_fails_every_time_and_is_not_cached(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGCERT_CACHE_DIR", str(tmp_path))
    for _ in range(2):
        with pytest.raises(InputError, match="syntax error"):
            parse_pattern("(d:drug)-[:indication]->(")
    assert not (tmp_path / "patterns").exists() or not any((tmp_path / "patterns").iterdir())


def test_a_shipped_spec_found_by_its_file_is_the_catalogs() -> None:
    """find_spec reads only the file a shipped name points to; it must agree with the catalog
    for every shipped spec."""
    from kgcert.specs import find_spec
    from kgcert.specs.catalog import catalog

    for entry in catalog():
        assert find_spec(entry.spec.name) == entry


LIST_AND_REPORT = """
import json, sys
from pathlib import Path
from kgcert.specs.listing import listed_specs
extra = [Path(p) for p in sys.argv[1:]]
names = [(s.name, s.description) for s in listed_specs(extra)]
print(json.dumps({"pydantic": "pydantic" in sys.modules, "names": names}))
"""


def test_specs_list_reads_its_cache_until_a_spec_changes(tmp_path: Path) -> None:
    from kgcert.specs.catalog import catalog

    mine = tmp_path / "mine"
    mine.mkdir()
    spec = REPO_ROOT / "specs" / "primekg" / "dual_indication.yaml"
    text = spec.read_text().replace("name: primekg.dual_indication", "name: mine.dual")
    (mine / "dual.yaml").write_text(text)

    def listing() -> dict[str, object]:
        code = LIST_AND_REPORT
        env = os.environ | {"KGCERT_CACHE_DIR": str(tmp_path / "cache"),
                            "PYTHONPATH": os.pathsep.join([str(REPO_ROOT),
                                                           os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run([sys.executable, "-c", code, str(mine)], env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
        return result

    first, second = listing(), listing()
    assert first["pydantic"] is True and second["pydantic"] is False
    expected = [[e.spec.name, e.spec.description] for e in catalog([mine])]
    assert first["names"] == second["names"] == expected
    (mine / "dual.yaml").write_text(text.replace("name: mine.dual", "name: mine.renamed"))
    third = listing()
    assert third["pydantic"] is True and ["mine.renamed", expected[-1][1]] in third["names"]


def test_a_broken_spec_is_reported_every_time(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken file is reported on every listing (from the cache too), and the other specs
    are still listed (issue 32: one bad file must not hide the rest)."""
    from kgcert.specs.listing import listing

    monkeypatch.setenv("KGCERT_CACHE_DIR", str(tmp_path / "cache"))
    mine = tmp_path / "mine"
    mine.mkdir()
    listing([mine])  # cached without it
    (mine / "bad.yaml").write_text("name: mine.bad\nkind: relation\n")
    for _ in range(2):
        listed, unusable = listing([mine])
        assert [problem.path for problem in unusable] == [str(mine / "bad.yaml")]
        assert "mine.bad" not in {spec.name for spec in listed} and len(listed) > 50
