"""The options of `kgcert run`, kept apart from what the command does with them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from kgcert.util import defaults

F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS = [
    click.option("--config", "config_file", type=click.Path(path_type=Path),
                 help="A YAML run file; flags override its values."),
    click.option("--kg", default=None, help="The loaded KG."),
    click.option("--spec", "specs", multiple=True, help="Spec name or file (repeatable)."),
    click.option("--suite", default=None,
                 help="One certificate for the mixture of the --spec specs under this name, or "
                      "for a suite file's specs (e.g. primekg.table1) when no --spec is given."),
    click.option("--weights", default=None,
                 help="Suite weights: equal (default), matches (each spec's share of the specs' "
                      "matches in the KG, counted at the start) or SPEC=W,... (normalised)."),
    click.option("--model", "models", multiple=True,
                 help="Provider string, e.g. smollm2, hf:./model, openai:gpt-4o-mini, "
                      "bernoulli:0.8 (repeatable)."),
    click.option("--setting", "settings", multiple=True,
                 type=click.Choice(["vanilla", "distractor"]),
                 help="Relation and entity specs: vanilla, or distractor (Definition 2.3 "
                      "distractors in the context); repeatable, default vanilla."),
    click.option("--format", "formats", multiple=True,
                 help="Textualization for task specs: list, json, yaml, turtle, jsonld "
                      "(repeatable: each a setting)."),
    click.option("--entity-names", "entity_names", multiple=True,
                 type=click.Choice(["real", "pseudonymized"]),
                 help="Task specs: real and/or pseudonymized entity names, each a setting "
                      "(repeatable; default real)."),
    click.option("--strategy", "strategies", multiple=True,
                 type=click.Choice(["standard", "system", "cot", "tot"]),
                 help="Prompting strategy, each a setting paired with the standard prompt by "
                      "index: system (the --system-prompt), cot (chain of thought), tot (tree of "
                      "thoughts). Repeatable; default standard."),
    click.option("--system-prompt", default=None,
                 help="System message of the system strategy: text, or @FILE for a file's text."),
    click.option("--reasoning-tokens", type=int, default=None,
                 help="Extra answer tokens for reasoning: cot adds this to --max-new-tokens, tot "
                      "twice this (default 384)."),
    click.option("--temperature", type=float, default=None,
                 help="Sampling temperature (default 0: greedy)."),
    click.option("--distractor-weighting", type=click.Choice(["tail", "head", "uniform"]),
                 default=None,
                 help="Entity specs, distractor setting: how distractor paths are weighted "
                      "(default tail)."),
    click.option("--n", type=int, default=None, help="Samples per certificate (default 250)."),
    click.option("--confidence", type=float, default=None,
                 help="Confidence of each certificate's bounds (default 0.95; with --simultaneous "
                      "the whole run's)."),
    click.option("--seed", type=int, default=None,
                 help="Run seed (default: drawn fresh for a new run and recorded in run.yaml)."),
    click.option("--batch-size", type=int, default=None,
                 help="Prompts sent to a model at once (default 16); a resume may change it."),
    click.option("--max-new-tokens", type=int, default=None,
                 help="Longest reply, in tokens (default 128; cot and tot add reasoning tokens)."),
    click.option("--mode", type=click.Choice(["generate", "choice"]), default=None,
                 help="choice: local models score the option numbers (never unparseable)."),
    click.option("--options", type=int, default=None,
                 help=f"Options per question (default {defaults.OPTIONS})."),
    click.option("--few-shot", type=int, default=None,
                 help=f"Worked examples, 0-5 (default {defaults.FEW_SHOT})."),
    click.option("--context-chars", type=int, default=None,
                 help="Prompt budget in characters when a model's tokenizer is unknown (default "
                      "12000); prompts whose essential sentences do not fit are skipped, counted."),
    click.option("--context-tokens", type=int, default=None,
                 help="Cap on the prompt budget of local models, counted by their tokenizers "
                      "(default: their context window less the answer)."),
    click.option("--budget", default=None,
                 help="The run's one prompt budget: N characters or N:TOKENIZER tokens; default "
                      "run (the tightest that fits every model); per-model gives each model its "
                      "own (its certificates are then about different prompts)."),
    click.option("--extendable", is_flag=True, default=None,
                 help="Declare before the first answer that n may grow later: the first fixed-n "
                      "certificate spends half of delta, the confidence sequence the rest."),
    click.option("--new-design", is_flag=True,
                 help="Resume with a changed design (n, confidence, stop rule, the models of "
                      "an --until race, ...), or run prompts another folder already looked at "
                      "as its extension: recorded in design.json, and each certificate states "
                      "the joint level of its looks."),
    click.option("--baseline", type=int, default=None,
                 help="Also run the paper's static baseline: this many prompts per spec with "
                      "fixed names and no noise (the paper uses 50)."),
    click.option("--limit", type=click.IntRange(min=1), default=None,
                 help="Smoke test: at most this many samples per certificate."),
    click.option("--half-width", type=float, default=None,
                 help="Sequential mode: stop at this half-width (anytime-valid bounds)."),
    click.option("--threshold", type=float, default=None,
                 help="Sequential mode: stop once the bounds clear this accuracy (each model on "
                      "its own; with --until, once its comparisons are decided too)."),
    click.option("--until", type=click.Choice(["ranked", "best"]), default=None,
                 help="Compare the models as they answer (anytime-valid paired tests, Holm "
                      "across pairs) and stop each spec and setting once decided: ranked, "
                      "every pair; best, racing (a model certified worse stops being asked). "
                      "Certificates are then anytime-valid."),
    click.option("--margin", type=float, default=None,
                 help="With --until: also declare two models within this accuracy of each "
                      "other (a claim, in the same family)."),
    click.option("--simultaneous", is_flag=True, default=None,
                 help="Bonferroni: all certificates of the run hold together."),
    click.option("--specs-dir", "specs_dirs", multiple=True, type=click.Path(path_type=Path),
                 help="A folder of your spec files (repeatable); recorded in run.yaml, and the "
                      "spec files a run uses are copied into its specs/ folder."),
    click.option("--out", type=click.Path(path_type=Path), default=None,
                 help="Run directory (default runs/<kg>-<spec>-<date>-<config hash>); rerun the "
                      "same command to resume."),
    click.option("--quant", type=click.Choice(["4bit", "8bit"]), default=None,
                 help="Load hf: models with 4- or 8-bit weights (bitsandbytes, CUDA only); "
                      "recorded in the certificates' model identity."),
    click.option("--price", "price_flags", multiple=True, metavar="MODEL=IN/OUT",
                 help="Dollars per million prompt / completion tokens of a model, for the cost "
                      "each certificate records (repeatable)."),
    click.option("--prices", "prices_file", type=click.Path(path_type=Path), default=None,
                 help="A YAML file of prices, MODEL: IN/OUT per million tokens."),
    click.option("--json", "as_json", is_flag=True,
                 help="Print each certificate as one JSON line (progress goes to stderr)."),
    click.option("--wide", is_flag=True,
                 help="Print every column of the certificates' table (seed, bounds apart, "
                      "chance, each outcome count); the default fits 100 columns."),
]


def run_options(command: F) -> F:
    """`command` with every option of `kgcert run`, in the order `--help` lists them."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command
