"""Report tables, each a plain DataFrame computed from the loaded certificates or samples.

- :func:`summary_table`: LLMCert-C Table 1, the mean lower and upper bounds over specs per
  model and setting, with the baseline accuracy beside them when the runs have a baseline;
- :func:`spec_table`: one row per certificate (spec x setting x model), k/n and bounds;
- :func:`task_table` / :func:`heatmap_matrix`: KG-LLM-Bench Table 5, accuracy per task and
  textualization for each model, exact and flexible scoring, with Clopper-Pearson bounds;
- :func:`path_length_table`: accuracy of entity-centric prompts by path length, with
  Clopper-Pearson bounds per length;
- :func:`chance_levels`: the chance level 1/options that a group of certificates shares.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from kgcert.stats import clopper_pearson

#: KG-LLM-Bench's column order of textualizations; others follow alphabetically.
FORMAT_ORDER = ("list", "json", "yaml", "turtle", "jsonld")


def summary_table(certificates: pd.DataFrame) -> pd.DataFrame:
    """Per model and setting: specs, mean lower, mean upper and mean estimate over the
    certificates (one per spec and run). When the runs have baseline certificates (setting
    "baseline"), `baseline` is the model's mean baseline accuracy over the specs of that row
    that have one (so task formats, which have no baseline, get none). Baseline certificates
    are not rows. A mean of bounds is a summary, not a confidence statement; certificates
    with n = 0 (no claim) are left out of it."""
    main = certificates[~certificates["baseline"] & (certificates["n"] > 0)]
    columns = ["model", "setting", "specs", "certificates", "mean_lower", "mean_upper",
               "mean_estimate"]
    if main.empty:
        return pd.DataFrame(columns=columns)
    table = (main.groupby(["model", "setting"], sort=True)
             .agg(specs=("spec", "nunique"), certificates=("spec", "size"),
                  mean_lower=("lower", "mean"), mean_upper=("upper", "mean"),
                  mean_estimate=("estimate", "mean"))
             .reset_index())
    baseline = certificates[certificates["baseline"]]
    if not baseline.empty:
        by_spec = baseline.groupby(["model", "spec"])["estimate"].mean()
        values = []
        for row in table.itertuples():
            specs = set(main.loc[(main["model"] == row.model)
                                 & (main["setting"] == row.setting), "spec"])
            found = [float(by_spec[(row.model, spec)]) for spec in sorted(specs)
                     if (row.model, spec) in by_spec.index]
            values.append(float(np.mean(found)) if found else float("nan"))
        table["baseline"] = values
    return table


def spec_table(certificates: pd.DataFrame) -> pd.DataFrame:
    """One row per certificate: spec, setting, model, run, seed, k, n, bounds, chance level
    (1/options), the unconditional bounds, outcome counts and what it cost (model calls sent,
    cache hits, tokens, seconds of model calls, GPU seconds, dollars, and in a run with
    --until the calls saved against fixed n)."""
    columns = ["spec", "setting", "model", "run", "seed", "k", "n", "lower", "upper",
               "estimate", "chance", "unconditional_lower", "unconditional_upper",
               "confidence", "unparseable", "error", "skipped", "method", "calls",
               "cache_hits", "tokens", "wall_s", "gpu_s", "money_usd", "calls_saved"]
    return (certificates[columns].sort_values(["spec", "setting", "model", "run"])
            .reset_index(drop=True))


def _answered(samples: pd.DataFrame) -> pd.DataFrame:
    return samples[samples["answered"]]


def _true_count(values: pd.Series) -> int:
    return int(values.fillna(False).astype(bool).sum())


def task_table(samples: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Per model, task and textualization: answered samples, exact and flexible correct
    counts, accuracies and two-sided Clopper-Pearson bounds at `confidence` (an unparseable
    answer counts as wrong, as in the certificates)."""
    columns = ["model", "task", "textualization", "n", "exact_k", "flexible_k", "exact",
               "flexible", "exact_lower", "exact_upper", "flexible_lower", "flexible_upper"]
    tasks = _answered(samples)
    tasks = tasks[tasks["task"].notna()]
    if tasks.empty:
        return pd.DataFrame(columns=columns)
    # A variant (pseudonymized names, a prompting strategy) is a column of its own.
    variant = tasks["setting"].astype(str).str.contains("+", regex=False)
    form = tasks["textualization"].fillna(tasks["setting"]).where(~variant, tasks["setting"])
    tasks = tasks.assign(textualization=form,
                         flexible_correct=tasks["flexible_correct"].fillna(tasks["correct"]))
    rows = []
    for (model, task, form), group in tasks.groupby(["model", "task", "textualization"],
                                                    sort=True):
        n = len(group)
        row = {"model": model, "task": task, "textualization": form, "n": n}
        for metric in ("exact", "flexible"):
            k = _true_count(group[f"{metric}_correct"])
            bounds = clopper_pearson(k, n, confidence=confidence)
            row |= {f"{metric}_k": k, metric: k / n, f"{metric}_lower": bounds.lower,
                    f"{metric}_upper": bounds.upper}
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def format_order(formats: Iterable[str]) -> list[str]:
    present = set(formats)
    return [f for f in FORMAT_ORDER if f in present] + sorted(present - set(FORMAT_ORDER))


