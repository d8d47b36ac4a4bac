"""KG-LLM-Bench task prompts: a task instance's subgraph in one textualization, its question.

    settings = PromptSettings(textualization="yaml")
    builder = TaskPromptBuilder(store, "shortest_path", settings=settings, seed=0)
    prompt = builder.build(3)

The text holds an instruction, the format's one-line description, the textualized subgraph,
the question and the task's own answer-format line (which the exact scorer relies on).
`Prompt.task` names the task and `Prompt.answers` lists every accepted answer.

Pseudonymization (KG-LLM-Bench's variant) renames the core entities (those of the task
spec's `core_label` type, e.g. the countries) with fictional names, and with them every
entity that shares a real name with one (see kgcert.tasks.pseudonym), in the subgraph, the question,
the answer-format line and the answers alike. The renaming is recorded in
`Provenance.extra["pseudonyms"]`; `restore_response(prompt, reply)` maps a reply back to real
names before the task's scorers (which read the real instance) see it.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

from kgcert.errors import InputError
from kgcert.models.base import ModelResponse
from kgcert.prompts.record import Prompt, Provenance
from kgcert.prompts.settings import DEFAULT_SETTINGS, PromptSettings
from kgcert.store.graph import GraphStore
from kgcert.tasks import pseudonym, score_exact, score_flexible
from kgcert.tasks.base import TaskGenerator
from kgcert.tasks.instance import TaskInstance
from kgcert.tasks.spec import TaskSpec
from kgcert.textualize import get_textualizer

INSTRUCTION = ("The knowledge graph below is the only source for your answer: answer the "
               "question from its entities and relations, not from what you know otherwise.")
QUESTION_HEADER = "Question:"


def _edge_type(edge_id: str, fallback: str) -> str:
    parts = edge_id.split("|")
    return parts[1] if len(parts) == 4 else fallback


def _core_ids(instance: TaskInstance, core_label: str | None) -> list[str]:
    nodes = instance.subgraph.nodes
    if core_label is None:
        core_label = (instance.provenance.get("sampling") or {}).get("core_label")
    if core_label:
        core = [n.id for n in nodes if n.type == core_label]
        if core:
            return core
    return [n.id for n in nodes]


def build_task_prompt(instance: TaskInstance, settings: PromptSettings = DEFAULT_SETTINGS, *,
                      seed: int | str | None = None, core_label: str | None = None,
                      spec_name: str | None = None) -> Prompt:
    """The prompt for one task instance, in `settings.textualization`, its core entities
    renamed when `settings.pseudonymize`.

    `seed` fixes the fictional names (default: the instance's run seed and index, so each
    instance gets its own names). `core_label` says which entities are renamed: those of that
    type (default: the task spec's core type, as the instance records it); every entity when
    none has that type.
    """
    textualizer = get_textualizer(settings.textualization)
    subgraph = instance.subgraph
    question, answer_format, answers = instance.question, instance.answer_format, instance.answers
    extra: dict[str, Any] = {"instance_provenance": instance.provenance}
    setting = "real"
    if settings.pseudonymize:
        names_seed = seed if seed is not None else f"{instance.seed}/{instance.index}"
        renaming = pseudonym.pseudonymize(subgraph, names_seed, ids=_core_ids(instance, core_label))
        subgraph = renaming.apply_subgraph(subgraph)
        question = renaming.apply_text(question)
        answer_format = renaming.apply_text(answer_format)
        answers = tuple(renaming.apply_text(answer) for answer in answers)
        extra["pseudonyms"] = {
            "seed": str(names_seed),
            "names": dict(renaming.names),
            "by_name": dict(renaming.by_name),
            "kept_names": list(renaming.kept_names),
        }
        setting = "pseudonymized"
    text = (f"{INSTRUCTION}\n\n{textualizer.description}\n\n{textualizer.render(subgraph)}"
            f"\n\n{QUESTION_HEADER} {question}\n{answer_format}\n")
    provenance = Provenance(
        spec=spec_name or instance.task, spec_hash=instance.spec_hash, kind="task",
        seed=instance.seed, index=instance.index, setting=setting,
        textualization=textualizer.name,
        nodes={f"seed{i}": node for i, node in
               enumerate(instance.provenance.get("seed_entities", []))},
        edges=tuple((e.source, _edge_type(e.id, e.relation), e.target) for e in subgraph.edges),
        rejected_prompts=max(int(instance.provenance.get("attempts", 1)) - 1, 0),
        extra=extra,
    )
    return Prompt(text, provenance, answers=tuple(answers), task=instance.task)


def restore_response(prompt: Prompt, response: str) -> str:
    """A reply to a pseudonymized prompt with the real names put back (unchanged otherwise)."""
    record = prompt.provenance.extra.get("pseudonyms")
    if not record:
        return response
    renaming = pseudonym.Pseudonymization(record["seed"], record["names"], record["by_name"],
                                tuple(record["kept_names"]))
    return renaming.restore_text(response)


class TaskPromptBuilder:
    """Prompt i of a task spec under a run seed: `build(i) -> Prompt`; `score(prompt,
    response)` judges a reply with the task's scorers (the runner's Scorer shape).

    `headline` picks which scorer decides the outcome: "exact" (the paper's) or "flexible";
    both verdicts are returned.
    """

    KEEP = 1_024  # recent instances kept for scoring; older ones are regenerated

    def __init__(self, store: GraphStore, spec: TaskSpec | str | Path, *, seed: int = 0,
                 settings: PromptSettings = DEFAULT_SETTINGS,
                 generator: TaskGenerator | None = None,
                 headline: Literal["exact", "flexible"] = "exact") -> None:
        get_textualizer(settings.textualization)  # unknown names fail here
        if headline not in ("exact", "flexible"):
            raise InputError(f"headline scorer must be exact or flexible, got {headline!r}")
        self.headline = headline
        self._instances: OrderedDict[int, TaskInstance] = OrderedDict()
        if generator is None:
            generator = TaskGenerator(store, spec if isinstance(spec, TaskSpec) else str(spec),
                                      seed=seed)
        self.generator = generator
        self.seed = generator.seed
        self.settings = settings

    @property
    def spec(self) -> TaskSpec:
        return self.generator.spec

    def build(self, index: int) -> Prompt:
        return self.render(self.instance(index))

    def instance(self, index: int) -> TaskInstance:
        if index < 0:
            raise InputError(f"prompt index must be non-negative, got {index}")
        found = self._instances.get(index)
        if found is None:
            found = self._instances[index] = self.generator.instance(index)
            while len(self._instances) > self.KEEP:
                self._instances.popitem(last=False)
        return found

    def score(self, prompt: Prompt, response: ModelResponse) -> dict[str, Any]:
        """{"outcome": correct | wrong | unparseable | error, "exact": .., "flexible": ..}
        for a reply to `prompt` (pseudonymized names restored before scoring)."""
        if response.error is not None:
            return {"outcome": "error", "exact": None, "flexible": None,
                    "error": response.error}
        instance = self.instance(prompt.provenance.index)
        text = restore_response(prompt, response.text or "")
        exact, flexible = score_exact(instance, text), score_flexible(instance, text)
        verdict = exact if self.headline == "exact" else flexible
        outcome = "unparseable" if not text.strip() else ("correct" if verdict else "wrong")
        return {"outcome": outcome, "exact": exact, "flexible": flexible}

    def render(self, instance: TaskInstance) -> Prompt:
        spec = self.generator.spec
        return build_task_prompt(instance, self.settings, core_label=spec.sampling.core_label,
                                 spec_name=spec.name or spec.task)
