"""KG-LLM-Bench task prompts on the real WikiDataSets Countries KG: every textualization shows
the instance's subgraph, pseudonymized prompts hide every real core-entity name, and replies
to them are scored against the real instance once the names are restored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kg_helpers import load_kg

from kgcert.prompts import PromptSettings
from kgcert.tasks import TaskGenerator, TaskInstance, make_view, names, score_exact
from kgcert.tasks.prompt import TaskPromptBuilder, build_task_prompt, restore_response
from kgcert.tasks.shortest_path import PREFIX
from kgcert.textualize import get_textualizer
from kgcert.textualize import names as formats

CORE = "Country"


@pytest.fixture(scope="module")
def store(embedded_server, shared_data: Path):
    loaded, _ = load_kg(embedded_server, "wikidatasets", [shared_data / "countries"],
                        "prompts_countries")
    return loaded


@pytest.fixture(scope="module")
def instances(store) -> dict[str, list[TaskInstance]]:
    view = make_view(store)
    return {task: [TaskGenerator(store, task, seed=2, view=view).instance(i) for i in range(2)]
            for task in names()}


def test_formats_are_the_five_of_kg_llm_bench():
    assert sorted(formats()) == ["json", "jsonld", "list", "turtle", "yaml"]


@pytest.mark.parametrize("fmt", ["list", "json", "yaml", "turtle", "jsonld"])
def test_each_textualization_shows_the_subgraph_question_and_answer_format(instances, fmt):
    textualizer = get_textualizer(fmt)
    for task, found in instances.items():
        for instance in found:
            prompt = build_task_prompt(instance, PromptSettings(textualization=fmt))
            assert textualizer.render(instance.subgraph) in prompt.text
            assert textualizer.description in prompt.text
            assert f"Question: {instance.question}\n{instance.answer_format}\n" in prompt.text
            assert prompt.task == task and prompt.answers == instance.answers
            assert prompt.options == () and prompt.correct_option is None
            record = prompt.provenance
            assert (record.kind, record.textualization, record.setting) == ("task", fmt, "real")
            assert (record.seed, record.index, record.spec_hash) == \
                (instance.seed, instance.index, instance.spec_hash)
            assert len(record.edges) == len(instance.subgraph.edges)
            assert all(s == e.source and t == e.target and e.id.split("|")[1] == r
                       for (s, r, t), e in zip(record.edges, instance.subgraph.edges,
                                               strict=True))


def _without(text: str, names_kept: list[str]) -> str:
    for name in sorted(names_kept, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text)
    return text


@pytest.mark.parametrize("fmt", ["list", "yaml"])
def test_pseudonymized_prompts_name_no_real_core_entity(instances, fmt):
    for found in instances.values():
        for instance in found:
            prompt = build_task_prompt(instance, PromptSettings(textualization=fmt,
                                                                pseudonymize=True))
            record = prompt.provenance.extra["pseudonyms"]
            assert prompt.provenance.setting == "pseudonymized"
            core = [n for n in instance.subgraph.nodes if n.type == CORE]
            assert core and all(n.id in record["names"] for n in core)
            visible = _without(prompt.text, record["kept_names"])
            for node in core:
                assert not re.search(rf"(?<!\w){re.escape(node.name)}(?!\w)", visible), node.name
                assert record["names"][node.id] in prompt.text
            assert prompt.answers == tuple(
                _apply(record["by_name"], answer) for answer in instance.answers)


def _apply(by_name: dict[str, str], text: str) -> str:
    ordered = sorted(by_name, key=len, reverse=True)
    if not ordered:
        return text
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, ordered)) + r")(?!\w)")
    return pattern.sub(lambda m: by_name[m[0]], text)


def test_pseudonymized_replies_are_scored_against_the_real_instance(instances):
    for task, found in instances.items():
        for instance in found:
            prompt = build_task_prompt(instance, PromptSettings(textualization="json",
                                                                pseudonymize=True))
            answer = prompt.answers[0]
            reply = {"shortest_path": f"{PREFIX} {answer}",
                     "triple_retrieval": answer}.get(task, f"Answer: {answer}")
            assert score_exact(instance, restore_response(prompt, reply)), (task, reply)
            if answer not in instance.answers:  # a fictional name: unknown to the real instance
                assert not score_exact(instance, reply)


def test_builder_gives_the_same_prompt_for_the_same_seed(store, instances):
    settings = PromptSettings(textualization="turtle", pseudonymize=True)
    first = TaskPromptBuilder(store, "shortest_path", seed=2, settings=settings)
    again = TaskPromptBuilder(store, "shortest_path", seed=2, settings=settings)
    a, b = first.build(1), again.build(1)
    assert a.text.encode() == b.text.encode() and a.as_dict() == b.as_dict()
    assert a.text == build_task_prompt(instances["shortest_path"][1], settings,
                                       core_label=CORE, spec_name=first.spec.name).text
    assert first.build(0).text != a.text


def test_builder_scores_replies_like_the_runner_expects(store):
    from kgcert.models.base import ModelResponse

    builder = TaskPromptBuilder(store, "shortest_path", seed=2,
                                settings=PromptSettings(textualization="list", pseudonymize=True))
    prompt = builder.build(0)
    right = ModelResponse(f"{PREFIX} {prompt.answers[0]}")
    assert builder.score(prompt, right) == {"outcome": "correct", "exact": True,
                                            "flexible": True}
    assert builder.score(prompt, ModelResponse("SHORTEST PATH: ['x', 'y']"))["outcome"] == \
        "wrong"
    assert builder.score(prompt, ModelResponse(""))["outcome"] == "unparseable"
    assert builder.score(prompt, ModelResponse.failure("timeout"))["outcome"] == "error"
    flexible = TaskPromptBuilder(store, "shortest_path", seed=2,
                                 settings=PromptSettings(pseudonymize=True), headline="flexible")
    loose = ModelResponse(f"**{PREFIX}** {prompt.answers[0]}")
    assert flexible.score(prompt, loose)["outcome"] == "correct"


def test_builder_takes_its_knobs_only_as_prompt_settings(store, instances):
    """A loose knob beside `settings` is refused, so a prompt's knobs have one home."""
    with pytest.raises(TypeError, match="textualization"):
        TaskPromptBuilder(store, "shortest_path", seed=2,  # type: ignore[call-arg]
                          textualization="yaml")
    instance = instances["shortest_path"][0]
    with pytest.raises(TypeError, match="pseudonymize"):
        build_task_prompt(instance, pseudonymize=True)  # type: ignore[call-arg]
    settings = PromptSettings(textualization="yaml", pseudonymize=True)
    built = TaskPromptBuilder(store, "shortest_path", seed=2, settings=settings).build(0)
    assert (built.provenance.textualization, built.provenance.setting) == \
        ("yaml", "pseudonymized")
    assert build_task_prompt(instance, settings).provenance.setting == "pseudonymized"