#: What a heatmap cell can hold: an accuracy or one of its bounds.
HEATMAP_VALUES = tuple(f"{metric}{part}" for metric in ("exact", "flexible")
                       for part in ("", "_lower", "_upper"))


def heatmap_matrix(table: pd.DataFrame, model: str, metric: str = "flexible") -> pd.DataFrame:
    """Task x textualization values of one model: `metric` is exact or flexible (accuracy),
    or either with `_lower` or `_upper` (its Clopper-Pearson bound)."""
    if metric not in HEATMAP_VALUES:
        raise ValueError(f"metric must be one of {', '.join(HEATMAP_VALUES)}, got {metric!r}")
    rows = table[table["model"] == model]
    matrix = rows.pivot(index="task", columns="textualization", values=metric)
    matrix = matrix.reindex(columns=format_order(matrix.columns)).sort_index()
    matrix.columns.name = None
    return matrix.astype(float)


def heatmap_cells(table: pd.DataFrame, model: str, metric: str = "flexible") -> pd.DataFrame:
    """The task x textualization matrix as text: accuracy and its bounds, "0.83 [0.71, 0.91]"
    (missing cells "-")."""
    value, lower, upper = (heatmap_matrix(table, model, metric + part)
                           for part in ("", "_lower", "_upper"))
    cells = value.copy().astype(object)
    for task in value.index:
        for form in value.columns:
            cells.loc[task, form] = cell_text(value.loc[task, form], lower.loc[task, form],
                                              upper.loc[task, form])
    return cells


def cell_text(value: float, lower: float, upper: float, separator: str = " ") -> str:
    """An accuracy with its interval, two decimals: "0.83 [0.71, 0.91]"."""
    if np.isnan(value):
        return "-"
    return f"{value:.2f}{separator}[{lower:.2f}, {upper:.2f}]"


def path_length_table(samples: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Entity-centric samples per spec, setting, model and path length: answered n, correct
    k, accuracy and two-sided Clopper-Pearson bounds at `confidence`."""
    columns = ["spec", "setting", "model", "path_length", "n", "k", "accuracy", "lower",
               "upper"]
    entity = _answered(samples)
    entity = entity[entity["path_length"].notna()]
    if entity.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for (spec, setting, model, length), group in entity.groupby(
            ["spec", "setting", "model", "path_length"], sort=True):
        k, n = int(group["correct"].sum()), len(group)
        bounds = clopper_pearson(k, n, confidence=confidence)
        rows.append({"spec": spec, "setting": setting, "model": model,
                     "path_length": int(length), "n": n, "k": k, "accuracy": k / n,
                     "lower": bounds.lower, "upper": bounds.upper})
    return pd.DataFrame(rows, columns=columns)


def chance_levels(certificates: pd.DataFrame,
                  keys: list[str]) -> dict[tuple[str, ...], float]:
    """The chance level 1/options of each group of certificates (by `keys`, e.g. spec and
    setting), where every certificate of the group has the same one. Groups without a level
    (free answers) or with several (runs with different option counts) are left out."""
    levels: dict[tuple[str, ...], float] = {}
    if certificates.empty:
        return levels
    for key, group in certificates.groupby(keys, sort=True):
        found = pd.to_numeric(group["chance"], errors="coerce")
        if found.notna().all() and found.nunique() == 1:
            keyed = key if isinstance(key, tuple) else (key,)
            levels[tuple(str(k) for k in keyed)] = float(found.iloc[0])
    return levels


def outcome_roles(samples: pd.DataFrame) -> pd.DataFrame:
    """Per spec, setting and model: how often the chosen option was the answer, a
    distractor, a path entity, a related or a random entity (answered samples with a pick)."""
    picked = _answered(samples)
    picked = picked[picked["chosen_role"].notna()]
    if picked.empty:
        return pd.DataFrame(columns=["spec", "setting", "model"])
    counts = (picked.groupby(["spec", "setting", "model", "chosen_role"]).size()
              .unstack("chosen_role", fill_value=0))
    counts.columns.name = None
    return counts.reset_index()


def fmt(value: object, digits: int = 3) -> str:
    """A table cell: floats rounded, missing values as '-'."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return "-"
    if isinstance(value, (float, np.floating)):
        return f"{value:.{digits}f}"
    return str(value)
