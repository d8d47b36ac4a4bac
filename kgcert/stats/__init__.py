"""Statistics behind kgcert certificates.

- :mod:`~kgcert.stats.binomial`: exact Clopper-Pearson bounds (the certificate itself);
- :mod:`~kgcert.stats.outcomes`: bounds with unparseable answers counted wrong and excluded,
  failed calls never counted wrong;
- :mod:`~kgcert.stats.paired`: exact McNemar comparison of two models on shared prompts, and a
  Holm-corrected ranking of several;
- :mod:`~kgcert.stats.multiple`: Bonferroni-simultaneous bounds over many specs, Holm p-values;
- :mod:`~kgcert.stats.sequential`: an anytime-valid confidence sequence and a monitor that says
  when to stop sampling;
- :mod:`~kgcert.stats.planning`: the number of prompts a target interval width needs;
- :mod:`~kgcert.stats.discordant` and :mod:`~kgcert.stats.racing`: anytime-valid paired
  comparisons with Holm, and which models still have to answer (`--until ranked|best`).

Results are frozen dataclasses so a report can be built from them without recomputation.
"""

from kgcert.stats.binomial import Bounds, clopper_pearson, clopper_pearson_lower, cp_limits
from kgcert.stats.multiple import (
    SimultaneousBounds,
    bonferroni_confidence,
    holm_adjust,
    simultaneous_bounds,
)
from kgcert.stats.outcomes import OutcomeBounds, OutcomeCounts, outcome_bounds
from kgcert.stats.paired import (
    NO_DECISION,
    Hierarchy,
    McNemarResult,
    PairwiseComparison,
    RankedModel,
    hierarchy,
    mcnemar,
    mcnemar_counts,
    mcnemar_exact_p,
)
from kgcert.stats.planning import (
    SamplePlan,
    plan_sample_size,
    plan_sequential_size,
    planned_half_width,
    typical_count,
)
from kgcert.stats.sequential import (
    MIXTURE_CS,
    log_mixture_martingale,
    mixture_cs_limits,
    running_intersection,
)
from kgcert.stats.stopping import SequentialMonitor, SequentialState

__all__ = [
    "MIXTURE_CS",
    "NO_DECISION",
    "Bounds",
    "Hierarchy",
    "McNemarResult",
    "OutcomeBounds",
    "OutcomeCounts",
    "PairwiseComparison",
    "RankedModel",
    "SamplePlan",
    "SequentialMonitor",
    "SequentialState",
    "SimultaneousBounds",
    "bonferroni_confidence",
    "clopper_pearson",
    "clopper_pearson_lower",
    "cp_limits",
    "hierarchy",
    "holm_adjust",
    "log_mixture_martingale",
    "mcnemar",
    "mcnemar_counts",
    "mcnemar_exact_p",
    "mixture_cs_limits",
    "outcome_bounds",
    "plan_sample_size",
    "plan_sequential_size",
    "planned_half_width",
    "running_intersection",
    "simultaneous_bounds",
    "typical_count",
]
