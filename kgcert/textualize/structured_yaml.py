"""Structured YAML: the same structure as the JSON format, in YAML block style.

Example::

    Andhra Pradesh:
      language used:
      - Telugu
      - Marathi
    Paris [e3]:
      capital of:
      - France
    Atlantis: {}

Keys, order, parallel edges and entities without edges are handled as in
:mod:`kgcert.textualize.structured_json`. PyYAML writes the text (no line folding, Unicode
kept). Strings that YAML would otherwise read as something else (``yes``, ``null``, ``1.5``,
``a: b``) are quoted by PyYAML; strings with control characters or Unicode line breaks are
double-quoted with escapes, because PyYAML's single-quoted style does not round-trip them.
"""

from __future__ import annotations

from typing import Any

import yaml

from kgcert.errors import InputError
from kgcert.textualize.base import EdgeTextualizer
from kgcert.textualize.common import Pairs, Triple, hidden_char, structure, triples_from
from kgcert.textualize.subgraph import Subgraph


class _Dumper(yaml.SafeDumper):
    pass


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = '"' if any(hidden_char(char) or char == "\ufeff" for char in value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


class _Loader(yaml.SafeLoader):
    pass


def _construct_pairs(loader: yaml.SafeLoader, node: yaml.MappingNode) -> Pairs:
    return Pairs(
        (loader.construct_object(key, deep=True), loader.construct_object(value, deep=True))
        for key, value in node.value
    )


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_pairs)


class StructuredYaml(EdgeTextualizer):
    name = "yaml"
    description = (
        "A YAML mapping whose keys are subject entities; each maps relation names to a list of "
        "object entities, and entities that share a name carry a bracketed key such as [e3]."
    )

    def render(self, subgraph: Subgraph) -> str:
        data = structure(subgraph)
        if not data:
            return "{}\n"
        return yaml.dump(
            data,
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            width=2**31 - 1,
        )

    def parse_edges(self, text: str) -> list[Triple]:
        try:
            data: Any = yaml.load(text, Loader=_Loader)
        except yaml.YAMLError as error:
            raise InputError(f"not valid YAML: {error}") from None
        return triples_from(data, "YAML")
