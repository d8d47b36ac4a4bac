"""How an edge's sentence is written from its relation's template, without `str.format` where
the template allows it.

A template with one plain `{source}` and one plain `{target}` field is kept as the text
before, between and after the two names (joining is cheaper than `str.format`); any other
template goes through `str.format`, and a relation without a template (or with one that empty
names do not fill) gets the generic sentence.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

GENERIC_TEMPLATE = "{source} is related to {target} ({relation})."


@dataclass(frozen=True)
class _Formatted:
    """A template with fields other than one plain `{source}` and one plain `{target}`."""

    template: str
    relation: str

    def write(self, source: str, target: str) -> str:
        if self.template:
            try:
                return self.template.format(source=source, target=target)
            except (KeyError, IndexError, ValueError):
                pass
        return GENERIC_TEMPLATE.format(source=source, target=target, relation=self.relation)


# How a kind of edge's sentence is written (see `sentence_form`).
SentenceForm = tuple[str, str, str, bool] | _Formatted


def sentence_form(template: str, relation: str) -> SentenceForm:
    """How `PromptGraph.sentence` writes an edge with `template` (the generic sentence with
    `relation` when it has none): as the text before, between and after the two names and
    whether the source comes first, when it has one plain `{source}` and one plain `{target}`
    field (joining is cheaper than `str.format`); else as before, through `str.format`."""
    if not template:
        escaped = relation.replace("{", "{{").replace("}", "}}")
        return _pieces(GENERIC_TEMPLATE.replace("{relation}", escaped)) or _Formatted("", relation)
    return _pieces(template) or _Formatted(template, relation)


def _pieces(template: str) -> tuple[str, str, str, bool] | None:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return None
    texts, fields = [""], []
    for text, field, spec, conversion in parsed:  # an escaped brace splits a text in two
        texts[-1] += text
        if field is not None:
            fields.append((field, spec, conversion))
            texts.append("")
    if sorted(fields) != [("source", "", None), ("target", "", None)]:
        return None
    return (texts[0], texts[1], texts[2], fields[0][0] == "source")
