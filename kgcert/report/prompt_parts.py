"""A prompt split for reading: the question and its options first, the instructions and worked
examples (the same in every prompt of a run) folded away.

A multiple-choice prompt (kgcert.prompts.layout) is: instructions, worked examples, then
`Your question:` with the context, the question, the options and the answer rule. The split
is at that header; a prompt without it (task prompts, zero-shot prompts) is all question.
"""

from __future__ import annotations

from dataclasses import dataclass

QUESTION_HEADER = "Your question:"  # kgcert.prompts.layout.QUESTION_HEADER
QUESTION_PREFIX = "Question: "


@dataclass(frozen=True)
class PromptParts:
    head: str  # instructions and worked examples ("" when the prompt has none)
    ask: str  # from the question header on: context, question, options, answer rule
    question: str | None  # the question line itself

    @property
    def text(self) -> str:
        return self.head + self.ask


def question_start(text: str) -> int:
    """Where the asked part begins: the last line that is the question header, else 0."""
    at = text.rfind("\n" + QUESTION_HEADER + "\n")
    return at + 1 if at >= 0 else 0


def question_line(text: str) -> str | None:
    """The prompt's question: its last `Question: ` line (worked examples come before it)."""
    for line in reversed(text.splitlines()):
        if line.startswith(QUESTION_PREFIX):
            return line[len(QUESTION_PREFIX):].strip()
    return None


def split_prompt(text: str) -> PromptParts:
    at = question_start(text)
    return PromptParts(text[:at], text[at:], question_line(text[at:]))
