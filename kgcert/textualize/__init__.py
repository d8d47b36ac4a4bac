"""KG textualizations: a subgraph as text for a prompt, in one of several formats.

``get_textualizer(name).render(subgraph)`` gives the text; ``.description`` is the one-line
explanation of the format that prompts show before it. Formats: ``list`` (edge list),
``json``, ``yaml``, ``turtle`` and ``jsonld``. Entities are kept apart by id everywhere, even
when names repeat (see :mod:`kgcert.textualize.common`); the RDF formats are described in
:mod:`kgcert.textualize.rdf`.
"""

from kgcert.textualize.base import EdgeTextualizer, RdfTextualizer, Textualizer
from kgcert.textualize.common import Triple, entity_keys, shown_edges, shown_names, to_ids
from kgcert.textualize.registry import get_textualizer, names, register

__all__ = [
    "EdgeTextualizer",
    "RdfTextualizer",
    "Textualizer",
    "Triple",
    "entity_keys",
    "get_textualizer",
    "names",
    "register",
    "shown_edges",
    "shown_names",
    "to_ids",
]
