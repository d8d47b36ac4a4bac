"""The interface every textualization implements."""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from kgcert.textualize.common import Triple
from kgcert.textualize.subgraph import Subgraph

if TYPE_CHECKING:
    import rdflib


class Textualizer(ABC):
    """Turns a :class:`~kgcert.textualize.subgraph.Subgraph` into text for a prompt.

    ``name`` is the registry name (what specs and the CLI use). ``description`` is one line
    that tells the model how to read the format; prompts show it before the data. ``render``
    must be a pure function of the subgraph: the same subgraph gives byte-identical text, and
    the text follows the order of ``subgraph.nodes`` and ``subgraph.edges``.
    """

    name: ClassVar[str]
    description: ClassVar[str]

    @abstractmethod
    def render(self, subgraph: Subgraph) -> str:
        """The subgraph as text."""


class EdgeTextualizer(Textualizer):
    """A format that writes entities by their shown names and can be read back into edges."""

    @abstractmethod
    def parse_edges(self, text: str) -> list[Triple]:
        """(shown head, relation, shown tail) for every edge in ``text``, parallel ones included.

        :func:`kgcert.textualize.common.to_ids` maps the result back to entity ids.
        """


class RdfTextualizer(Textualizer):
    """An RDF serialization; parsing it back with rdflib gives the subgraph's RDF graph."""

    rdflib_format: ClassVar[str]

    def parse_graph(self, text: str) -> rdflib.Graph:
        """``text`` parsed by rdflib; compare with :func:`kgcert.textualize.rdf.rdf_graph`."""
        import rdflib

        with warnings.catch_warnings():
            # rdflib's JSON-LD parser uses its own deprecated ConjunctiveGraph internally.
            warnings.filterwarnings("ignore", "ConjunctiveGraph is deprecated", DeprecationWarning)
            return rdflib.Graph().parse(data=text, format=self.rdflib_format)
