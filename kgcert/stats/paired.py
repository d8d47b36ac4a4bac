"""Paired comparison of models evaluated on the same prompts.

When two models answer the same prompts, their outcomes are correlated (easy prompts are easy
for both), and comparing two separate Clopper-Pearson intervals throws that away. The exact
McNemar test conditions on the discordant pairs: b prompts where A is right and B wrong, c
where A is wrong and B right. Under "equal accuracy" each discordant pair is a fair coin, so
b ~ Binomial(b + c, 1/2), and the two-sided exact binomial (sign) test gives the p-value.
Concordant prompts carry no information about the difference and drop out, which is why the
paired test needs far fewer prompts when models agree on most of them
(``benchmarks/bench_stats.py`` measures this).

On aligned samples accuracy(A) - accuracy(B) = (b - c) / n, so the direction of a significant
test always agrees with the accuracy ordering; :func:`hierarchy` relies on that.

Samples must be aligned by index: position i is the same prompt for every model. Drop a prompt
for all models if any model's call failed on it (an API error is not a wrong answer).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from kgcert.stats._checks import as_count, check_level
from kgcert.stats.multiple import holm_adjust

__all__ = [
    "NO_DECISION",
    "Hierarchy",
    "McNemarResult",
    "PairwiseComparison",
    "RankedModel",
    "hierarchy",
    "mcnemar",
    "mcnemar_counts",
    "mcnemar_exact_p",
]

NO_DECISION = "no decision"

# Outcomes of one model, aligned by sample index: True = correct.
Outcomes = Sequence[bool] | NDArray[np.bool_]


def mcnemar_exact_p(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (1.0 when b + c == 0)."""
    b_int = as_count(b, "b")
    c_int = as_count(c, "c")
    if b_int + c_int == 0:
        return 1.0
    from scipy import stats  # here, not at import: scipy.stats takes 1-2 s to load

    return float(stats.binomtest(b_int, b_int + c_int, 0.5, alternative="two-sided").pvalue)


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test of ``model_a`` against ``model_b`` on ``n`` paired samples.

    ``b``: samples where A is right and B wrong; ``c``: A wrong and B right. ``better`` is the
    model with more discordant wins when ``p_value <= alpha``, else None.
    """

    model_a: str
    model_b: str
    n: int
    b: int
    c: int
    p_value: float
    alpha: float

    @property
    def discordant(self) -> int:
        """Pairs on which the models disagree (the test's effective sample size)."""
        return self.b + self.c

    @property
    def better(self) -> str | None:
        """The significantly better model, or None."""
        if self.p_value > self.alpha or self.b == self.c:
            return None
        return self.model_a if self.b > self.c else self.model_b

    @property
    def decision(self) -> str:
        """The better model's name, or ``"no decision"``."""
        better = self.better
        return NO_DECISION if better is None else better


def mcnemar_counts(
    b: int,
    c: int,
    alpha: float = 0.05,
    names: tuple[str, str] = ("A", "B"),
    n: int | None = None,
) -> McNemarResult:
    """Exact McNemar test from discordant counts (``n`` defaults to b + c if not known)."""
    b_int = as_count(b, "b")
    c_int = as_count(c, "c")
    total = b_int + c_int if n is None else as_count(n, "n")
    if total < b_int + c_int:
        raise ValueError(f"n={total} is smaller than the {b_int + c_int} discordant pairs")
    return McNemarResult(
        model_a=names[0],
        model_b=names[1],
        n=total,
        b=b_int,
        c=c_int,
        p_value=mcnemar_exact_p(b_int, c_int),
        alpha=check_level(alpha, "alpha"),
    )


def _outcome_array(values: Outcomes, name: str) -> NDArray[np.bool_]:
    raw = np.asarray(values)
    if raw.ndim != 1:
        raise ValueError(f"outcomes of {name} must be one-dimensional")
    if raw.dtype.kind != "b" and not np.all((raw == 0) | (raw == 1)):
        raise ValueError(f"outcomes of {name} must be booleans (or 0/1)")
    return raw.astype(bool)


def mcnemar(
    results_a: Outcomes,
    results_b: Outcomes,
    alpha: float = 0.05,
    names: tuple[str, str] = ("A", "B"),
) -> McNemarResult:
    """Exact McNemar test on two outcome sequences aligned by sample index."""
    a = _outcome_array(results_a, names[0])
    b = _outcome_array(results_b, names[1])
    if a.shape != b.shape:
        raise ValueError(f"outcomes are not aligned: {a.size} vs {b.size} samples")
    return mcnemar_counts(
        int(np.sum(a & ~b)), int(np.sum(~a & b)), alpha=alpha, names=names, n=int(a.size)
    )


@dataclass(frozen=True)
class RankedModel:
    """One model's place in a :class:`Hierarchy` (``group`` 0 is the best group)."""

    name: str
    correct: int
    n: int
    group: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.n


@dataclass(frozen=True)
class PairwiseComparison:
    """One McNemar test in the family, with its Holm-adjusted p-value and verdict."""

    test: McNemarResult
    adjusted_p: float
    reject: bool

    @property
    def better(self) -> str | None:
        """The significantly better model after Holm correction, or None."""
        if not self.reject or self.test.b == self.test.c:
            return None
        return self.test.model_a if self.test.b > self.test.c else self.test.model_b


@dataclass(frozen=True)
class Hierarchy:
    """Models ranked by accuracy and grouped into statistically indistinguishable tiers.

    ``models`` is best first; ``groups`` lists model names per tier, best tier first;
    ``comparisons`` holds every pairwise test (the better-ranked model is ``model_a``).
    """

    alpha: float
    models: tuple[RankedModel, ...]
    groups: tuple[tuple[str, ...], ...]
    comparisons: tuple[PairwiseComparison, ...]

    @property
    def ordering(self) -> tuple[str, ...]:
        return tuple(model.name for model in self.models)

    def comparison(self, first: str, second: str) -> PairwiseComparison:
        """The test between two models, whichever order they are named in."""
        for item in self.comparisons:
            if {item.test.model_a, item.test.model_b} == {first, second}:
                return item
        raise KeyError((first, second))


def hierarchy(results: Mapping[str, Outcomes], alpha: float = 0.05,
              adjusted_p: Sequence[float] | None = None) -> Hierarchy:
    """Rank models by accuracy and group those not significantly different.

    Every pair gets an exact McNemar test; Holm's procedure over all K(K-1)/2 p-values keeps
    the chance of any false "X beats Y" claim at most ``alpha``.

    Grouping rule (greedy, down the accuracy ranking, ties broken by name): a model joins the
    current group unless its Holm-adjusted test against *some* member of that group rejects;
    then it opens a new group. This gives two guarantees a reader can check in
    ``comparisons``: (1) no two models in the same group are significantly different, and
    (2) every group after the first starts with a model significantly worse than at least one
    model of the group above. Merging only *adjacent* non-rejecting pairs would not give (1):
    with A ~ B and B ~ C but A > C significant, it would put all three in one group, whereas
    this rule gives [A, B], [C]. Rejections are not transitive, so a model in a lower group
    need not be significantly worse than every model above it; the pairwise table says which.

    ``adjusted_p``, when given, replaces the Holm adjustment within these pairs (one value per
    pair, in the order of the ``comparisons`` this gives without it): Holm over a larger
    family, e.g. every pair of every spec and setting of a run.
    """
    level = check_level(alpha, "alpha")
    if len(results) < 2:
        raise ValueError("need at least two models to rank")
    arrays = {name: _outcome_array(values, name) for name, values in results.items()}
    sizes = {array.size for array in arrays.values()}
    if len(sizes) != 1:
        raise ValueError(f"outcomes are not aligned by sample index: lengths {sorted(sizes)}")
    n = sizes.pop()
    if n == 0:
        raise ValueError("need at least one sample")

    correct = {name: int(np.sum(array)) for name, array in arrays.items()}
    order = sorted(arrays, key=lambda name: (-correct[name], name))
    tests = [
        mcnemar(arrays[first], arrays[second], alpha=level, names=(first, second))
        for first, second in combinations(order, 2)
    ]
    adjusted = (holm_adjust([test.p_value for test in tests]) if adjusted_p is None
                else tuple(adjusted_p))
    if len(adjusted) != len(tests):
        raise ValueError(f"need {len(tests)} adjusted p-values, got {len(adjusted)}")
    comparisons = tuple(
        PairwiseComparison(test=test, adjusted_p=p, reject=p <= level)
        for test, p in zip(tests, adjusted, strict=True)
    )
    rejected = {
        frozenset((item.test.model_a, item.test.model_b)) for item in comparisons if item.reject
    }

    groups: list[list[str]] = []
    for name in order:
        if groups and not any(frozenset((name, member)) in rejected for member in groups[-1]):
            groups[-1].append(name)
        else:
            groups.append([name])
    group_of = {name: index for index, group in enumerate(groups) for name in group}
    models = tuple(
        RankedModel(name=name, correct=correct[name], n=n, group=group_of[name]) for name in order
    )
    return Hierarchy(
        alpha=level,
        models=models,
        groups=tuple(tuple(group) for group in groups),
        comparisons=comparisons,
    )
