"""Setting names: a base setting with the variants a run adds on top of it.

The base is `vanilla`, `distractor` or `baseline` for relation and entity specs, and the
textualization (`list`, `json`, ...) for task specs. Pseudonymized entity names add
`+pseudonymized`, a prompting strategy other than the standard prompt adds `+<strategy>`:
`json+pseudonymized+cot`. Settings that share everything but one part are the paired
variants `kgcert compare` tests against each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgcert.answer_format.strategies import STANDARD, STRATEGIES

REAL, PSEUDONYMIZED = "real", "pseudonymized"
SEPARATOR = "+"


@dataclass(frozen=True)
class SettingParts:
    base: str
    names: str = REAL
    strategy: str = STANDARD

    @property
    def name(self) -> str:
        return setting_name(self.base, self.names, self.strategy)


def setting_name(base: str, names: str = REAL, strategy: str = STANDARD) -> str:
    parts = [base]
    if names == PSEUDONYMIZED:
        parts.append(PSEUDONYMIZED)
    if strategy != STANDARD:
        parts.append(strategy)
    return SEPARATOR.join(parts)


def parse_setting(name: str) -> SettingParts:
    """The parts of a setting name (a name with an unknown suffix is a base of its own)."""
    base, *rest = name.split(SEPARATOR)
    names, strategy = REAL, STANDARD
    for part in rest:
        if part == PSEUDONYMIZED and names == REAL and strategy == STANDARD:
            names = PSEUDONYMIZED
        elif part in STRATEGIES and part != STANDARD and strategy == STANDARD:
            strategy = part
        else:
            return SettingParts(name)
    return SettingParts(base, names, strategy)
