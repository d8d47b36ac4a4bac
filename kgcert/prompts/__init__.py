"""Prompts: multiple-choice prompts from spec samples, task prompts, and their records."""
