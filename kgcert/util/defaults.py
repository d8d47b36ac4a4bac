"""Prompt settings shared by `kgcert prompts`, `kgcert run` and the prompt builders, so a
prompt printed with the defaults is the prompt a run with the defaults asks.

A plain module with no imports: the CLI reads it for `--help` without loading the builders.
"""

FEW_SHOT = 3  # worked examples before the question (0-5)
OPTIONS = 4  # answer options per multiple-choice question
CONTEXT_CHARS = 12_000  # prompt budget in characters when no tokenizer measures it
SEED = 0  # the run seed
