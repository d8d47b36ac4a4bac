"""Paired comparison of the variants of a setting, per spec and model.

A run asks the same drawn sample i in several ways: a task instance in every
textualization and with real or pseudonymized entity names, a prompt with the standard
wording and with a prompting strategy (system prompt, chain or tree of thought). The
settings that differ in one part only are paired by index, so each such family gets exact
McNemar tests between every two of its variants and a Holm-corrected hierarchy
("json beats turtle for shortest path at 95%"):

- `format`: the textualizations of a task spec, entity names and strategy held fixed;
- `names`: real against pseudonymized names, format and strategy held fixed;
- `strategy`: the prompting strategies, the base setting and entity names held fixed.

Alignment is as for models (kgcert.report.compare): indices answered in every variant,
failed calls and skipped prompts dropped for all; the guard is the drawn item (sample,
entities, options: `item_sha`), since the prompt text differs between variants by design.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from kgcert.prompts.setting_names import SettingParts, parse_setting
from kgcert.report.alignment import Alignment, align_rows, labelled, tests_dict
from kgcert.specs.kind import recorded_kind
from kgcert.stats import Hierarchy, hierarchy

AXES = ("format", "names", "strategy")
_HELD = {"format": ("names", "strategy"), "names": ("base", "strategy"),
         "strategy": ("base", "names")}
_VARIES = {"format": "base", "names": "names", "strategy": "strategy"}


@dataclass(frozen=True)
class VariantComparison:
    spec: str
    model: str
    axis: str  # one of AXES
    held: dict[str, str]  # the parts every variant shares, e.g. {"names": "real", ...}
    settings: dict[str, str]  # variant -> the setting it was run as
    alignment: Alignment
    hierarchy: Hierarchy | None = field(default=None)  # None when no index is shared

    @property
    def held_text(self) -> str:
        """The shared parts in words: "vanilla, real names", "json, standard prompt"."""
        words = {"base": "{}", "names": "{} names", "strategy": "{} prompt"}
        return ", ".join(words[part].format(value) for part, value in self.held.items())

    @property
    def title(self) -> str:
        return f"{self.spec} / {self.model}: {self.axis} ({self.held_text})"

    def adjusted(self, values: Sequence[float], alpha: float) -> VariantComparison:
        return VariantComparison(self.spec, self.model, self.axis, self.held, self.settings,
                                 self.alignment, hierarchy(self.alignment.outcomes, alpha=alpha,
                                                           adjusted_p=values))

    def as_dict(self) -> dict[str, Any]:
        aligned = self.alignment
        body: dict[str, Any] = {
            "comparison": self.axis, "spec": self.spec, "model": self.model,
            "held": dict(self.held), "settings": dict(self.settings),
            "variants": sorted(self.settings), "n": aligned.n,
            "dropped": {"missing": aligned.missing, "error_or_skipped": aligned.failed,
                        "item_mismatch": aligned.mismatched},
        }
        if self.hierarchy is None:
            body.update(pairwise=[], hierarchy=None)
        else:
            body.update(tests_dict(self.hierarchy, "variant"))
        return body


def _part(parts: SettingParts, name: str) -> str:
    return str(getattr(parts, name))


def variant_families(samples: pd.DataFrame) -> list[tuple[str, str, str, dict[str, str],
                                                          dict[str, str]]]:
    """(spec, model label, axis, held parts, {variant: setting}) for every family of two or
    more settings of one model that differ in the axis' part only. The format axis is for
    task specs (the settings of other specs are not renderings of one sample)."""
    found = []
    rows = labelled(samples)
    for (spec, model), group in rows.groupby(["spec", "label"], sort=True):
        settings = sorted(str(s) for s in group["setting"].unique())
        parts = {name: parse_setting(name) for name in settings}
        task = any(kind is not None and kind.task
                   for kind in map(recorded_kind, group["spec_kind"].unique()))
        for axis in AXES:
            if axis == "format" and not task:
                continue
            families: dict[tuple[str, ...], dict[str, str]] = {}
            for name, split in parts.items():
                key = tuple(_part(split, held) for held in _HELD[axis])
                families.setdefault(key, {})[_part(split, _VARIES[axis])] = name
            for key, members in sorted(families.items()):
                if len(members) >= 2:
                    held = dict(zip(_HELD[axis], key, strict=True))
                    found.append((str(spec), str(model), axis, held, members))
    return found


def variant_comparisons(samples: pd.DataFrame, *, alpha: float = 0.05
                        ) -> list[VariantComparison]:
    """Every variant family of the samples, each with its tests and Holm hierarchy."""
    if samples.empty:
        return []
    rows = labelled(samples)
    results = []
    for spec, model, axis, held, members in variant_families(samples):
        variant_of = {setting: variant for variant, setting in members.items()}
        chosen = rows[(rows["spec"] == spec) & (rows["label"] == model)
                      & rows["setting"].isin(list(variant_of))]
        chosen = chosen.assign(variant=chosen["setting"].map(variant_of))
        held_text = ", ".join(held.values())
        aligned = align_rows(chosen, spec, f"{axis} ({held_text})", by="variant",
                             guard="item_sha")
        ranked = hierarchy(aligned.outcomes, alpha=alpha) if aligned.n else None
        results.append(VariantComparison(spec, model, axis, held, dict(members), aligned,
                                         ranked))
    return results
