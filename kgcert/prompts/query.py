"""The question of a prompt: a seeded template with seeded aliases (LLMCert-C Algorithm 1 line 4).

Relation-centric: one of the spec's templates, uniformly, its `{var}` placeholders filled with
an alias of each named entity, uniformly among the entity's aliases. Entity-centric: the
chain `pivot -> (relation) -> ... -> ?` with an alias of the pivot and one of each hop's
relation. When an alias does not contain the name the context uses, a note says what it
stands for (the paper adds the same explanations), so the question stays answerable from the
context whichever alias was drawn. Notes name only the question's own entities and
relations, never a hidden step or the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgcert.graphview import Fact, PromptGraph
from kgcert.prompts.fewshot import path_question
from kgcert.specs.model import PLACEHOLDER, RelationSpec


@dataclass(frozen=True)
class Query:
    text: str
    template: int | None
    aliases: dict[str, str]  # entity id -> alias shown
    relation_aliases: tuple[str, ...]  # per hop (entity-centric)
    notes: tuple[str, ...]


def _pick(options: Sequence[str], rng: np.random.Generator) -> str:
    return options[int(rng.integers(len(options)))]


def _entity_note(alias: str, name: str) -> str | None:
    """A note when the alias does not contain the name as whole words ("(drug) Donepezil"
    needs none; "the Arvenian state" for Arvenia does)."""
    folded, named = alias.casefold(), name.casefold()
    if folded == named or _has_word(folded, named):
        return None
    return f"\"{alias}\" refers to {name}."


def _has_word(text: str, words: str) -> bool:
    """Whether `words` occurs in `text` with no word character (regex \\w: str.isalnum() or
    "_") right before or after it. Not a regex: a pattern per entity name would be compiled
    anew in every prompt."""
    at = text.find(words)
    while at >= 0:
        end = at + len(words)
        if (at == 0 or not _is_word(text[at - 1])) and (end == len(text)
                                                        or not _is_word(text[end])):
            return True
        at = text.find(words, at + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def relation_query(spec: RelationSpec, nodes: dict[str, str], graph: PromptGraph,
                   rng: np.random.Generator, fixed: bool = False) -> Query:
    """`fixed` (the paper's static baseline): the first template and every entity's name."""
    template_index = 0 if fixed else int(rng.integers(len(spec.templates)))
    template = spec.templates[template_index]
    variables = sorted(set(PLACEHOLDER.findall(template)))
    shown: dict[str, str] = {}
    aliases: dict[str, str] = {}
    notes: list[str] = []
    for var in variables:
        entity = nodes[var]
        alias = graph.name(entity) if fixed else _pick(graph.aliases(entity), rng)
        shown[var] = alias
        aliases[entity] = alias
        note = _entity_note(alias, graph.name(entity))
        if note:
            notes.append(note)
    text = PLACEHOLDER.sub(lambda m: shown[m.group(1)], template)
    return Query(text, template_index, aliases, (), tuple(dict.fromkeys(notes)))


def path_query(pivot: str, hops: Sequence[Fact], graph: PromptGraph,
               rng: np.random.Generator, fixed: bool = False) -> Query:
    """`fixed` (the paper's static baseline): the pivot's and the relations' names."""
    alias = graph.name(pivot) if fixed else _pick(graph.aliases(pivot), rng)
    notes: list[str] = []
    note = _entity_note(alias, graph.name(pivot))
    if note:
        notes.append(note)
    relation_aliases: list[str] = []
    for fact in hops:
        rel_alias = (graph.relation_name(fact) if fixed
                     else _pick(graph.relation_aliases(fact), rng))
        relation_aliases.append(rel_alias)
        name = graph.relation_name(fact)
        if rel_alias.casefold() != name.casefold():
            notes.append(f"The relation \"{rel_alias}\" is the relation \"{name}\".")
    text = path_question(alias, relation_aliases)
    return Query(text, None, {pivot: alias}, tuple(relation_aliases),
                 tuple(dict.fromkeys(notes)))
