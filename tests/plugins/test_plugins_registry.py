"""The one registry behind models, loaders, tasks, textualizations and CLI commands: targets
imported only when used, one-line errors suggesting the closest name, and every shipped table
pointing at what it names."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from kgcert.cli import COMMANDS
from kgcert.errors import InputError, MissingDependencyError
from kgcert.loaders import LOADERS
from kgcert.models.registry import PROVIDERS
from kgcert.plugins.registry import Registry
from kgcert.tasks.registry import TASKS
from kgcert.textualize.registry import TEXTUALIZERS
from tests.project.test_import_graph import import_graph

TABLES: dict[str, Registry[Any]] = {"kgcert.cli": COMMANDS, "kgcert.loaders": LOADERS,
          "kgcert.models.registry": PROVIDERS, "kgcert.tasks.registry": TASKS,
          "kgcert.textualize.registry": TEXTUALIZERS}


def test_a_target_is_imported_on_first_load_only() -> None:
    code = ("import sys\n"
            "from kgcert.plugins.registry import Registry\n"
            "r = Registry('codec', 'known codecs')\n"
            "r.add('json', 'json.decoder:JSONDecoder')\n"
            "before = 'json.decoder' in sys.modules\n"
            "print(before, r.load('json').__name__, 'json.decoder' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "JSONDecoder", "True"]


def test_unknown_names_suggest_the_closest_on_one_line() -> None:
    with pytest.raises(InputError) as near:
        LOADERS.load("primkg")
    assert str(near.value) == ("unknown KG format 'primkg'; did you mean 'primekg'? known "
                               "formats: neo4j-import, primekg, triples, wikidata5m, "
                               "wikidatasets")
    with pytest.raises(InputError) as far:
        TASKS.load("nope")
    assert "did you mean" not in str(far.value) and "valid tasks: agg_by_relation" in str(
        far.value)
    with pytest.raises(InputError, match="did you mean 'shortest_path'"):
        TASKS.load("ShortestPth")  # close to an alias: the registered name is suggested
    with pytest.raises(InputError, match=r"'mistrl' in 'mistrl:x'; known providers"):
        PROVIDERS.key("mistrl", " in 'mistrl:x'")


def test_aliases_fold_and_a_missing_dependency() -> None:
    assert TASKS.load("TripleRetrieval") is TASKS.load("triple_retrieval")
    assert TEXTUALIZERS.load(" JSON ").name == "json"
    registry = Registry[object]("codec", "known codecs")
    registry.add("fancy", "json:loads", requires=("no_such_module_kgcert",),
                 install="pip install fancy")
    with pytest.raises(MissingDependencyError, match="needs no_such_module_kgcert.*pip install"):
        registry.load("fancy")


def test_tables_reject_a_bad_target_or_a_taken_name() -> None:
    registry = Registry[object]("codec", "known codecs")
    with pytest.raises(ValueError, match="module:attribute"):
        registry.add("x", "json.loads")
    registry.add("x", "json:loads")
    with pytest.raises(ValueError, match="taken"):
        registry.add("x", "json:dumps")


@pytest.mark.parametrize("table", TABLES.values(), ids=TABLES.keys())
def test_every_entry_loads_what_it_names(table: Registry[Any]) -> None:
    for name, entry in table.items():
        if not entry.requires:  # those behind an optional package (torch) load in their tests
            assert table.load(name) is not None


def test_no_table_imports_its_targets() -> None:
    graph = import_graph()
    for module, table in TABLES.items():
        targets = {entry.target.partition(":")[0] for entry in table.values()}
        assert graph[module].isdisjoint(targets), module

