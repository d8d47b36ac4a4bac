"""`kgcert prompts`: print rendered prompts of a spec (multiple-choice or KG-LLM-Bench task)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgcert.cli.common import Context
from kgcert.cli.heap import pace_for_prompts
from kgcert.errors import InputError
from kgcert.util import defaults
from kgcert.util.locations import data_dir

if TYPE_CHECKING:
    from kgcert.prompts import Prompt, PromptBuilder
    from kgcert.prompts.distractors import Weighting
    from kgcert.prompts.settings import Setting
    from kgcert.tasks.prompt import TaskPromptBuilder

FORMATS = ("list", "json", "yaml", "turtle", "jsonld")
# The choices of kgcert.prompts.settings.SETTINGS and kgcert.prompts.distractors.WEIGHTINGS, written
# out so `--help` need not import the prompt builders (a test keeps them equal).
SETTINGS = ("vanilla", "distractor", "baseline")
WEIGHTINGS = ("tail", "head", "uniform")


def _show(prompt: Prompt) -> str:
    record = prompt.provenance
    head = (f"=== prompt {record.index} of {record.spec} ({record.kind}, {record.setting}"
            f"{', ' + record.textualization if record.textualization else ''}, "
            f"seed {record.seed}) ===")
    if prompt.skipped:
        return f"{head}\nskipped: {prompt.skipped}\n"
    if prompt.correct_option is not None:
        answer = (f"answer: {prompt.correct_option}. {prompt.options[prompt.correct_option - 1]}"
                  f" ({prompt.answer_id})")
    else:
        shown = list(prompt.answers[:5])
        more = f" (+{len(prompt.answers) - 5} more)" if len(prompt.answers) > 5 else ""
        answer = f"accepted answers: {shown}{more}"
    return f"{head}\n{prompt.text}--- {answer}\n"


@click.command("prompts")
@click.option("--kg", "kg_name", required=True, help="The loaded KG to use.")
@click.option("--spec", "spec_name", required=True, help="A spec name or a spec file.")
@click.option("--specs-dir", "specs_dirs", multiple=True, type=click.Path(path_type=Path),
              help="Also read specs from this folder (repeatable).")
@click.option("--n", "count", default=3, show_default=True, help="How many prompts.")
@click.option("--start", default=0, show_default=True, help="Index of the first prompt.")
@click.option("--seed", default=defaults.SEED, show_default=True, help="Run seed.")
@click.option("--setting", type=click.Choice(SETTINGS), default="vanilla", show_default=True,
              help="Multiple-choice setting: no distractors, or Definition 2.3 distractors.")
@click.option("--options", "options_count", default=defaults.OPTIONS, show_default=True,
              help="Answer options per question.")
@click.option("--few-shot", default=defaults.FEW_SHOT, show_default=True,
              help="Worked examples shown (0-5), as `kgcert run` shows them.")
@click.option("--no-shuffle", is_flag=True, help="Keep the context in priority order.")
@click.option("--max-chars", type=int, default=None,
              help=f"Character budget for a whole prompt (default {defaults.CONTEXT_CHARS:,}).")
@click.option("--weighting", type=click.Choice(WEIGHTINGS), default="tail", show_default=True,
              help="Entity-centric distractors: position weights (LLMCert-C Algorithm 6).")
@click.option("--format", "textualization", type=click.Choice(FORMATS), default="list",
              show_default=True, help="Task specs: how the subgraph is written.")
@click.option("--pseudonymize", is_flag=True,
              help="Task specs: fictional names for the core entities.")
@click.option("--json", "as_json", is_flag=True, help="One JSON record per prompt instead.")
@click.pass_obj
def prompts_command(ctx: Context, kg_name: str, spec_name: str, specs_dirs: tuple[Path, ...],
                    count: int, start: int, seed: int, setting: Setting, options_count: int,
                    few_shot: int, no_shuffle: bool, max_chars: int | None, weighting: Weighting,
                    textualization: str, pseudonymize: bool, as_json: bool) -> None:
    """Render prompts start .. start+n-1 of a spec and print them."""
    from kgcert.graphview import prompt_graph
    from kgcert.prompts import Budget, PromptBuilder, PromptSettings
    from kgcert.specs import find_spec
    from kgcert.specs.kind import composed_spec
    from kgcert.tasks.prompt import TaskPromptBuilder

    if count < 1 or seed < 0 or start < 0:
        raise InputError("--n must be positive, --seed and --start non-negative")
    pace_for_prompts()
    entry = find_spec(spec_name, specs_dirs)
    store = ctx.server().open(kg_name)
    builder: PromptBuilder | TaskPromptBuilder
    composed = composed_spec(entry.spec)
    if composed is not None:
        settings = PromptSettings(
            setting=setting, options=options_count, few_shot=few_shot, shuffle=not no_shuffle,
            budget=Budget.characters(max_chars) if max_chars is not None else None,
            weighting=weighting)
        # The run's path: the KG's snapshot (kept on disk beside the edge tables), not a read
        # per entity, so these prompts cost and read what the run's prompt i does.
        cache_dir = data_dir(ctx.data_dir) / "cache" / "specs"
        builder = PromptBuilder(store, composed, settings=settings, seed=seed,
                                cache_dir=cache_dir, graph=prompt_graph(store, cache_dir))
    else:
        settings = PromptSettings(textualization=textualization, pseudonymize=pseudonymize)
        builder = TaskPromptBuilder(store, entry.path, settings=settings, seed=seed)
    for index in range(start, start + count):
        prompt = builder.build(index)
        if as_json:
            click.echo(json.dumps(prompt.as_dict(), ensure_ascii=False))
        else:
            click.echo(_show(prompt))


COMMANDS = [prompts_command]
