"""The textualizer registry: lookup, errors that name the valid formats, registration rules."""

from __future__ import annotations

import pytest

from kgcert.errors import InputError
from kgcert.textualize import Textualizer, get_textualizer, names, register, registry
from kgcert.textualize.subgraph import Subgraph


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register test formats in a copy, so other tests still see only the real five."""
    monkeypatch.setattr(registry, "TEXTUALIZERS", registry.TEXTUALIZERS.copy())


def test_lookup_ignores_case_and_spaces() -> None:
    assert get_textualizer(" JSON ").name == "json"
    assert get_textualizer("jsonld") is get_textualizer("JsonLD")


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(InputError) as caught:
        get_textualizer("xml")
    message = str(caught.value)
    assert "'xml'" in message
    for name in ("json", "jsonld", "list", "turtle", "yaml"):
        assert name in message


def test_every_registered_format_is_a_textualizer() -> None:
    for name in names():
        textualizer = get_textualizer(name)
        assert isinstance(textualizer, Textualizer)
        assert textualizer.name == name


@pytest.mark.usefixtures("scratch_registry")
def test_adding_a_format_is_one_class() -> None:
    @register
    class Count(Textualizer):
        name = "count"
        description = "The number of edges."

        def render(self, subgraph: Subgraph) -> str:
            return f"{len(subgraph.edges)}\n"

    assert "count" in names()
    assert get_textualizer("count").render(Subgraph.build([], [])) == "0\n"


@pytest.mark.usefixtures("scratch_registry")
def test_registration_rules() -> None:
    class Taken(Textualizer):
        name = "json"
        description = "Clashes with the JSON format."

        def render(self, subgraph: Subgraph) -> str:
            return ""

    class TwoLines(Textualizer):
        name = "two-lines"
        description = "First line.\nSecond line."

        def render(self, subgraph: Subgraph) -> str:
            return ""

    class Upper(Textualizer):
        name = "Upper"
        description = "Upper-case name."

        def render(self, subgraph: Subgraph) -> str:
            return ""

    for cls in (Taken, TwoLines, Upper):
        with pytest.raises(ValueError):
            register(cls)
    assert get_textualizer("json").description != Taken.description
