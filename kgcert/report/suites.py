"""The report's suite rows: each suite certificate beside the paper-style mean of bounds.

A suite certificate bounds P(correct) for a prompt drawn from a stated mixture of specs; it is
the one confidence statement in a row. Beside it: the mean of the bounds of its specs' own
certificates in the same report (weighted as the suite weighs them: LLMCert-C's Table 1 is
the equal-weight case), which is a summary of bounds, not a confidence statement about any
mean, and empty unless every spec of the suite has a certificate of its own there; and each
spec's correct/answered prompts in the suite's sample, which are counts, not certified.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from kgcert.certify.record import Certificate
from kgcert.errors import InputError
from kgcert.rundir.run_dir import read_certificate

SUITE = "suite"  # a certificate's spec_kind when it certifies a suite

COLUMNS = ["suite", "setting", "model", "run", "k", "n", "lower", "upper", "confidence",
           "mean_of_bounds_lower", "mean_of_bounds_upper", "specs_with_certificates",
           "per_spec_not_certified", "weights"]


def is_suite(certificates: pd.DataFrame) -> pd.Series:
    return certificates["spec_kind"] == SUITE


def suite_table(certificates: pd.DataFrame) -> pd.DataFrame:
    """One row per suite certificate with answers (n > 0), beside the mean of its specs'
    own bounds (same KG, setting and model) and its per-spec counts."""
    rows = certificates[is_suite(certificates) & ~certificates["baseline"]
                        & (certificates["n"] > 0)]
    if rows.empty:
        return pd.DataFrame(columns=COLUMNS)
    own = certificates[~is_suite(certificates) & ~certificates["baseline"]
                       & (certificates["n"] > 0)]
    found = []
    for row in rows.itertuples():
        cert = _read(str(row.file))
        suite = cert.suite if cert is not None else None
        components = (suite.components if suite is not None else None) or ()
        weights = {str(c.spec): float(c.weight) for c in components}
        lower, upper, apart = _mean_of_bounds(own, weights, row)
        counts = cert.suite_counts if cert is not None else None
        per_spec = (counts.per_spec if counts is not None else None) or ()
        found.append({
            "suite": row.spec, "setting": row.setting, "model": row.model, "run": row.run,
            "k": row.k, "n": row.n, "lower": row.lower, "upper": row.upper,
            "confidence": row.confidence, "mean_of_bounds_lower": lower,
            "mean_of_bounds_upper": upper,
            "specs_with_certificates": f"{apart} of {len(weights)}",
            "per_spec_not_certified": ", ".join(
                f"{item.spec} {item.correct}/{item.answered}" for item in per_spec),
            "weights": ", ".join(f"{spec} {weight:.4g}" for spec, weight in weights.items())})
    return pd.DataFrame(found, columns=COLUMNS)


def _mean_of_bounds(own: pd.DataFrame, weights: dict[str, float], row: Any
                    ) -> tuple[float, float, int]:
    """The suite-weighted mean of its specs' own bounds (each spec's certificates over runs
    averaged first) and how many of its specs have any; NaN unless all of them do."""
    mine = own[own["spec"].isin(list(weights)) & (own["setting"] == row.setting)
               & (own["model"] == row.model)]
    if row.kg is not None and not pd.isna(row.kg):
        mine = mine[mine["kg"] == row.kg]
    by_spec = mine.groupby("spec")[["lower", "upper"]].mean()
    if len(by_spec) < len(weights):
        return float("nan"), float("nan"), len(by_spec)
    lower = sum(weights[str(spec)] * float(by_spec.loc[spec, "lower"]) for spec in by_spec.index)
    upper = sum(weights[str(spec)] * float(by_spec.loc[spec, "upper"]) for spec in by_spec.index)
    return lower, upper, len(by_spec)


def _read(file: str) -> Certificate | None:
    try:
        return read_certificate(Path(file))
    except (OSError, InputError):  # the loader read it a moment ago
        return None


CAPTION = ("Suite certificates: lower and upper bound P(correct) for a prompt drawn from the "
           "suite's mixture of specs (each prompt draws a spec by its weight, then a prompt "
           "from it), at the stated confidence: the one confidence statement in each row. "
           "Beside them, the paper-style mean of bounds: the suite-weighted mean of its specs' "
           "own certificates' bounds in these runs (LLMCert-C Table 1 with equal weights), a "
           "mean of bounds, not a confidence statement, and empty unless every spec of the "
           "suite has its own certificate here. per_spec_not_certified: each spec's correct / "
           "answered prompts in the suite's sample, counts with no bound of their own.")
