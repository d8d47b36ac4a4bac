"""Few-shot examples: worked questions in the required answer format (kgcert's own wording).

Two sets of five, all about invented entities so that no example leaks real knowledge:
`RELATION` examples ask questions in words, like the relation-centric templates; `PATH`
examples use the entity-centric arrow form. A prompt shows the first k of its set (0-5),
the same k for every prompt of a run (LLMCert-C uses 2).

Each example is stored as data: its facts, the sentence each relation is read with, the
question as a conjunctive pattern over the facts, the options and the option number stated
in the answer. :func:`solve` answers the pattern over the facts, so a test can check that
every example's stated option is the one and only correct option (one of the reference's
examples stated the wrong number).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

from kgcert.specs.kind import kind_named

Triple = tuple[str, str, str]

PHRASES: dict[str, str] = {
    # relation-style facts: (subject, relation, object)
    "treats": "{s} is an approved treatment for {o}.",
    "avoid_in": "{s} must not be given to patients with {o}.",
    "side_effect": "{s} can cause {o} as a side effect.",
    "linked_to": "Exposure to {s} is linked to {o}.",
    "presents_with": "{s} presents with {o}.",
    "gene": "{s} is associated with the gene {o}.",
    "targets": "{s} acts on the protein made by {o}.",
    # path-style facts
    "capital": "The capital of {s} is {o}.",
    "located in": "{s} lies in {o}.",
    "shares border with": "{s} shares a border with {o}.",
    "author": "{s} was written by {o}.",
    "place of birth": "{s} was born in {o}.",
    "spouse": "{s} is married to {o}.",
    "member of": "{s} is a member of {o}.",
    "chairperson": "The chair of {s} is {o}.",
    "official language": "An official language of {s} is {o}.",
}


@dataclass(frozen=True)
class Example:
    facts: tuple[Triple, ...]
    question: str
    pattern: tuple[Triple, ...]  # "?x" is the answer; other "?" names are hidden steps
    options: tuple[str, ...]
    answer: int  # the option number stated in the answer line (1-based)
    reason: str

    def sentences(self) -> list[str]:
        return [PHRASES[r].format(s=s, o=o) for s, r, o in self.facts]

    @property
    def answer_text(self) -> str:
        return self.options[self.answer - 1]


def path_pattern(start: str, relations: Sequence[str]) -> tuple[Triple, ...]:
    """`start -> (r1) -> ... -> (rk) -> ?` as a pattern: hidden steps ?h1.., answer ?x."""
    steps = [start, *(f"?h{i}" for i in range(1, len(relations))), "?x"]
    return tuple((steps[i], rel, steps[i + 1]) for i, rel in enumerate(relations))


def path_question(start: str, relations: Sequence[str]) -> str:
    return " -> ".join([start, *(f"({r})" for r in relations), "?"])


def solve(example: Example) -> set[str]:
    """Every entity that can stand for ?x so that all pattern triples are facts."""
    facts = set(example.facts)
    entities = sorted({s for s, _, _ in facts} | {o for _, _, o in facts}
                      | set(example.options))
    variables = sorted({t for s, _, o in example.pattern for t in (s, o) if t.startswith("?")})
    answers: set[str] = set()
    for values in product(entities, repeat=len(variables)):
        binding = dict(zip(variables, values, strict=True))
        if all((binding.get(s, s), r, binding.get(o, o)) in facts for s, r, o in example.pattern):
            answers.add(binding["?x"])
    return answers


def _path(start: str, relations: Sequence[str], facts: Sequence[Triple],
          options: Sequence[str], answer: int, reason: str) -> Example:
    return Example(tuple(facts), path_question(start, relations), path_pattern(start, relations),
                   tuple(options), answer, reason)


RELATION: tuple[Example, ...] = (
    Example(
        facts=(
            ("Castimab", "treats", "Harlow syndrome"),
            ("Velorin", "treats", "Mirren fever"),
            ("Pellitinib", "avoid_in", "Harlow syndrome"),
            ("Dovazole", "treats", "Mirren fever"),
            ("Velorin", "treats", "Harlow syndrome"),
            ("Castimab", "side_effect", "nausea"),
        ),
        question="Which drug is an approved treatment for both Harlow syndrome and Mirren fever?",
        pattern=(("?x", "treats", "Harlow syndrome"), ("?x", "treats", "Mirren fever")),
        options=("Castimab", "Dovazole", "Velorin", "Pellitinib"),
        answer=3,
        reason="Velorin is approved for Harlow syndrome and for Mirren fever, while Castimab "
               "and Dovazole are each approved for only one of the two",
    ),
    Example(
        facts=(
            ("Brenolol", "treats", "Kelder disease"),
            ("Ostravir", "avoid_in", "Tavel palsy"),
            ("Quintazole", "avoid_in", "Tavel palsy"),
            ("Ostravir", "treats", "Kelder disease"),
            ("Quintazole", "treats", "Sorrel fever"),
            ("Brenolol", "side_effect", "dizziness"),
        ),
        question="Which drug treats Kelder disease but must be avoided in a patient who also "
                 "has Tavel palsy?",
        pattern=(("?x", "treats", "Kelder disease"), ("?x", "avoid_in", "Tavel palsy")),
        options=("Brenolol", "Ostravir", "Lumacillin", "Quintazole"),
        answer=2,
        reason="Ostravir treats Kelder disease and must not be given with Tavel palsy; "
               "Brenolol has no such restriction and Quintazole does not treat Kelder disease",
    ),
    Example(
        facts=(
            ("Helistatin", "treats", "Vexley disease"),
            ("grey ash dust", "linked_to", "Pormont syndrome"),
            ("Amberzepam", "avoid_in", "Pormont syndrome"),
            ("copper fumes", "linked_to", "Vexley disease"),
            ("Tarnovir", "treats", "Pormont syndrome"),
        ),
        question="Which drug treats a disease that is linked to exposure to grey ash dust?",
        pattern=(("grey ash dust", "linked_to", "?y"), ("?x", "treats", "?y")),
        options=("Helistatin", "Amberzepam", "Rillomab", "Tarnovir"),
        answer=4,
        reason="grey ash dust is linked to Pormont syndrome, and Tarnovir is an approved "
               "treatment for Pormont syndrome",
    ),
    Example(
        facts=(
            ("Werrin disease", "presents_with", "fatigue"),
            ("Calder syndrome", "presents_with", "joint pain"),
            ("Oslin fever", "presents_with", "joint pain"),
            ("Calder syndrome", "presents_with", "rash"),
            ("Werrin disease", "presents_with", "rash"),
            ("Calder syndrome", "presents_with", "fatigue"),
        ),
        question="A patient has joint pain, fatigue and a rash. Which disease presents with all "
                 "three?",
        pattern=(("?x", "presents_with", "joint pain"), ("?x", "presents_with", "fatigue"),
                 ("?x", "presents_with", "rash")),
        options=("Calder syndrome", "Werrin disease", "Drummel palsy", "Oslin fever"),
        answer=1,
        reason="Calder syndrome is the only disease stated to present with joint pain, "
               "fatigue and rash; Werrin disease lacks joint pain and Oslin fever has only "
               "joint pain",
    ),
    Example(
        facts=(
            ("Zolvamab", "targets", "KRT9B"),
            ("Fennick disease", "gene", "KRT9B"),
            ("Pirotinib", "targets", "MLX4"),
            ("Gaster disease", "gene", "MLX4"),
            ("Zolvamab", "side_effect", "headache"),
        ),
        question="Which drug acts on a gene that is associated with Fennick disease?",
        pattern=(("Fennick disease", "gene", "?y"), ("?x", "targets", "?y")),
        options=("Pirotinib", "Nuvapril", "Zolvamab", "Hexacillin"),
        answer=3,
        reason="Fennick disease is associated with the gene KRT9B, and Zolvamab acts on the "
               "protein made by KRT9B",
    ),
)

PATH: tuple[Example, ...] = (
    _path("The Salt Road", ("author", "place of birth"),
          facts=(("The Salt Road", "author", "Mira Calloway"),
                 ("Jonas Pell", "place of birth", "Raventhal"),
                 ("Mira Calloway", "place of birth", "Dunmore"),
                 ("The Glass Orchard", "author", "Jonas Pell"),
                 ("Mira Calloway", "spouse", "Jonas Pell"),
                 ("Dunmore", "located in", "Varland")),
          options=("Raventhal", "Varland", "Dunmore", "Mira Calloway"),
          answer=3,
          reason="The Salt Road was written by Mira Calloway, and Mira Calloway was born in "
                 "Dunmore"),
    _path("Varland", ("capital",),
          facts=(("Ostheim", "located in", "Varland"),
                 ("Varland", "capital", "Ostheim"),
                 ("Brevia", "capital", "Tollan"),
                 ("Varland", "shares border with", "Brevia")),
          options=("Tollan", "Ostheim", "Brevia", "Kessary"),
          answer=2,
          reason="the capital of Varland is Ostheim"),
    _path("Orrin Vale", ("member of", "chairperson", "place of birth"),
          facts=(("Harbour League", "chairperson", "Tessa Morrow"),
                 ("Orrin Vale", "place of birth", "Pemberly"),
                 ("Orrin Vale", "member of", "Harbour League"),
                 ("Quill Union", "chairperson", "Aldo Fenn"),
                 ("Tessa Morrow", "place of birth", "Callis"),
                 ("Aldo Fenn", "place of birth", "Marrow Point")),
          options=("Pemberly", "Marrow Point", "Tessa Morrow", "Callis"),
          answer=4,
          reason="Orrin Vale is a member of the Harbour League, its chair is Tessa Morrow, and "
                 "Tessa Morrow was born in Callis"),
    _path("Kestria", ("shares border with", "official language"),
          facts=(("Kestria", "official language", "Kestric"),
                 ("Dalmor", "official language", "Dalmorian"),
                 ("Kestria", "shares border with", "Dalmor"),
                 ("Sorvane", "shares border with", "Dalmor"),
                 ("Sorvane", "official language", "Sorvish")),
          options=("Kestric", "Dalmorian", "Sorvish", "Dalmor"),
          answer=2,
          reason="Kestria shares a border with Dalmor, and an official language of Dalmor is "
                 "Dalmorian"),
    _path("Ilse Brandt", ("spouse", "place of birth"),
          facts=(("Ilse Brandt", "place of birth", "Aldria"),
                 ("Tomas Reyl", "member of", "Quill Union"),
                 ("Ilse Brandt", "spouse", "Tomas Reyl"),
                 ("Westmark", "located in", "Aldria"),
                 ("Tomas Reyl", "place of birth", "Westmark")),
          options=("Westmark", "Aldria", "Tomas Reyl", "Quill Union"),
          answer=1,
          reason="Ilse Brandt is married to Tomas Reyl, and Tomas Reyl was born in Westmark"),
)

MAX_EXAMPLES = 5


def examples(kind: str, count: int) -> tuple[Example, ...]:
    """The first `count` examples of the set for `kind` ("relation" or "entity": entity paths
    get the path examples)."""
    if not 0 <= count <= MAX_EXAMPLES:
        raise ValueError(f"few-shot examples: 0 to {MAX_EXAMPLES}, got {count}")
    return (PATH if kind_named(kind).path else RELATION)[:count]
