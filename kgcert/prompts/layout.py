"""The text of a multiple-choice prompt (LLMCert-C Appendix D.8's parts, kgcert's wording).

Order: instructions, worked examples, the context (one sentence per line), notes on the names
the question uses, the question, the numbered options and the answer line
`correct answer: <option_number>. <answer>, because <succinct reason>` (its wording is
:mod:`kgcert.answer_format.reply`'s), which :mod:`kgcert.answer_format.checker` reads. Each
context line adds exactly `len(sentence) + 3` characters (`- `, the sentence, a newline), so
character budgets are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from kgcert.answer_format.reply import ANSWER_LINE, ANSWER_RULE, answer_line
from kgcert.prompts.fewshot import Example

INTRO = ("Answer the multiple-choice question at the end using only the context given with it. "
         "The context may hold sentences that do not help, and some that point towards a "
         "wrong option.")
PATH_HELP = ("A question written with arrows is a chain: start at the entity named first, "
             "follow each relation in parentheses in turn, and name the entity the chain ends at.")
EXAMPLES_HEADER = "Worked examples of the reply format:"
QUESTION_HEADER = "Your question:"
NOTES_HEADER = "Names used in the question:"
LINE_OVERHEAD = 3  # "- " before a context sentence and the newline after it


def _options(options: Sequence[str]) -> str:
    return "".join(f"{number}. {text}\n" for number, text in enumerate(options, start=1))


def _context(lines: Sequence[str]) -> str:
    return "Context:\n" + "".join(f"- {line}\n" for line in lines)


def render_example(number: int, example: Example) -> str:
    return (f"Example {number}\n{_context(example.sentences())}"
            f"Question: {example.question}\nOptions:\n{_options(example.options)}"
            f"{answer_line(example.answer, example.answer_text, example.reason)}\n")


@lru_cache(maxsize=64)
def _examples_block(examples: tuple[Example, ...]) -> str:
    """The worked examples' text: a builder's are the same in every prompt it renders."""
    shown = "\n".join(render_example(i, ex) for i, ex in enumerate(examples, 1))
    return f"\n{EXAMPLES_HEADER}\n\n{shown}"


@dataclass(frozen=True)
class Layout:
    """Everything but the context sentences; `render(lines)` adds them."""

    examples: tuple[Example, ...]
    question: str
    options: tuple[str, ...]
    notes: tuple[str, ...] = ()
    path_query: bool = False

    def render(self, lines: Sequence[str]) -> str:
        parts = [INTRO + (" " + PATH_HELP if self.path_query else "") + "\n"]
        if self.examples:
            parts.append(_examples_block(self.examples))
        parts.append(f"\n{QUESTION_HEADER}\n{_context(lines)}")
        if self.notes:
            parts.append(NOTES_HEADER + "\n" + "".join(f"- {note}\n" for note in self.notes))
        parts.append(f"\nQuestion: {self.question}\n\nOptions:\n{_options(self.options)}")
        parts.append(f"\n{ANSWER_RULE}\n{ANSWER_LINE}\n")
        return "".join(parts)
